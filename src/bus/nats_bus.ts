/**
 * The NATS bus, used when NATS_URL is set. Payloads travel as UTF-8 JSON.
 *
 * The connection asks the server not to echo its own messages back (`noEcho`): what this
 * instance publishes goes to its own handlers directly, as the object published (frozen), which
 * spares a socket round trip and a parse per message; other instances get it from NATS.
 *
 * NATS sends a connection one copy of a message per matching subscription, and several handlers
 * of one process match the same changes (projections, billing, webhooks, alerts...). So handlers
 * share one NATS subscription per env (first subject token), a "feed": each message is received
 * and parsed once, then queued to every local handler whose pattern matches. Handlers share the
 * parsed payload, frozen (frozen.ts) as on the in-process bus, so none can change it.
 */
import { connect } from "@nats-io/transport-node";
import type { NatsConnection, Subscription as NatsSubscription } from "@nats-io/transport-node";
import type { Bus, BusHandler, BusMessage, SubscribeOptions, Subscription } from "./bus.ts";
import { deepFreeze } from "./frozen.ts";
import { handled, matches } from "./memory_bus.ts";

const encoder = new TextEncoder();

/** One handler of this instance: its own queue, so a slow handler holds up only itself. */
class Delivery {
  /** False until the handler may receive messages (see `NatsBus.subscribe`). */
  started = false;
  queued = 0;
  handled = 0;
  #closed = false;
  #running = false;
  #queue: BusMessage[] = [];
  #waiters: { upTo: number; resolve: () => void }[] = [];

  /** A pipelined handler's messages, each counted handled once it and those before are done. */
  #tail: Promise<void> = Promise.resolve();

  constructor(
    readonly tokens: readonly string[],
    readonly handler: BusHandler,
    readonly pipelined: boolean,
  ) {}

  push(message: BusMessage): void {
    this.#queue.push(message);
    this.queued++;
    if (!this.#running) {
      this.#running = true;
      void this.#run();
    }
  }

  /**
   * Runs the handler for each message in turn (a pipelined one without waiting for it to be
   * done); a failing handler is logged, never fatal.
   */
  async #run(): Promise<void> {
    await Promise.resolve(); // never run a handler inside the NATS parser that queued for it
    while (this.#queue.length > 0) {
      const message = this.#queue.shift()!;
      if (this.pipelined) {
        const done = handled(this.handler, message);
        this.#tail = this.#tail.then(() => done).then(() => this.#handledOne());
        continue;
      }
      await handled(this.handler, message);
      this.#handledOne();
    }
    this.#running = false;
  }

  #handledOne(): void {
    this.handled++;
    this.#waiters = this.#waiters.filter((w) => {
      if (this.handled < w.upTo) return true;
      w.resolve();
      return false;
    });
  }

  /** Resolves once the handler has finished `upTo` messages (or was unsubscribed). */
  until(upTo: number): Promise<void> {
    if (this.handled >= upTo || this.#closed) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ upTo, resolve }));
  }

  /** Drops what is still queued and releases flush waiters. */
  close(): void {
    this.#closed = true;
    this.#queue = [];
    for (const w of this.#waiters) w.resolve();
    this.#waiters = [];
  }
}

/** One NATS subscription and the handlers it feeds. */
interface Feed {
  readonly sub: NatsSubscription;
  readonly deliveries: Set<Delivery>;
}

export class NatsBus implements Bus {
  #nc: NatsConnection;
  /** By NATS subject (`feedSubject`). */
  #feeds = new Map<string, Feed>();
  #deliveries = new Set<Delivery>();
  #drained: Promise<void> | undefined;

  /** `nc` must be connected with `noEcho` (see `connect`). */
  constructor(nc: NatsConnection) {
    this.#nc = nc;
  }

  /** `servers` is one URL or a comma-separated list, as in NATS_URL. */
  static async connect(servers: string): Promise<NatsBus> {
    return new NatsBus(
      await connect({ servers: servers.split(",").map((s) => s.trim()), noEcho: true }),
    );
  }

  publish(subject: string, payload: unknown): Promise<void> {
    // Promise.try turns a synchronous refusal (closed connection, bad subject) into a rejection.
    return Promise.try(() => {
      const json = JSON.stringify(payload);
      this.#nc.publish(subject, encoder.encode(json));
      // Our own handlers, each subscribed before this call, in publish order: they share the
      // published object, frozen, as on the in-process bus (issue 36 item 3: no copies). Parsing
      // our own JSON back cost as much again as writing it (about 45 µs a booking).
      dispatch(this.#deliveries, subject, () => payload, true);
    });
  }

  subscribe(pattern: string, handler: BusHandler, options: SubscribeOptions = {}): Subscription {
    if (this.#nc.isClosed() || this.#nc.isDraining()) throw new Error("bus is closed");
    const tokens = pattern.split(".");
    if (tokens.some((t, i) => t === "" || /\s/.test(t) || (t === ">" && i < tokens.length - 1))) {
      throw new RangeError(`invalid subject pattern: ${pattern}`);
    }
    const delivery = new Delivery(tokens, handler, options.pipelined ?? false);
    const subject = feedSubject(tokens);
    let feed = this.#feeds.get(subject);
    if (feed) {
      // The feed may still bring other instances' messages published before this call, which a
      // new NATS subscription would not get: the handler takes them only from the next flush's
      // answer on, by which the server has routed every message it had before.
      this.#nc.flush().catch(() => {}).then(() => delivery.started = true);
    } else {
      const deliveries = new Set<Delivery>();
      const sub = this.#nc.subscribe(subject, {
        // A callback runs as each message is parsed: nothing is received and not yet queued.
        callback: (err, msg) => {
          if (err) console.error(`bus subscription to ${subject} failed:`, err);
          else dispatch(deliveries, msg.subject, () => msg.json<unknown>(), false);
        },
      });
      feed = { sub, deliveries };
      this.#feeds.set(subject, feed);
      delivery.started = true;
    }
    feed.deliveries.add(delivery);
    this.#deliveries.add(delivery);
    const joined = feed;
    return {
      unsubscribe: () => {
        delivery.close();
        this.#deliveries.delete(delivery);
        joined.deliveries.delete(delivery);
        // The last handler of a feed takes its NATS subscription along.
        if (joined.deliveries.size === 0 && this.#feeds.get(subject) === joined) {
          this.#feeds.delete(subject);
          joined.sub.unsubscribe();
        }
      },
    };
  }

  /**
   * Resolves once the server has everything published so far and this instance's own handlers
   * have finished every message they had received by then. The runtime drops an actor's recovery
   * marker only after a flush, so a crash before a local projection wrote a change still
   * republishes it at start (NATS itself keeps no messages).
   */
  async flush(): Promise<void> {
    // The server answers the flush after routing every earlier message, ours included, to this
    // connection's subscriptions, and feeds queue each message as it is parsed: what the
    // handlers have been given now covers all we published.
    await this.#nc.flush();
    await Promise.all([...this.#deliveries].map((d) => d.until(d.queued)));
  }

  backlog(): number {
    let waiting = 0;
    for (const d of this.#deliveries) waiting += d.queued - d.handled;
    return waiting;
  }

  drain(): Promise<void> {
    this.#drained ??= this.#drain();
    return this.#drained;
  }

  async #drain(): Promise<void> {
    if (!this.#nc.isClosed()) await this.#nc.drain();
    // The connection has closed; let each handler finish the messages it was given.
    await Promise.all([...this.#deliveries].map((d) => d.until(d.queued)));
  }
}

/**
 * The NATS subject of the feed a pattern belongs to: every subject of its env (`live.>`), or of
 * every env when its first token is a wildcard. A one-token pattern is a feed of its own, as
 * `live.>` does not match `live`.
 */
function feedSubject(tokens: readonly string[]): string {
  if (tokens.length === 1) return tokens[0]!;
  return tokens[0] === "*" ? ">" : `${tokens[0]}.>`;
}

/**
 * Parses a message once, if any handler wants it, and queues it to each of them. Another
 * instance's message goes only to handlers that have started (see `subscribe`); our own, given
 * at publish, to every handler subscribed by then.
 */
function dispatch(
  deliveries: ReadonlySet<Delivery>,
  subject: string,
  parse: () => unknown,
  own: boolean,
): void {
  const tokens = subject.split(".");
  let message: BusMessage | undefined;
  for (const d of deliveries) {
    if (!(own || d.started) || !matches(d.tokens, tokens)) continue;
    if (!message) {
      try {
        message = { subject, payload: deepFreeze(parse()) };
      } catch (e) {
        console.error(`bus message on ${subject} is not JSON:`, e);
        return;
      }
    }
    d.push(message);
  }
}
