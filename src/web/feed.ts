/**
 * The server side of a live page (ARCHITECTURE "Boards", STYLE 14): one socket's feed of the
 * changes of some actor types of one tenant, from the bus as they commit. Changes are coalesced
 * per actor (a burst of changes to one sends its latest state once) and pushed once per tick; a
 * slow socket is left to drain while changes keep coalescing, and a feed too far behind is closed,
 * never let grow.
 */
import {
  type ActorChange,
  type Bus,
  EVERY_INSTANCE,
  signalPattern,
  subjectPattern,
  type Subscription,
} from "../bus/bus.ts";

/** Changes waiting for one feed; a feed this far behind is closed, never let grow. */
export const FEED_PENDING_MAX = 2_000;
/** Bytes a socket may hold unsent before pushes wait (and coalesce) instead of piling up. */
export const FEED_BUFFERED_BYTES_MAX = 1_000_000;
/** Pushes are batched per tick: a burst of changes to one actor sends its latest state once. */
export const FEED_FLUSH_MS = 50;

/** The socket a feed writes to: a WebSocket, or a test's stand-in. */
export interface FeedSink {
  send(text: string): void;
  close(code: number, reason: string): void;
  /** Bytes handed to the socket and not yet written to the network. */
  readonly bufferedAmount: number;
}

export interface FeedOptions {
  readonly bus: Bus;
  /** The runtime's bus prefix (src/runtime/runtime.ts `busPrefix`). */
  readonly env: string;
  readonly tenant: string;
  readonly now: () => number;
  readonly pendingMax?: number;
  readonly bufferedBytesMax?: number;
}

/** What a feed shows: the actor types it hears and the message of one change. */
export interface FeedView {
  readonly types: readonly string[];
  /** The message for the page; null: nothing to show of this change. */
  messageOf(change: ActorChange, now: number): Record<string, unknown> | null;
  /** The close code and reason of a feed that fell behind. */
  readonly behind: { readonly code: number; readonly reason: string };
  /**
   * Changes of other tenants it also shows (a business's board shows the platform's pool
   * drivers), and signals (`signalSubject`) shaped as changes, such as a driver's position.
   */
  readonly also?: readonly FeedSource[];
}

/** Actor changes, or signals, of some types of one tenant. */
export interface FeedSource {
  readonly tenant: string;
  readonly types: readonly string[];
  readonly signal?: boolean;
}

/** One socket's subscription: changes of one tenant's actors of some types, coalesced and bounded. */
export class ChangeFeed {
  readonly #sink: FeedSink;
  readonly #o: FeedOptions;
  readonly #view: FeedView;
  /** Latest message per actor, in the order they last changed. */
  readonly #pending = new Map<string, string>();
  #subs: Subscription[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #ready = false;
  #stopped = false;

  constructor(sink: FeedSink, options: FeedOptions, view: FeedView) {
    this.#sink = sink;
    this.#o = options;
    this.#view = view;
  }

  get stopped(): boolean {
    return this.#stopped;
  }

  /** Subscribes, waits until the bus has the subscriptions, then says `ready`. */
  async start(): Promise<void> {
    const { bus, env } = this.#o;
    for (const source of this.#sources()) {
      for (const type of source.types) {
        const pattern = source.signal
          ? signalPattern(env, source.tenant, type)
          : subjectPattern(env, source.tenant, type);
        // This instance's socket: it hears every change, whoever holds it (issue 43 item 3).
        const handledBy = EVERY_INSTANCE;
        this.#subs.push(bus.subscribe(pattern, (m) => this.receive(m.payload), { handledBy }));
      }
    }
    await bus.flush();
    if (this.#stopped) return;
    this.#ready = true;
    this.#sink.send(JSON.stringify({ type: "ready", at: new Date(this.#o.now()).toISOString() }));
    this.#flush();
  }

  /** One bus payload; anything not this tenant's change of a type shown is dropped. */
  receive(payload: unknown): void {
    if (this.#stopped || !isChange(payload)) return;
    // Defensive: the subject pattern is per tenant, but never trust a subject alone.
    if (payload.env !== this.#o.env) return;
    const shown = this.#sources().some((s) =>
      s.tenant === payload.tenant && s.types.includes(payload.type)
    );
    if (!shown) return;
    const message = this.#view.messageOf(payload, this.#o.now());
    if (message === null) return;
    this.push(`${payload.type}:${payload.id}`, message);
  }

  /**
   * A message a view adds of its own (what a change made it show, read elsewhere), coalesced
   * under `key` with the changes of the same thing and pushed on the next tick.
   */
  push(key: string, message: Record<string, unknown>): void {
    if (this.#stopped) return;
    this.#pending.delete(key);
    this.#pending.set(key, JSON.stringify(message));
    if (this.#pending.size > (this.#o.pendingMax ?? FEED_PENDING_MAX)) {
      this.close(this.#view.behind.code, this.#view.behind.reason);
      return;
    }
    this.#timer ??= setTimeout(() => this.#flush(), FEED_FLUSH_MS);
  }

  /** Stops the feed and closes the socket. */
  close(code: number, reason: string): void {
    if (this.#stopped) return;
    this.stop();
    this.#sink.close(code, reason);
  }

  /** Unsubscribes; the socket is already closing. */
  stop(): void {
    this.#stopped = true;
    for (const s of this.#subs) s.unsubscribe();
    this.#subs = [];
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#pending.clear();
  }

  #sources(): readonly FeedSource[] {
    return [{ tenant: this.#o.tenant, types: this.#view.types }, ...this.#view.also ?? []];
  }

  #flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#stopped || !this.#ready || this.#pending.size === 0) return;
    if (this.#sink.bufferedAmount > (this.#o.bufferedBytesMax ?? FEED_BUFFERED_BYTES_MAX)) {
      // The client is slow: keep coalescing until it drains or falls past the pending cap.
      this.#timer = setTimeout(() => this.#flush(), FEED_FLUSH_MS);
      return;
    }
    for (const text of this.#pending.values()) this.#sink.send(text);
    this.#pending.clear();
  }
}

function isChange(p: unknown): p is ActorChange {
  if (typeof p !== "object" || p === null) return false;
  const c = p as Record<string, unknown>;
  return typeof c.tenant === "string" && typeof c.env === "string" &&
    typeof c.type === "string" && typeof c.id === "string" && typeof c.version === "number";
}
