/**
 * A webhook receiver on loopback, as an integrator would run one: it keeps every delivery with its
 * raw body and headers, answers the first `failFirst` attempts of each event with a 500, and
 * applies an event's effect once however often it arrives (dedupe on the event id, never on the
 * attempt id).
 */
import { outboundEventActor } from "../../actors/platform/outbound_event/mod.ts";
import type { TestEnv } from "./test_env.ts";

export interface Delivery {
  readonly path: string;
  readonly body: string;
  readonly headers: Headers;
  readonly status: number;
}

export interface Receiver {
  readonly url: string;
  readonly deliveries: Delivery[];
  /** Event ids whose effect was applied (once each, by dedupe on the event id). */
  readonly effects: Map<string, number>;
  /** Answers the first N attempts of each event with a 500 (changeable between steps). */
  failFirst: number;
  close(): Promise<void>;
}

export function startReceiver(
  eventIdOf: (headers: Headers, body: string) => string | null = (h) =>
    h.get("X-Service-Event-Id") ?? h.get("X-Service-Delivery"),
): Receiver {
  const seen = new Map<string, number>();
  const receiver: Receiver = {
    url: "",
    deliveries: [],
    effects: new Map(),
    failFirst: 0,
    close: async () => await server.shutdown(),
  };
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, async (req) => {
    const body = await req.text();
    const id = eventIdOf(req.headers, body) ?? "";
    const attempts = (seen.get(id) ?? 0) + 1;
    seen.set(id, attempts);
    const status = attempts <= receiver.failFirst ? 500 : 200;
    receiver.deliveries.push({
      path: new URL(req.url).pathname,
      body,
      headers: req.headers,
      status,
    });
    // The effect is applied once per event id; a repeat is acknowledged and ignored.
    if (status === 200 && !receiver.effects.has(id)) receiver.effects.set(id, 1);
    return new Response(status === 200 ? "ok" : "try later", { status });
  });
  (receiver as { url: string }).url = `http://127.0.0.1:${server.addr.port}`;
  return receiver;
}

/** How long a test waits for asynchronous work (the bus, the pump) before it gives up. */
const WAIT_MS_MAX = 15_000;

/**
 * Waits until `done()` holds, firing what is due at the current manual time and pumping due
 * deliveries meanwhile. Time-based behaviour is driven by the manual clock; this only waits for
 * messages in flight (on NATS they cross the network).
 */
export async function until(
  t: TestEnv,
  done: () => boolean | Promise<boolean>,
  what: string,
): Promise<void> {
  const deadline = Date.now() + WAIT_MS_MAX;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    // Work made since the last clock move (an event created from a bus message) is due at the
    // current manual time: fire it, without moving the clock.
    await t.env.runtime.fireDueTimers();
    await t.env.pump();
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Moves the manual clock; due timers fire and due deliveries are attempted. */
export async function advance(t: TestEnv, seconds: number): Promise<void> {
  const r = await t.call("POST", "/operator/clock/advance", { operator: true, body: { seconds } });
  if (r.status !== 200) throw new Error(`clock advance: ${r.status} ${JSON.stringify(r.body)}`);
}

/**
 * Waits until the outbound event has `n` attempts recorded: a receiver sees an attempt before the
 * engine records it, and the next retry is scheduled from the record, so a test that moves the
 * clock waits for this, not for the receiver.
 */
export async function untilRecorded(
  t: TestEnv,
  tenant: string,
  eventId: string,
  n: number,
): Promise<void> {
  await until(t, async () => {
    const got = await t.env.runtime.ask(outboundEventActor, tenant, eventId, { kind: "get" });
    return got.ok && (got.reply?.attempts_total ?? 0) >= n;
  }, `attempt ${n} of ${eventId} recorded`);
}
