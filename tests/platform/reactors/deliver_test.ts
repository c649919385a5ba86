/**
 * The outbound delivery engine's schedule against a real local HTTP receiver, a real KV store and
 * the manual clock: the retry schedule, the first attempt due with its commit, failed attempts
 * retried on time, the whole schedule failing once, and requeue (deliver_fixtures.ts).
 */
import assert from "node:assert/strict";
import {
  type NewOutboundEvent,
  outboundEventActor,
  type OutboundEventState,
} from "../../../actors/platform/outbound_event/mod.ts";
import {
  ATTEMPT_LEASE_MS,
  ATTEMPTS_MAX,
  nextAttemptAt,
  RETRY_SCHEDULE_MINUTES,
} from "../../../src/platform/rules/delivery_schedule.ts";
import type { Ctx } from "../../../src/runtime/actor.ts";
import {
  create,
  KEY_ID,
  MINUTE,
  newEvent,
  openHarness,
  openReceiver,
  setup,
  TENANT,
} from "./deliver_fixtures.ts";

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
