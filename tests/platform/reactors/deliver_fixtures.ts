/**
 * What the outbound delivery tests share: a runtime of outbound events on an in-memory bus and a
 * KV store, the delivery engine over it on the manual clock, a real local HTTP receiver, and
 * events sealed for it.
 */
import assert from "node:assert/strict";
import {
  type NewOutboundEvent,
  type OutboundEvent,
  outboundEventActor,
  type OutboundEventSummary,
} from "../../../actors/platform/outbound_event/mod.ts";
import { MemoryBus } from "../../../src/bus/memory_bus.ts";
import { importDataKey, seal, sealOwner } from "../../../src/domain/secrets.ts";
import { OutboundDelivery } from "../../../src/platform/reactors/deliver.ts";
import type { SendFn } from "../../../src/outbound/pinned_post.ts";
import type { Resolve } from "../../../src/outbound/url_guard.ts";
import { ManualClock } from "../../../src/runtime/clock.ts";
import { KvActorStore } from "../../../src/runtime/kv_store.ts";
import { ActorRuntime } from "../../../src/runtime/runtime.ts";

/** A minute, in milliseconds. */
export const MINUTE = 60_000;
/** The tenant every event belongs to. */
export const TENANT = "biz_courier";
/** The signing secret each event's target is sealed with. */
export const SECRET = "whsec_test_secret_for_outbound";
/** The id of that secret. */
export const KEY_ID = "key_1";

/** The engine under test, its runtime and bus, and the events it gave up on. */
export interface Harness {
  readonly runtime: ActorRuntime;
  readonly bus: MemoryBus;
  readonly delivery: OutboundDelivery;
  readonly failed: OutboundEventSummary[];
  /** Fires due timers, lets the bus deliver, runs one pump; answers the attempts made. */
  step(): Promise<number>;
  get(id: string): Promise<OutboundEvent>;
  close(): Promise<void>;
}

/** The clock and data key of a harness, its KV path, and how it sends and resolves. */
export interface HarnessOptions {
  readonly clock: ManualClock;
  readonly dataKey: CryptoKey;
  readonly path?: string;
  readonly allowLoopback?: boolean;
  readonly send?: SendFn;
  readonly resolve?: Resolve;
}

/** A runtime of outbound events alone, on an in-memory bus and a KV store at `path`. */
export async function openRuntime(
  clock: ManualClock,
  path = ":memory:",
  onError?: (e: unknown) => void,
) {
  const store = await KvActorStore.open(path);
  const bus = new MemoryBus();
  const runtime = new ActorRuntime({
    env: "test",
    store,
    bus,
    clock,
    definitions: [outboundEventActor],
    ...(onError ? { onError } : {}),
  });
  await runtime.start();
  return { store, bus, runtime };
}

/** A runtime and the delivery engine over it; close() asserts neither reported an error. */
export async function openHarness(o: HarnessOptions): Promise<Harness> {
  const errors: unknown[] = [];
  const { store, bus, runtime } = await openRuntime(o.clock, o.path, (e) => {
    errors.push(e);
  });
  const failed: OutboundEventSummary[] = [];
  const delivery = new OutboundDelivery({
    runtime,
    bus,
    dataKey: o.dataKey,
    clock: o.clock,
    allowLoopback: o.allowLoopback ?? true,
    ...(o.send ? { send: o.send } : {}),
    ...(o.resolve ? { resolve: o.resolve } : {}),
    onFailed: (_tenant, event) => {
      failed.push(event);
    },
    onError: (e) => {
      errors.push(e);
    },
  });
  return {
    runtime,
    bus,
    delivery,
    failed,
    async step() {
      await runtime.fireDueTimers();
      await bus.flush();
      const attempted = await delivery.pump();
      await bus.flush();
      return attempted;
    },
    async get(id) {
      const r = await runtime.ask(outboundEventActor, TENANT, id, { kind: "get" });
      assert.ok(r.ok, `get ${id}`);
      assert.ok(r.reply);
      return r.reply;
    },
    async close() {
      await delivery.close();
      await runtime.close();
      await bus.drain();
      store.close();
      assert.deepEqual(errors, [], "no runtime or delivery errors");
    },
  };
}

/** One request the receiver took. */
export interface Hit {
  readonly path: string;
  readonly headers: Headers;
  readonly body: string;
}

/** A real receiver on 127.0.0.1 answering the scripted statuses in turn, then 200. */
export function openReceiver(statuses: number[]) {
  const hits: Hit[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (req): Promise<Response> => {
      const body = await req.text();
      hits.push({ path: new URL(req.url).pathname, headers: req.headers, body });
      const status = statuses.shift() ?? 200;
      if (status >= 300 && status < 400) {
        return new Response(null, { status, headers: { location: `${base}/elsewhere` } });
      }
      return new Response("ok", { status });
    },
  );
  const base: string = `http://127.0.0.1:${server.addr.port}`;
  return { hits, url: `${base}/hook`, close: () => server.shutdown() };
}

/** An event for `url` on `stream`, its body with odd spacing, its secret sealed for its target. */
export async function newEvent(
  dataKey: CryptoKey,
  url: string,
  stream: NewOutboundEvent["stream"] = "billing",
): Promise<NewOutboundEvent> {
  const eventId = `evt_${crypto.randomUUID()}`;
  // Odd spacing on purpose: the exact bytes are signed and sent, never re-serialized.
  const raw = `{"api_version":"v1",  "event_id":"${eventId}", "event_type":"shipment.booked"}`;
  return {
    event_id: eventId,
    stream,
    event_type: "shipment.booked",
    raw_body: raw,
    target: {
      url,
      key_id: KEY_ID,
      sealed_secret: await seal(dataKey, SECRET, sealOwner("outbound_target", TENANT, eventId)),
    },
  };
}

/** Creates the event through its actor. */
export async function create(h: Harness, event: NewOutboundEvent): Promise<void> {
  const r = await h.runtime.ask(outboundEventActor, TENANT, event.event_id, {
    kind: "create",
    event,
  });
  assert.ok(r.ok);
}

/** A manual clock and a fresh data key. */
export function setup() {
  return {
    clock: new ManualClock(),
    dataKeyP: importDataKey(crypto.getRandomValues(new Uint8Array(32))),
  };
}
