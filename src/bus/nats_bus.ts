/** The NATS bus, used when NATS_URL is set. Payloads travel as UTF-8 JSON. */
import { connect } from "@nats-io/transport-node";
import type { NatsConnection, Subscription as NatsSubscription } from "@nats-io/transport-node";
import type { Bus, BusHandler, Subscription } from "./bus.ts";

const encoder = new TextEncoder();

export class NatsBus implements Bus {
  #nc: NatsConnection;
  /** One delivery loop per subscription; drain waits for them to finish. */
  #loops = new Set<Promise<void>>();
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
    const loop = deliver(sub, handler).finally(() => this.#loops.delete(loop));
    this.#loops.add(loop);
    return { unsubscribe: () => sub.unsubscribe() };
  }

  flush(): Promise<void> {
    return this.#nc.flush();
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
async function deliver(sub: NatsSubscription, handler: BusHandler): Promise<void> {
  try {
    for await (const msg of sub) {
      try {
        await handler({ subject: msg.subject, payload: msg.json<unknown>() });
      } catch (e) {
        console.error(`bus handler for ${msg.subject} failed:`, e);
      }
    }
  } catch (e) {
    console.error(`bus subscription to ${sub.getSubject()} ended:`, e);
  }
}
