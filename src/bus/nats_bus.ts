/** The NATS bus, used when NATS_URL is set. Payloads travel as UTF-8 JSON. */
import { connect } from "@nats-io/transport-node";
import type { NatsConnection, Subscription as NatsSubscription } from "@nats-io/transport-node";
import type { Bus, BusHandler, Subscription } from "./bus.ts";

const encoder = new TextEncoder();

/** One subscription of this instance and how far its handler got. */
class Delivery {
  handled = 0;
  #waiters: { upTo: number; resolve: () => void }[] = [];
  constructor(readonly sub: NatsSubscription) {}

  done(): void {
    this.handled++;
    this.#waiters = this.#waiters.filter((w) => {
      if (this.handled < w.upTo) return true;
      w.resolve();
      return false;
    });
  }

  /** Resolves once the handler has finished `upTo` messages (or the subscription ended). */
  until(upTo: number): Promise<void> {
    if (this.handled >= upTo || this.sub.isClosed()) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ upTo, resolve }));
  }

  ended(): void {
    for (const w of this.#waiters) w.resolve();
    this.#waiters = [];
  }
}

export class NatsBus implements Bus {
  #nc: NatsConnection;
  /** One delivery loop per subscription; drain waits for them to finish. */
  #loops = new Set<Promise<void>>();
  #deliveries = new Set<Delivery>();
  #drained: Promise<void> | undefined;

  constructor(nc: NatsConnection) {
    this.#nc = nc;
  }

  /** `servers` is one URL or a comma-separated list, as in NATS_URL. */
  static async connect(servers: string): Promise<NatsBus> {
    return new NatsBus(await connect({ servers: servers.split(",").map((s) => s.trim()) }));
  }

  publish(subject: string, payload: unknown): Promise<void> {
    // Promise.try turns a synchronous refusal (closed connection, bad subject) into a rejection.
    return Promise.try(() => this.#nc.publish(subject, encoder.encode(JSON.stringify(payload))));
  }

  subscribe(pattern: string, handler: BusHandler): Subscription {
    const sub = this.#nc.subscribe(pattern);
    const delivery = new Delivery(sub);
    this.#deliveries.add(delivery);
    const loop = deliver(delivery, handler).finally(() => {
      this.#loops.delete(loop);
      this.#deliveries.delete(delivery);
      delivery.ended();
    });
    this.#loops.add(loop);
    return {
      unsubscribe: () => {
        sub.unsubscribe();
        delivery.ended();
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
    // connection's subscriptions: what they have received now covers all we published.
    await this.#nc.flush();
    await Promise.all([...this.#deliveries].map((d) => d.until(d.sub.getReceived())));
  }

  drain(): Promise<void> {
    this.#drained ??= this.#drain();
    return this.#drained;
  }

  async #drain(): Promise<void> {
    if (!this.#nc.isClosed()) await this.#nc.drain();
    // The connection has closed; let each loop finish the messages it already holds.
    await Promise.all(this.#loops);
  }
}

/** Runs the handler for each message in turn; a failing handler is logged, never fatal. */
async function deliver(delivery: Delivery, handler: BusHandler): Promise<void> {
  const sub = delivery.sub;
  try {
    for await (const msg of sub) {
      try {
        await handler({ subject: msg.subject, payload: msg.json<unknown>() });
      } catch (e) {
        console.error(`bus handler for ${msg.subject} failed:`, e);
      } finally {
        delivery.done();
      }
    }
  } catch (e) {
    console.error(`bus subscription to ${sub.getSubject()} ended:`, e);
  }
}
