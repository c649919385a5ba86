/**
 * The outbound delivery engine against a real local HTTP receiver, a real KV store and the manual
 * clock: signatures, the retry schedule, redirects, the per-attempt URL check, requeue, restart.
 */
import assert from "node:assert/strict";
import {
  ATTEMPT_TIMER,
  type NewOutboundEvent,
  type OutboundEvent,
  outboundEventActor,
  type OutboundEventState,
  type OutboundEventSummary,
} from "../../../actors/platform/outbound_event/mod.ts";
import { subjectOf, subjectPattern } from "../../../src/bus/bus.ts";
import { MemoryBus } from "../../../src/bus/memory_bus.ts";
import { base64url, importDataKey, seal, sealOwner } from "../../../src/domain/secrets.ts";
import { verifyV2, verifyV3 } from "../../../src/domain/signatures.ts";
import { OutboundDelivery } from "../../../src/platform/reactors/deliver.ts";
import type { OutboundRequest, SendFn } from "../../../src/outbound/pinned_post.ts";
import {
  ATTEMPT_LEASE_MS,
  ATTEMPTS_MAX,
  nextAttemptAt,
  OUTBOUND_BODY_BYTES_MAX,
  RETRY_SCHEDULE_MINUTES,
} from "../../../src/platform/rules/delivery_schedule.ts";
import { completionEventBody } from "../../../src/courier/rules/billing_events.ts";
import { REFERENCE_CHARS_MAX, TEXT_CHARS_MAX } from "../../../src/courier/rules/ledger.ts";
import { COMPLETION_ADJUSTMENTS_MAX } from "../../../src/limits.ts";
import type { Resolve } from "../../../src/outbound/url_guard.ts";
import type { Ctx } from "../../../src/runtime/actor.ts";
import { ManualClock } from "../../../src/runtime/clock.ts";
import { KvActorStore } from "../../../src/runtime/kv_store.ts";
import { ActorRuntime } from "../../../src/runtime/runtime.ts";

const MINUTE = 60_000;
const TENANT = "biz_courier";
const SECRET = "whsec_test_secret_for_outbound";
const KEY_ID = "key_1";

interface Harness {
  readonly runtime: ActorRuntime;
  readonly bus: MemoryBus;
  readonly delivery: OutboundDelivery;
  readonly failed: OutboundEventSummary[];
  /** Fires due timers, lets the bus deliver, runs one pump; answers the attempts made. */
  step(): Promise<number>;
  get(id: string): Promise<OutboundEvent>;
  close(): Promise<void>;
}

interface HarnessOptions {
  readonly clock: ManualClock;
  readonly dataKey: CryptoKey;
  readonly path?: string;
  readonly allowLoopback?: boolean;
  readonly send?: SendFn;
  readonly resolve?: Resolve;
}

/** A runtime of outbound events alone, on an in-memory bus and a KV store at `path`. */
async function openRuntime(clock: ManualClock, path = ":memory:", onError?: (e: unknown) => void) {
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

async function openHarness(o: HarnessOptions): Promise<Harness> {
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

interface Hit {
  readonly path: string;
  readonly headers: Headers;
  readonly body: string;
}

/** A real receiver on 127.0.0.1 answering the scripted statuses in turn, then 200. */
function openReceiver(statuses: number[]) {
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

async function newEvent(
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

async function create(h: Harness, event: NewOutboundEvent): Promise<void> {
  const r = await h.runtime.ask(outboundEventActor, TENANT, event.event_id, {
    kind: "create",
    event,
  });
  assert.ok(r.ok);
}

function setup() {
  return {
    clock: new ManualClock(),
    dataKeyP: importDataKey(crypto.getRandomValues(new Uint8Array(32))),
  };
}

Deno.test("retry schedule: attempts at +1, +5, +30, +120, +720 min from the first, then none", () => {
  const t0 = 1_000_000;
  const offsets = [1, 2, 3, 4, 5].map((n) => nextAttemptAt(n, t0, t0));
  assert.deepEqual(offsets, RETRY_SCHEDULE_MINUTES.map((m) => t0 + m * MINUTE));
  assert.equal(nextAttemptAt(6, t0, t0), null);
  assert.equal(ATTEMPTS_MAX, 6);
  assert.throws(() => nextAttemptAt(0, t0, t0), RangeError);
});

Deno.test("outbound event actor: requeue needs a reason and is refused once delivered", () => {
  const ctx: Ctx = { now: 5, newId: (p) => `${p}_x` };
  const sealed = { iv: "iv", data: "data" };
  const event: NewOutboundEvent = {
    event_id: "evt_1",
    stream: "billing",
    event_type: "shipment.booked",
    raw_body: "{}",
    target: { url: "https://example.com/", key_id: KEY_ID, sealed_secret: sealed },
  };
  let state: OutboundEventState = null;
  const created = outboundEventActor.decide(state, { kind: "create", event }, ctx);
  assert.ok(created.ok);
  for (const e of created.events) state = outboundEventActor.evolve(state, e);
  const noReason = outboundEventActor.decide(state, { kind: "requeue", reason: " ", by: "u" }, ctx);
  assert.equal(noReason.ok ? "accepted" : noReason.code, "reason_required");
  const other = outboundEventActor.decide(state, {
    kind: "create",
    event: { ...event, raw_body: '{"x":1}' },
  }, ctx);
  assert.equal(other.ok ? "accepted" : other.code, "exists_with_different_body");
  const done = outboundEventActor.decide(state, {
    kind: "record_attempt",
    attempt_id: "att_1",
    outcome: { result: "delivered", http_status: 200 },
  }, ctx);
  assert.ok(done.ok);
  for (const e of done.events) state = outboundEventActor.evolve(state, e);
  assert.equal(state?.status, "delivered");
  const late = outboundEventActor.decide(state, { kind: "requeue", reason: "again", by: "u" }, ctx);
  assert.equal(late.ok ? "accepted" : late.code, "not_requeueable");
});

Deno.test("outbound delivery: a billing event is delivered first time and verifies with V3", async () => {
  const { clock, dataKeyP } = setup();
  const dataKey = await dataKeyP;
  const receiver = openReceiver([]);
  const h = await openHarness({ clock, dataKey });
  try {
    const event = await newEvent(dataKey, receiver.url);
    await create(h, event);
    assert.equal((await h.get(event.event_id)).status, "pending");
    assert.equal(await h.step(), 1);
    assert.equal(receiver.hits.length, 1);
    const hit = receiver.hits[0]!;
    assert.equal(hit.body, event.raw_body);
    const verdict = await verifyV3({
      secrets: { [KEY_ID]: SECRET },
      rawBody: hit.body,
      headers: hit.headers,
      nowSeconds: Math.floor(clock.now() / 1000),
    });
    assert.deepEqual(verdict, { ok: true });
    assert.equal(hit.headers.get("x-service-event-id"), event.event_id);
    const stored = await h.get(event.event_id);
    assert.equal(stored.status, "delivered");
    assert.equal(stored.attempts.length, 1);
    assert.equal(stored.attempts[0]!.attempt_id, hit.headers.get("x-service-attempt-id"));
    assert.equal(stored.next_attempt_at, null);
    clock.advanceBy(24 * 60 * MINUTE);
    assert.equal(await h.step(), 0, "a delivered event is never attempted again");
  } finally {
    await h.close();
    await receiver.close();
  }
});

Deno.test("outbound delivery: the first attempt is due with the creating commit; its lease re-arms it", async () => {
  const { clock, dataKeyP } = setup();
  const dataKey = await dataKeyP;
  const receiver = openReceiver([]);
  const h = await openHarness({ clock, dataKey });
  try {
    const lost = await newEvent(dataKey, receiver.url);
    await create(h, lost);
    // No timer had to fire: the creating commit said the attempt is due.
    await h.bus.flush();
    assert.equal(h.delivery.dueCount, 1);
    assert.equal(await h.runtime.fireDueTimers(), 0, "no timer is due at creation");
    // Not attempted (as if the process that heard it died): due again one lease later.
    clock.advanceBy(ATTEMPT_LEASE_MS);
    assert.equal(await h.runtime.fireDueTimers(), 1);
    assert.equal(await h.step(), 1);
    assert.equal(receiver.hits.length, 1, "sent once");
    assert.equal((await h.get(lost.event_id)).status, "delivered");
  } finally {
    await h.close();
    await receiver.close();
  }
});

Deno.test("outbound delivery: a client webhook is signed with V2 over the raw body", async () => {
  const { clock, dataKeyP } = setup();
  const dataKey = await dataKeyP;
  const receiver = openReceiver([]);
  const h = await openHarness({ clock, dataKey });
  try {
    const event = await newEvent(dataKey, receiver.url, "client_webhook");
    await create(h, event);
    assert.equal(await h.step(), 1);
    const hit = receiver.hits[0]!;
    const verdict = await verifyV2(
      SECRET,
      hit.body,
      hit.headers.get("x-service-signature-v2"),
      Math.floor(clock.now() / 1000),
    );
    assert.deepEqual(verdict, { ok: true });
    assert.equal(hit.headers.get("x-service-delivery"), event.event_id);
    assert.equal((await h.get(event.event_id)).status, "delivered");
  } finally {
    await h.close();
    await receiver.close();
  }
});

Deno.test("outbound delivery: 500, 500, 200 makes three attempts at +0, +1, +5 min", async () => {
  const { clock, dataKeyP } = setup();
  const dataKey = await dataKeyP;
  const receiver = openReceiver([500, 500]);
  const h = await openHarness({ clock, dataKey });
  try {
    const t0 = clock.now();
    const event = await newEvent(dataKey, receiver.url);
    await create(h, event);
    assert.equal(await h.step(), 1);
    assert.equal((await h.get(event.event_id)).next_attempt_at, t0 + MINUTE);
    clock.advanceBy(MINUTE - 1);
    assert.equal(await h.step(), 0, "not due before +1 min");
    clock.advanceBy(1);
    assert.equal(await h.step(), 1);
    clock.advanceBy(4 * MINUTE - 1);
    assert.equal(await h.step(), 0, "not due before +5 min");
    clock.advanceBy(1);
    assert.equal(await h.step(), 1);
    const stored = await h.get(event.event_id);
    assert.equal(stored.status, "delivered");
    assert.deepEqual(stored.attempts.map((a) => a.at - t0), [0, MINUTE, 5 * MINUTE]);
    assert.deepEqual(
      stored.attempts.map((a) => "http_status" in a.outcome ? a.outcome.http_status : null),
      [500, 500, 200],
    );
    assert.equal(receiver.hits.length, 3);
    const eventIds = new Set(receiver.hits.map((x) => x.headers.get("x-service-event-id")));
    assert.deepEqual([...eventIds], [event.event_id]);
    const attemptIds = receiver.hits.map((x) => x.headers.get("x-service-attempt-id"));
    assert.equal(new Set(attemptIds).size, 3);
    assert.deepEqual(attemptIds, stored.attempts.map((a) => a.attempt_id));
    assert.ok(receiver.hits.every((x) => x.body === event.raw_body));
    assert.equal(h.failed.length, 0);
  } finally {
    await h.close();
    await receiver.close();
  }
});

Deno.test("outbound delivery: the whole schedule failing marks failed once, requeue restarts it", async () => {
  const { clock, dataKeyP } = setup();
  const dataKey = await dataKeyP;
  const receiver = openReceiver([500, 500, 500, 500, 500, 503]);
  const h = await openHarness({ clock, dataKey });
  try {
    const t0 = clock.now();
    const event = await newEvent(dataKey, receiver.url);
    await create(h, event);
    assert.equal(await h.step(), 1);
    for (const minutes of RETRY_SCHEDULE_MINUTES) {
      clock.advanceBy(t0 + minutes * MINUTE - clock.now());
      assert.equal(await h.step(), 1, `attempt at +${minutes} min`);
    }
    const failed = await h.get(event.event_id);
    assert.equal(failed.status, "failed");
    assert.equal(failed.attempts.length, ATTEMPTS_MAX);
    assert.deepEqual(
      failed.attempts.map((a) => (a.at - t0) / MINUTE),
      [0, ...RETRY_SCHEDULE_MINUTES],
    );
    assert.equal(failed.next_attempt_at, null);
    assert.equal(h.failed.length, 1);
    assert.equal(h.failed[0]!.event_id, event.event_id);
    assert.equal(h.failed[0]!.status, "failed");
    clock.advanceBy(7 * 24 * 60 * MINUTE);
    assert.equal(await h.step(), 0, "a failed event is not attempted again by itself");

    const noReason = await h.runtime.ask(outboundEventActor, TENANT, event.event_id, {
      kind: "requeue",
      reason: "",
      by: "usr_ops",
    });
    assert.equal(noReason.ok ? "accepted" : noReason.code, "reason_required");
    const requeued = await h.runtime.ask(outboundEventActor, TENANT, event.event_id, {
      kind: "requeue",
      reason: "billing endpoint fixed",
      by: "usr_ops",
    });
    assert.ok(requeued.ok);
    assert.equal(requeued.reply?.status, "pending");
    assert.equal(requeued.reply?.round_attempts, 0);
    const t1 = clock.now();
    assert.equal(await h.step(), 1, "requeue attempts at once");
    const after = await h.get(event.event_id);
    assert.equal(after.status, "delivered");
    assert.equal(after.attempts.length, ATTEMPTS_MAX + 1);
    assert.equal(after.attempts.at(-1)!.at, t1);
    assert.deepEqual(after.requeues, [{ reason: "billing endpoint fixed", by: "usr_ops", at: t1 }]);
    assert.equal(receiver.hits.length, ATTEMPTS_MAX + 1);
    assert.equal(h.failed.length, 1);
  } finally {
    await h.close();
    await receiver.close();
  }
});

Deno.test("outbound delivery: a requeued event that fails again follows a fresh schedule", async () => {
  const { clock, dataKeyP } = setup();
  const dataKey = await dataKeyP;
  const receiver = openReceiver([500, 500]);
  const h = await openHarness({ clock, dataKey });
  try {
    const event = await newEvent(dataKey, receiver.url);
    await create(h, event);
    assert.equal(await h.step(), 1);
    clock.advanceBy(30 * MINUTE); // past the +1 min retry, which has not run yet
    const requeued = await h.runtime.ask(outboundEventActor, TENANT, event.event_id, {
      kind: "requeue",
      reason: "operator asked",
      by: "usr_ops",
    });
    assert.ok(requeued.ok);
    const t1 = clock.now();
    assert.equal(await h.step(), 1);
    assert.equal((await h.get(event.event_id)).next_attempt_at, t1 + MINUTE);
  } finally {
    await h.close();
    await receiver.close();
  }
});

Deno.test("outbound delivery: a 302 is a failed attempt and the redirect is never followed", async () => {
  const { clock, dataKeyP } = setup();
  const dataKey = await dataKeyP;
  const receiver = openReceiver([302]);
  const h = await openHarness({ clock, dataKey });
  try {
    const event = await newEvent(dataKey, receiver.url);
    await create(h, event);
    assert.equal(await h.step(), 1);
    assert.deepEqual(receiver.hits.map((x) => x.path), ["/hook"]);
    const stored = await h.get(event.event_id);
    assert.equal(stored.status, "pending");
    assert.deepEqual(stored.attempts[0]!.outcome, {
      result: "failed",
      http_status: 302,
      error: null,
    });
    assert.equal(stored.next_attempt_at, stored.attempts[0]!.at + MINUTE);
  } finally {
    await h.close();
    await receiver.close();
  }
});

Deno.test("outbound delivery: a name resolving to a private address is refused at attempt time", async () => {
  const { clock, dataKeyP } = setup();
  const dataKey = await dataKeyP;
  const sent: OutboundRequest[] = [];
  const table: Record<string, string[]> = { "hooks.example.com": ["93.184.215.14"] };
  const h = await openHarness({
    clock,
    dataKey,
    allowLoopback: false,
    resolve: (host) => Promise.resolve(table[host] ?? []),
    send: (request) => {
      sent.push(request);
      return Promise.resolve({ status: 200 });
    },
  });
  try {
    const event = await newEvent(dataKey, "https://hooks.example.com/billing");
    await create(h, event);
    // The name was public when saved; it now points inward (DNS rebinding).
    table["hooks.example.com"] = ["10.0.0.7"];
    assert.equal(await h.step(), 1);
    assert.equal(sent.length, 0, "nothing is sent to a refused target");
    const stored = await h.get(event.event_id);
    const outcome = stored.attempts[0]!.outcome;
    assert.equal(outcome.result, "failed");
    assert.ok(outcome.result === "failed" && outcome.error?.startsWith("url_refused: "));
    assert.ok(!outcome.error?.includes("10.0.0.7"), "the tenant's outbox is not told the address");
    assert.equal(stored.status, "pending");
    // Public again at the next attempt: sent.
    table["hooks.example.com"] = ["93.184.215.14"];
    clock.advanceBy(MINUTE);
    assert.equal(await h.step(), 1);
    assert.equal(sent.length, 1);
    // Sent to the address just checked, not to a name resolved again.
    assert.deepEqual(sent[0]!.addresses, ["93.184.215.14"]);
    assert.equal(sent[0]!.url.hostname, "hooks.example.com");
    assert.equal((await h.get(event.event_id)).status, "delivered");
  } finally {
    await h.close();
  }
});

Deno.test("outbound delivery: a restart resumes pending attempts from KV", async () => {
  const { clock, dataKeyP } = setup();
  const dataKey = await dataKeyP;
  const dir = await Deno.makeTempDir();
  const path = `${dir}/kv.sqlite3`;
  const receiver = openReceiver([500]);
  try {
    const retry = await newEvent(dataKey, receiver.url);
    const lost = await newEvent(dataKey, receiver.url);
    const first = await openHarness({ clock, dataKey, path });
    try {
      await create(first, retry);
      assert.equal(await first.step(), 1); // 500: retry due at +1 min
      await create(first, lost);
      // Its attempt comes due, but the process stops before performing it.
      await first.runtime.fireDueTimers();
      assert.equal(first.delivery.dueCount, 1);
    } finally {
      await first.close();
    }
    const second = await openHarness({ clock, dataKey, path });
    try {
      assert.equal(await second.step(), 0, "nothing is due yet");
      assert.equal((await second.get(lost.event_id)).status, "pending");
      // The retry at +1 min, and the lost attempt once its lease is over.
      clock.advanceBy(Math.max(MINUTE, ATTEMPT_LEASE_MS));
      assert.equal(await second.step(), 2, "both attempts run after the restart");
      assert.equal((await second.get(retry.event_id)).status, "delivered");
      assert.equal((await second.get(retry.event_id)).attempts.length, 2);
      const resumed = await second.get(lost.event_id);
      assert.equal(resumed.status, "delivered");
      assert.equal(resumed.attempts.length, 1);
      assert.equal(receiver.hits.length, 3);
    } finally {
      await second.close();
    }
  } finally {
    await receiver.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("two instances on one bus: both hear the due event, the claim lets one send it", async () => {
  const { clock, dataKeyP } = setup();
  const dataKey = await dataKeyP;
  const receiver = openReceiver([]);
  const h = await openHarness({ clock, dataKey });
  // A second delivery engine on the same runtime and bus, as a second instance would be.
  const errors: unknown[] = [];
  const second = new OutboundDelivery({
    runtime: h.runtime,
    bus: h.bus,
    dataKey,
    clock,
    allowLoopback: true,
    onError: (e) => {
      errors.push(e);
    },
  });
  try {
    const event = await newEvent(dataKey, receiver.url);
    await create(h, event);
    await h.runtime.fireDueTimers();
    // Both pumps run at once, each with the event in its due set.
    const [a, b] = await Promise.all([
      h.delivery.attempt(TENANT, event.event_id),
      second.attempt(TENANT, event.event_id),
    ]);
    assert.equal([a, b].filter(Boolean).length, 1, "exactly one instance attempted");
    assert.equal(receiver.hits.length, 1);
    assert.equal((await h.get(event.event_id)).status, "delivered");
    assert.deepEqual(errors, []);
  } finally {
    await second.close();
    await h.close();
    await receiver.close();
  }
});

/** A billing event for the courier's own endpoint, looked up at each attempt. */
function courierEvent(eventId: string): NewOutboundEvent {
  return {
    event_id: eventId,
    stream: "billing",
    event_type: "shipment.booked",
    raw_body: "{}",
    recipient: { kind: "courier" },
  };
}

Deno.test("outbound event actor: a claim holds the event for one attempt until its lease ends", () => {
  const ctx = (now: number): Ctx => ({ now, newId: (p) => `${p}_x` });
  const event = courierEvent("evt_claim");
  let state: OutboundEventState = null;
  const apply = (d: ReturnType<typeof outboundEventActor.decide>) => {
    assert.ok(d.ok);
    for (const e of d.events) state = outboundEventActor.evolve(state, e);
  };
  apply(outboundEventActor.decide(state, { kind: "create", event }, ctx(0)));
  apply(outboundEventActor.decide(state, { kind: "claim", attempt_id: "att_a" }, ctx(1)));
  const taken = outboundEventActor.decide(state, { kind: "claim", attempt_id: "att_b" }, ctx(2));
  assert.equal(taken.ok ? "accepted" : taken.code, "claimed");
  // The holder dies: after the lease another attempt may take it.
  apply(
    outboundEventActor.decide(
      state,
      { kind: "claim", attempt_id: "att_b" },
      ctx(2 + ATTEMPT_LEASE_MS),
    ),
  );
  apply(outboundEventActor.decide(state, {
    kind: "record_attempt",
    attempt_id: "att_b",
    outcome: { result: "no_endpoint" },
  }, ctx(3 + ATTEMPT_LEASE_MS)));
  const s = state as OutboundEventState;
  assert.ok(s);
  assert.equal(s.status, "pending");
  assert.equal(s.round_attempts, 0);
  assert.equal(s.claim, null);
  assert.equal(s.next_attempt_at, 3 + ATTEMPT_LEASE_MS + 60 * MINUTE);
});

Deno.test("outbound event actor: a missing endpoint is noted once per due attempt, never during a claim", () => {
  const ctx = (now: number): Ctx => ({ now, newId: (p) => `${p}_x` });
  const event = courierEvent("evt_none");
  let state: OutboundEventState = null;
  const decide = (command: Parameters<typeof outboundEventActor.decide>[1], now: number) => {
    const d = outboundEventActor.decide(state, command, ctx(now));
    assert.ok(d.ok);
    for (const e of d.events) state = outboundEventActor.evolve(state, e);
    return d.events.map((e) => e.kind);
  };
  decide({ kind: "create", event }, 0);
  // Two instances heard the attempt due at 0: the first notes it, the second changes nothing.
  assert.deepEqual(decide({ kind: "endpoint_missing", due_at: 0 }, 5), ["endpoint_missing"]);
  assert.deepEqual(decide({ kind: "endpoint_missing", due_at: 0 }, 6), []);
  assert.equal(state!.next_attempt_at, 5 + 60 * MINUTE);
  // The hourly retry is a new due attempt; one under way in a claim is left alone.
  const retry = 5 + 60 * MINUTE;
  decide({ kind: "claim", attempt_id: "att_a" }, retry);
  assert.deepEqual(decide({ kind: "endpoint_missing", due_at: retry }, retry + 1), []);
  assert.deepEqual(
    decide({ kind: "endpoint_missing", due_at: retry }, retry + ATTEMPT_LEASE_MS),
    ["endpoint_missing"],
  );
});

Deno.test("outbound event actor: made with no endpoint known, its first attempt is noted in the same commit", () => {
  const event = courierEvent("evt_none");
  const d = outboundEventActor.decide(null, { kind: "create", event, endpoint_missing: true }, {
    now: 7,
    newId: (p) => `${p}_x`,
  });
  assert.ok(d.ok);
  // No attempt is due: nothing is sent, the schedule is not spent, it waits an hour.
  assert.deepEqual(d.events.map((e) => e.kind), ["created", "endpoint_missing"]);
  assert.deepEqual(d.timers, [{ op: "set", name: ATTEMPT_TIMER, at: 7 + 60 * MINUTE }]);
  let state: OutboundEventState = null;
  for (const e of d.events) state = outboundEventActor.evolve(state, e);
  assert.equal(state!.status, "pending");
  assert.equal(state!.round_attempts, 0);
  assert.equal(state!.endpoint_missing_at, 7);
  assert.equal(state!.next_attempt_at, 7 + 60 * MINUTE);
  // The same event made again, by a second instance or a replayed change, changes nothing.
  const again = outboundEventActor.decide(
    state,
    { kind: "create", event, endpoint_missing: true },
    {
      now: 9,
      newId: (p) => `${p}_x`,
    },
  );
  assert.ok(again.ok);
  assert.deepEqual(again.events, []);
});

Deno.test("two instances, no endpoint: the attempt is noted once, without a claim", async () => {
  const { clock, dataKeyP } = setup();
  const dataKey = await dataKeyP;
  const { store, bus, runtime } = await openRuntime(clock);
  const deliveries = [0, 1].map(() =>
    new OutboundDelivery({
      runtime,
      bus,
      dataKey,
      clock,
      allowLoopback: true,
      targets: () => Promise.resolve(null),
    })
  );
  try {
    const r = await runtime.ask(outboundEventActor, TENANT, "evt_nowhere", {
      kind: "create",
      event: {
        event_id: "evt_nowhere",
        stream: "billing",
        event_type: "shipment.booked",
        raw_body: "{}",
        recipient: { kind: "courier" },
      },
    });
    assert.ok(r.ok);
    await bus.flush();
    await Promise.all(deliveries.map((d) => d.pump()));
    await bus.flush();
    const kinds: string[] = [];
    for await (const e of runtime.events(outboundEventActor, "evt_nowhere")) {
      kinds.push((e.event as { kind: string }).kind);
    }
    assert.deepEqual(kinds, ["created", "attempt_due", "endpoint_missing"]);
  } finally {
    for (const d of deliveries) await d.close();
    await runtime.close();
    await bus.flush();
    store.close();
  }
});

Deno.test("OutboundDelivery: changes of different events are handled side by side, one event's in order", async () => {
  const clock = new ManualClock();
  const { store, bus, runtime } = await openRuntime(clock);
  const entered: string[] = [];
  const gate = Promise.withResolvers<void>();
  const delivery = new OutboundDelivery({
    runtime,
    bus,
    dataKey: await importDataKey(crypto.getRandomValues(new Uint8Array(32))),
    clock,
    allowLoopback: true,
    onEndpointMissing: async (_tenant, event) => {
      entered.push(event.event_id);
      await gate.promise;
    },
  });
  const change = (id: string, version: number) => ({
    env: "test",
    tenant: TENANT,
    type: outboundEventActor.type,
    id,
    version,
    events: [{ seq: version, at: 0, event: { kind: "endpoint_missing" } }],
    snapshot: { event_id: `${id}#${version}`, stream: "billing" },
  });
  try {
    // Not awaited: a handler taken in sequence would hold each publish until the gate opens.
    const published = ([["e1", 1], ["e2", 1], ["e1", 2], ["e3", 1]] as const).map(([id, version]) =>
      bus.publish(subjectOf("test", TENANT, outboundEventActor.type, id), change(id, version))
    );
    for (let turn = 0; turn < 50 && entered.length < 3; turn++) {
      await new Promise((r) => setTimeout(r, 0));
    }
    // Taken one at a time, the first alert's wait would have kept the other events out.
    assert.deepEqual(entered, ["e1#1", "e2#1", "e3#1"], "e1's second change waits for its first");
    gate.resolve();
    await Promise.all(published);
    await bus.flush();
    assert.deepEqual(entered, ["e1#1", "e2#1", "e3#1", "e1#2"]);
  } finally {
    gate.resolve();
    await delivery.close();
    await runtime.close();
    await bus.drain();
    store.close();
  }
});

Deno.test("OutboundDelivery: an alert hook that fails once is called again within the delivery", async () => {
  const clock = new ManualClock();
  const { store, bus, runtime } = await openRuntime(clock);
  const calls: string[] = [];
  const errors: unknown[] = [];
  const delivery = new OutboundDelivery({
    runtime,
    bus,
    dataKey: await importDataKey(crypto.getRandomValues(new Uint8Array(32))),
    clock,
    allowLoopback: true,
    // spec: courier 6.3: the alert of a failed event is raised, never lost to a moment's failure.
    onFailed: (_tenant, event) => {
      calls.push(event.event_id);
      if (calls.length === 1) throw new Error("alert store unreachable");
    },
    onError: (e) => errors.push(e),
    retry: { delaysMs: [0, 0] }, // no real waiting: the test drives the bus
  });
  try {
    await bus.publish(subjectOf("test", TENANT, outboundEventActor.type, "e1"), {
      env: "test",
      tenant: TENANT,
      type: outboundEventActor.type,
      id: "e1",
      version: 9,
      events: [{ seq: 9, at: 0, event: { kind: "event_failed", at: 0 } }],
      snapshot: { event_id: "e1", stream: "billing" },
    });
    await bus.flush();
    assert.deepEqual(calls, ["e1", "e1"], "called again before the flush is over");
    assert.deepEqual(errors, []);
  } finally {
    await delivery.close();
    await runtime.close();
    await bus.drain();
    store.close();
  }
});

/**
 * A completion body (courier 2.7) with every adjustment a completion lists, each text at its
 * bound in the character `ch`.
 */
function largestCompletion(eventId: string, ch: string): string {
  const at = Date.UTC(2026, 10, 20);
  return completionEventBody({
    eventId,
    eventType: "shipment.delivered",
    occurredAt: at,
    client: { id: "cli_1", code: "MOLAPO", name: "Molapo Pharmacy" },
    shipment: {
      waybill: "WB1000000001",
      external_customer_code: null,
      external_billing_reference: null,
      booked_at: at,
      service: "express",
      total_minor: 8_892,
      tax_minor: 1_092,
      currency: "BWP",
      lines: [{ code: "transport", label: "Transport", amount_minor: 7_800 }],
      status: "delivered",
      delivered_at: at,
      pod: true,
    },
    adjustments: Array.from({ length: COMPLETION_ADJUSTMENTS_MAX }, (_, i) => ({
      reference: `${i}`.padEnd(REFERENCE_CHARS_MAX, ch),
      kind: "failed_collection",
      amount: "-9999999999999.99",
      currency: "BWP",
      reason: ch.repeat(TEXT_CHARS_MAX),
      recoverable: false,
      correction: `${i}`.padEnd(REFERENCE_CHARS_MAX, ch),
      status: "unresolved_fx",
    })),
  });
}

Deno.test("outbound delivery: a completion body at its bound is stored, kept over a restart and sent byte for byte, signed", async () => {
  const { clock, dataKeyP } = setup();
  const dataKey = await dataKeyP;
  const dir = await Deno.makeTempDir();
  const path = `${dir}/kv.sqlite3`;
  const receiver = openReceiver([500]);
  try {
    // The longest UTF-8 (3 bytes a character), and the longest stored form (`"`, escaped twice).
    const events = await Promise.all(["€", '"'].map(async (ch) => {
      const event = await newEvent(dataKey, receiver.url);
      return { ...event, raw_body: largestCompletion(event.event_id, ch) };
    }));
    const sizes = events.map((e) => new TextEncoder().encode(e.raw_body).length);
    assert.ok(sizes.every((n) => n <= OUTBOUND_BODY_BYTES_MAX), `${sizes} within the bound`);
    assert.ok(sizes[0]! > OUTBOUND_BODY_BYTES_MAX * 0.9, `${sizes[0]}: the bound is not loose`);
    const first = await openHarness({ clock, dataKey, path });
    const published: string[] = [];
    first.bus.subscribe(subjectPattern("test", TENANT, outboundEventActor.type), (m) => {
      published.push(JSON.stringify(m.payload));
    });
    try {
      for (const event of events) await create(first, event);
      assert.equal(await first.step(), 2); // the first is answered 500: tried again later
      await first.bus.flush();
      // The body is held by the event, not sent over the bus (NATS carries at most 1 MB).
      assert.ok(published.length > 0);
      assert.ok(published.every((p) => p.length < 10_000), "no body on the bus");
    } finally {
      await first.close();
    }
    const second = await openHarness({ clock, dataKey, path });
    try {
      for (const event of events) {
        assert.equal((await second.get(event.event_id)).raw_body, event.raw_body, "read back");
      }
      clock.advanceBy(MINUTE);
      assert.equal(await second.step(), 1);
      for (const event of events) {
        const hits = receiver.hits.filter((h) =>
          h.headers.get("x-service-event-id") === event.event_id
        );
        assert.equal(hits.at(-1)!.body, event.raw_body, "the stored bytes");
        const verdict = await verifyV3({
          secrets: { [KEY_ID]: SECRET },
          rawBody: hits.at(-1)!.body,
          headers: hits.at(-1)!.headers,
          nowSeconds: Math.floor(clock.now() / 1000),
        });
        assert.deepEqual(verdict, { ok: true });
        assert.equal((await second.get(event.event_id)).status, "delivered");
      }
      assert.equal(receiver.hits.length, 3);
    } finally {
      await second.close();
    }
  } finally {
    await receiver.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("outbound event actor: the creation logged and put on the bus carries neither the body nor the sealed secret", async () => {
  const { clock, dataKeyP } = setup();
  const dataKey = await dataKeyP;
  const receiver = openReceiver([]);
  const h = await openHarness({ clock, dataKey });
  const published: string[] = [];
  const subscription = h.bus.subscribe(
    subjectPattern(h.runtime.busPrefix, "*", outboundEventActor.type),
    (message) => {
      published.push(JSON.stringify(message.payload));
    },
  );
  try {
    const event = await newEvent(dataKey, receiver.url);
    await create(h, event);
    await h.bus.flush();
    const logged: string[] = [];
    for await (const { event: e } of h.runtime.events(outboundEventActor, event.event_id)) {
      logged.push(JSON.stringify(e));
    }
    const created = logged.filter((e) => e.includes('"kind":"created"'));
    assert.equal(created.length, 1);
    assert.equal(published.length, 1);
    const sealed = event.target!.sealed_secret;
    for (const text of [...created, ...published]) {
      assert.ok(text.includes(event.target!.url), "the target's address is kept");
      assert.ok(!text.includes('"raw_body"'), "the body is held in the state only");
      assert.ok(!text.includes(sealed.data) && !text.includes("sealed_secret"), text);
    }
    // The state still holds both: the attempt sends the body, signed with the secret.
    assert.equal(await h.step(), 1);
    assert.equal(receiver.hits[0]?.body, event.raw_body);
  } finally {
    subscription.unsubscribe();
    await h.close();
    await receiver.close();
  }
});

Deno.test("outbound delivery: a seal moved from another owner is not signed with; an unbound seal from before still is", async () => {
  const { clock } = setup();
  const raw = crypto.getRandomValues(new Uint8Array(32));
  const dataKey = await importDataKey(raw);
  const receiver = openReceiver([]);
  const h = await openHarness({ clock, dataKey });
  try {
    // Another tenant's seal, copied into this tenant's event.
    const moved = await newEvent(dataKey, receiver.url);
    const theirs = await seal(dataKey, SECRET, sealOwner("outbound_target", "biz_other", "e1"));
    await create(h, { ...moved, target: { ...moved.target!, sealed_secret: theirs } });
    assert.equal(await h.step(), 1);
    assert.equal(receiver.hits.length, 0, "nothing is sent unsigned or signed wrongly");
    const outcome = (await h.get(moved.event_id)).attempts[0]!.outcome;
    const error = outcome.result === "failed" ? outcome.error ?? "" : "";
    assert.ok(error.startsWith("signing_failed: "), error);
    assert.ok(!error.includes("biz_other"), error);

    // An event stored by a version that sealed without an owner (no `v`, no additional data).
    const key = await crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt"]);
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const data = new Uint8Array(
      await crypto.subtle.encrypt({ name: "AES-GCM", iv }, key, new TextEncoder().encode(SECRET)),
    );
    const old = await newEvent(dataKey, receiver.url);
    const unbound = { iv: base64url(iv), data: base64url(data) };
    await create(h, { ...old, target: { ...old.target!, sealed_secret: unbound } });
    assert.equal(await h.step(), 1);
    assert.equal(receiver.hits.length, 1);
    assert.deepEqual(
      await verifyV3({
        secrets: { [KEY_ID]: SECRET },
        rawBody: receiver.hits[0]!.body,
        headers: receiver.hits[0]!.headers,
        nowSeconds: Math.floor(clock.now() / 1000),
      }),
      { ok: true },
    );
    assert.equal((await h.get(old.event_id)).status, "delivered");
  } finally {
    await h.close();
    await receiver.close();
  }
});
