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
 *
 * Work done once (issue 43 item 3): a change travels with its actor's partition in a header
 * (PARTITION_HEADER), and a handler the partition's holder alone runs (SubscribeOptions.handledBy)
 * is not given a change of a partition this instance does not hold. The header is read before the
 * JSON: a change no handler here takes (an idle instance's share of another's bookings) is dropped
 * unparsed. Chosen over NATS queue groups, which spread one subject's messages over the members at
 * random (one actor's changes would lose their order and their holder), and over a subject per
 * partition, which would change every subject and pattern while the per-instance handlers (caches,
 * boards) must hear every change anyway.
 */
import { connect, errors, headers } from "@nats-io/transport-node";
import type {
  MsgHdrs,
  NatsConnection,
  Subscription as NatsSubscription,
} from "@nats-io/transport-node";
import {
  type Bus,
  type BusHandler,
  type BusMessage,
  type HandledBy,
  handledHere,
  NoResponders,
  type PublishOptions,
  type RequestHandler,
  RequestTimeout,
  type SubscribeOptions,
  type Subscription,
} from "./bus.ts";
import { deepFreeze } from "./frozen.ts";
import { handled, LocalServers, matches } from "./memory_bus.ts";

const encoder = new TextEncoder();

/** The header naming a change's partition (BusMessage.partition), in decimal. */
export const PARTITION_HEADER = "Actor-Partition";

/** One header set per partition, made once: every change of a partition carries the same. */
const partitionHeaders = new Map<number, MsgHdrs>();

function headersOf(partition: number): MsgHdrs {
  let h = partitionHeaders.get(partition);
  if (!h) {
    h = headers();
    h.set(PARTITION_HEADER, String(partition));
    partitionHeaders.set(partition, h);
  }
  return h;
}

/** The partition a received message names; undefined when none (or not a number). */
function partitionOfHeaders(h: MsgHdrs | undefined): number | undefined {
  const text = h?.get(PARTITION_HEADER);
  if (!text) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : undefined;
}

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
    readonly handledBy: HandledBy | undefined,
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
  /** This connection's own request handlers: `noEcho` keeps its own requests from NATS's. */
  #servers = new LocalServers();
  #drained: Promise<void> | undefined;

  /** `nc` must be connected with `noEcho` (see `connect`). */
  constructor(nc: NatsConnection) {
    this.#nc = nc;
    void this.#followStatus();
  }

  /** `servers` is one URL or a comma-separated list, as in NATS_URL. */
  #reachable = true;

  reachable(): boolean {
    return this.#reachable && !this.#nc.isClosed();
  }

  /** Disconnected until reconnected: what `reachable` answers. */
  async #followStatus(): Promise<void> {
    for await (const s of this.#nc.status()) {
      if (s.type === "disconnect") this.#reachable = false;
      else if (s.type === "reconnect") this.#reachable = true;
    }
  }

  static async connect(servers: string): Promise<NatsBus> {
    return new NatsBus(
      await connect({ servers: servers.split(",").map((s) => s.trim()), noEcho: true }),
    );
  }

  publish(subject: string, payload: unknown, options: PublishOptions = {}): Promise<void> {
    // Promise.try turns a synchronous refusal (closed connection, bad subject) into a rejection.
    return Promise.try(() => {
      const json = JSON.stringify(payload);
      const { partition } = options;
      this.#nc.publish(
        subject,
        encoder.encode(json),
        partition === undefined ? undefined : { headers: headersOf(partition) },
      );
      // Our own handlers, each subscribed before this call, in publish order: they share the
      // published object, frozen, as on the in-process bus (issue 36 item 3: no copies). Parsing
      // our own JSON back cost as much again as writing it (about 45 µs a booking).
      dispatch(this.#deliveries, { subject, partition, own: true }, () => payload);
    });
  }

  subscribe(pattern: string, handler: BusHandler, options: SubscribeOptions = {}): Subscription {
    if (this.#nc.isClosed() || this.#nc.isDraining()) throw new Error("bus is closed");
    const tokens = pattern.split(".");
    if (tokens.some((t, i) => t === "" || /\s/.test(t) || (t === ">" && i < tokens.length - 1))) {
      throw new RangeError(`invalid subject pattern: ${pattern}`);
    }
    const delivery = new Delivery(
      tokens,
      handler,
      options.pipelined ?? false,
      options.handledBy,
    );
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
          else {
            const partition = partitionOfHeaders(msg.headers);
            const from = { subject: msg.subject, partition, own: false };
            dispatch(deliveries, from, () => msg.json<unknown>());
          }
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
   * NATS request/reply: the server answers at once when no subscription has the subject (no
   * responders), which tells "nobody holds it" apart from "the holder is slow" (a timeout).
   */
  async request(
    subject: string,
    payload: unknown,
    options: { timeoutMs: number },
  ): Promise<unknown> {
    // Served by this very connection (two environments of one process, a test's two runtimes):
    // answered here, as publish hands our own handlers their messages.
    const here = this.#servers.request(subject, payload, options.timeoutMs);
    if (here) return await here;
    try {
      const msg = await this.#nc.request(subject, encoder.encode(JSON.stringify(payload)), {
        timeout: options.timeoutMs,
      });
      return msg.json<unknown>();
    } catch (e) {
      if (e instanceof errors.RequestError && e.isNoResponders()) throw new NoResponders(subject);
      if (e instanceof errors.TimeoutError) throw new RequestTimeout(subject, options.timeoutMs);
      throw e;
    }
  }

  /**
   * Answers each request in turn as it comes, concurrently (a forwarded ask waits on its actor,
   * never on another actor's); a handler that throws leaves the request unanswered.
   */
  serve(subject: string, handler: RequestHandler): Subscription {
    if (this.#nc.isClosed() || this.#nc.isDraining()) throw new Error("bus is closed");
    const sub = this.#nc.subscribe(subject, {
      callback: (err, msg) => {
        if (err) return console.error(`serving ${subject} failed:`, err);
        Promise.try(() => handler(msg.json<unknown>()))
          .then((answer) => msg.respond(encoder.encode(JSON.stringify(answer ?? null))))
          .catch((e) => console.error(`request handler for ${subject} failed:`, e));
      },
    });
    const local = this.#servers.serve(subject, handler);
    return {
      unsubscribe: () => {
        local.unsubscribe();
        sub.unsubscribe();
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
  from: { subject: string; partition: number | undefined; own: boolean },
  parse: () => unknown,
): void {
  const { subject, partition, own } = from;
  const tokens = subject.split(".");
  let message: BusMessage | undefined;
  for (const d of deliveries) {
    if (!(own || d.started) || !matches(d.tokens, tokens)) continue;
    // Work done once (issue 43 item 3): a holder's handler takes only held partitions' changes.
    if (!handledHere(d.handledBy, partition)) continue;
    if (!message) {
      try {
        const payload = deepFreeze(parse());
        message = partition === undefined ? { subject, payload } : { subject, payload, partition };
      } catch (e) {
        console.error(`bus message on ${subject} is not JSON:`, e);
        return;
      }
    }
    d.push(message);
  }
}
