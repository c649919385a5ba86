/**
 * Durable outboxes (STYLE "the transactional outbox"): the items an actor's events add
 * (ActorDefinition.outbox) are written in the same commit as the events, handed to their outbox's
 * handler once committed, and removed when it is done. A crash between the commit and the
 * handling, or a handler that fails, leaves the item stored: the sweep (at start and every
 * OUTBOX_SWEEP_MS) hands it over again, once it is due: each failed attempt is kept with the
 * item, and the next waits twice as long as the one before, up to OUTBOX_RETRY_MAX_MS (a poisoned
 * item is tried, and logged, now and then, not at every sweep). So an item may be handled twice
 * (a crash after its handler, before its removal): every handler is idempotent. In one process an item is never handled twice
 * at once: a sweep that finds an item being handled waits for that handling.
 *
 * Across instances, an item is handled by the holder of its actor's partition (issue 43 item 3):
 * the sweeps read the held partitions' items only, and an item committed here whose partition
 * moved meanwhile is left to its new holder, whose sweep of the partition gained finds it.
 */
import {
  OUTBOX_DRAINS_MAX,
  OUTBOX_RETRY_FIRST_MS,
  OUTBOX_RETRY_MAX_MS,
  OUTBOX_SWEEP_ITEMS_MAX,
  OUTBOX_SWEEP_ROUNDS_MAX,
  OUTBOX_WAITING_MAX,
} from "../limits.ts";
import type { ActorKey, ActorStore, HeldPartitions, OutboxItem } from "./store.ts";

/** Does what an item asks; throws when it could not (the item stays for the sweep). */
export type OutboxHandler = (item: OutboxItem) => Promise<void>;

/** How an outbox's failed items are tried again. */
export interface OutboxRetry {
  /**
   * The longest wait between two attempts (default OUTBOX_RETRY_MAX_MS): shorter for work a
   * caller is waiting on, told to retry within seconds (a stalled booking's completion).
   */
  readonly retryMaxMs?: number;
}

export class Outboxes {
  readonly #store: ActorStore;
  readonly #onError: (error: unknown, where: string) => void;
  /** The handlers of each outbox, the latest last: it handles the outbox (register). */
  readonly #handlers = new Map<string, OutboxHandler[]>();
  /** Each outbox's longest wait between attempts, where not OUTBOX_RETRY_MAX_MS. */
  readonly #retryMaxMs = new Map<string, number>();
  /** Items being handled or waiting for a slot, by key: whether each was handled. */
  readonly #inflight = new Map<string, Promise<boolean>>();
  /**
   * Keys of items this process handled and removed lately (oldest first, bounded): a sweep whose
   * read was made before a removal does not hand the item over again.
   */
  readonly #removed = new Set<string>();
  /**
   * Failed attempts this process recorded lately, by key (oldest first, bounded): a sweep whose
   * read was made before the failure holds a stale copy, handed over early and, removed as that
   * copy (ActorStore.removeOutboxItems), leaving the item where it now waits (Deno KV's deferred
   * prefix) to be handled again; so a copy behind the attempts recorded waits for its due time.
   */
  readonly #attempted = new Map<string, number>();
  #active = 0;
  #begun = 0;
  readonly #slots: (() => void)[] = [];
  /** Handled items to remove, in one store write for many. */
  #toRemove: { item: OutboxItem; done: () => void; fail: (e: unknown) => void }[] = [];
  #removing = false;
  #sweep: Promise<number> | null = null;
  #closed = false;
  readonly #held: () => HeldPartitions;
  readonly #holds: (key: ActorKey) => boolean;
  readonly #now: () => number;

  constructor(options: {
    store: ActorStore;
    onError: (error: unknown, where: string) => void;
    /** The injected clock's time: when a failed item is next due. */
    now: () => number;
    /** The partitions this instance holds (undefined: all), and whether it holds an actor's. */
    held?: () => HeldPartitions;
    holds?: (key: ActorKey) => boolean;
  }) {
    this.#store = options.store;
    this.#onError = options.onError;
    this.#held = options.held ?? (() => undefined);
    this.#holds = options.holds ?? (() => true);
    this.#now = options.now;
  }

  /** Handlings begun, ever (see ActorRuntime.outboxHandlings). */
  get begun(): number {
    return this.#begun;
  }

  /**
   * Names the handler of one outbox; its stored items are found by the next sweep. A later
   * handler takes over until it is released (a second instance of a reactor, in tests); the
   * answer releases this one, and then its items wait in the store for the next handler.
   */
  register(outbox: string, handler: OutboxHandler, retry: OutboxRetry = {}): () => void {
    const handlers = this.#handlers.get(outbox) ?? [];
    this.#handlers.set(outbox, [...handlers, handler]);
    if (retry.retryMaxMs !== undefined) this.#retryMaxMs.set(outbox, retry.retryMaxMs);
    return () => {
      const left = (this.#handlers.get(outbox) ?? []).filter((h) => h !== handler);
      if (left.length > 0) this.#handlers.set(outbox, left);
      else this.#handlers.delete(outbox);
    };
  }

  /** Resolves once no item is being handled (every handling begun before has ended). */
  async idle(): Promise<void> {
    while (this.#inflight.size > 0 || this.#sweep !== null) {
      await Promise.all([this.#sweep, ...this.#inflight.values()]);
    }
  }

  /** Items just committed are handled now (an outbox with no handler keeps them). */
  committed(items: readonly OutboxItem[]): void {
    for (const item of items) if (this.#holds(item)) void this.#start(item);
  }

  /**
   * Hands every stored item of every handled outbox to its handler; answers how many were
   * handled. One sweep at a time: a caller during a sweep waits for it.
   */
  sweep(): Promise<number> {
    this.#sweep ??= this.#sweepAll(this.#held()).finally(() => {
      this.#sweep = null;
    });
    return this.#sweep;
  }

  /**
   * Hands over the stored items of these partitions only (just gained), after the sweep under
   * way: an item that sweep is handling is waited for, never handled twice at once.
   */
  async sweepPartitions(partitions: readonly number[]): Promise<number> {
    await this.#sweep;
    return await this.#sweepAll(partitions);
  }

  /** Stops taking items and waits for those being handled (the rest stay stored). */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#sweep;
    await Promise.all([...this.#inflight.values()]);
  }

  async #sweepAll(held: HeldPartitions): Promise<number> {
    let handled = 0;
    for (const outbox of [...this.#handlers.keys()]) {
      // An item that failed this sweep is not tried again until the next one; the listing
      // reaches past those still stored, or a full listing of them would hide every later item.
      const tried = new Set<string>();
      let failed = 0;
      for (let round = 0; round < OUTBOX_SWEEP_ROUNDS_MAX && !this.#closed; round++) {
        const listed = OUTBOX_SWEEP_ITEMS_MAX + failed;
        const items = await this.#store.outboxItems(outbox, listed, held, this.#now());
        const fresh = items.filter((i) => !tried.has(keyOf(i)));
        if (fresh.length === 0) break;
        for (const i of fresh) tried.add(keyOf(i));
        const done = await Promise.all(fresh.map((i) => this.#start(i)));
        handled += done.filter(Boolean).length;
        failed += done.filter((d) => !d).length;
        if (items.length < listed) break;
      }
    }
    return handled;
  }

  /** The item's handling, begun now or already under way; false when not handled. */
  #start(item: OutboxItem): Promise<boolean> {
    const key = keyOf(item);
    const known = this.#inflight.get(key);
    if (known) return known;
    if (this.#removed.has(key)) return Promise.resolve(true);
    if ((item.attempts ?? 0) < (this.#attempted.get(key) ?? 0)) return Promise.resolve(false);
    const handler = this.#handlers.get(item.outbox)?.at(-1);
    // Past the bound the item waits in the store, where the sweep finds it.
    if (!handler || this.#closed || this.#inflight.size >= OUTBOX_WAITING_MAX) {
      return Promise.resolve(false);
    }
    this.#begun++;
    const handling = this.#slot()
      .then(() => this.#handle(handler, item))
      .finally(() => {
        this.#inflight.delete(key);
        this.#release();
      });
    this.#inflight.set(key, handling);
    return handling;
  }

  async #handle(handler: OutboxHandler, item: OutboxItem): Promise<boolean> {
    try {
      await handler(item);
    } catch (e) {
      await this.#failed(item, e);
      return false;
    }
    try {
      await this.#remove(item);
    } catch (e) {
      // Handled, still stored: the sweep hands it over again, which the handler takes calmly.
      this.#onError(e, `outbox ${item.outbox}: removing`);
    }
    return true;
  }

  /** A failed attempt: logged once, with its number, and kept with the item until it is due. */
  async #failed(item: OutboxItem, error: unknown): Promise<void> {
    const attempts = (item.attempts ?? 0) + 1;
    const cap = this.#retryMaxMs.get(item.outbox) ?? OUTBOX_RETRY_MAX_MS;
    const nextAt = this.#now() + retryWait(attempts, cap);
    const name = `outbox ${item.outbox} ${item.type} ${item.id} ${item.seq}`;
    this.#onError(error, `${name}: attempt ${attempts} failed, next at ${nextAt}`);
    try {
      await this.#store.retryOutboxItem(item, attempts, nextAt);
      this.#attempted.delete(keyOf(item));
      this.#attempted.set(keyOf(item), attempts);
      if (this.#attempted.size > OUTBOX_WAITING_MAX) {
        this.#attempted.delete(this.#attempted.keys().next().value!);
      }
    } catch (e) {
      // Not recorded: the item is due at the next sweep, as its last attempt left it.
      this.#onError(e, `${name}: recording attempt ${attempts}`);
    }
  }

  #slot(): Promise<void> {
    if (this.#active < OUTBOX_DRAINS_MAX) {
      this.#active++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#slots.push(resolve));
  }

  #release(): void {
    const next = this.#slots.shift();
    if (next) next(); // the slot passes on
    else this.#active--;
  }

  /** Removes a handled item, with the others handled meanwhile, in one store write. */
  #remove(item: OutboxItem): Promise<void> {
    return new Promise((done, fail) => {
      this.#toRemove.push({ item, done, fail });
      if (!this.#removing) void this.#removeWaiting();
    });
  }

  async #removeWaiting(): Promise<void> {
    this.#removing = true;
    while (this.#toRemove.length > 0) {
      const batch = this.#toRemove;
      this.#toRemove = [];
      try {
        await this.#store.removeOutboxItems(batch.map((r) => r.item));
        for (const r of batch) {
          this.#remember(keyOf(r.item));
          this.#attempted.delete(keyOf(r.item));
          r.done();
        }
      } catch (e) {
        for (const r of batch) r.fail(e);
      }
    }
    this.#removing = false;
  }

  #remember(key: string): void {
    this.#removed.add(key);
    if (this.#removed.size > OUTBOX_WAITING_MAX) {
      this.#removed.delete(this.#removed.values().next().value!);
    }
  }
}

/** The wait after the `attempts`-th failure: doubling from OUTBOX_RETRY_FIRST_MS, capped. */
function retryWait(attempts: number, cap: number): number {
  const doublings = Math.min(attempts - 1, 30); // 2^30 s is past any cap: no overflow
  return Math.min(OUTBOX_RETRY_FIRST_MS * 2 ** doublings, cap);
}

function keyOf(i: OutboxItem): string {
  return `${i.outbox}\u0000${i.type}\u0000${i.id}\u0000${i.seq}\u0000${i.n}`;
}
