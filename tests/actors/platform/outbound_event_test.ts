/**
 * One outbound event (actors/platform/outbound_event/mod.ts; courier 3.1 "event delivery", 6.1, 6.2,
 * 8): created once with its body fixed, tried at once and then after 1, 5, 30, 120 and 720
 * minutes counted from the first try, failed after that; retried hourly while no endpoint is set;
 * requeued from the first attempt; acknowledged forward only, one reference per state.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  ATTEMPT_TIMER,
  type AttemptOutcome,
  type NewOutboundEvent,
  outboundEventActor,
  type OutboundEventEvent,
  requeuesTotal,
  summaryOf,
  waitedForEndpoint,
} from "../../../actors/platform/outbound_event/mod.ts";
import {
  ATTEMPT_ERROR_CHARS_MAX,
  ATTEMPT_HISTORY_MAX,
  ATTEMPT_LEASE_MS,
  ATTEMPTS_MAX,
  NO_ENDPOINT_RETRY_MS,
  OUTBOUND_BODY_BYTES_MAX,
  REQUEUE_REASON_CHARS_MAX,
  REQUEUES_MAX,
  RETRY_SCHEDULE_MINUTES,
} from "../../../src/platform/rules/delivery_schedule.ts";
import { ActorHarness, kinds } from "../../helpers/actor.ts";

const T0 = Date.parse("2026-11-02T08:00:00Z");
const MINUTE = 60_000;

const EVENT: NewOutboundEvent = {
  event_id: "evt_1",
  stream: "billing",
  event_type: "shipment.booked",
  raw_body: JSON.stringify({ api_version: "v1", event_id: "evt_1", amount: 65.5 }),
  recipient: { kind: "courier" },
  entry: { client_id: "cli_1", reference: "WB1", kind: "shipment" },
  client_id: "cli_1",
};
const FAILED = { result: "failed", http_status: 503, error: "unavailable" } as const;
const DELIVERED = { result: "delivered", http_status: 200 } as const;

function created(event: NewOutboundEvent = EVENT) {
  const h = new ActorHarness(outboundEventActor, { now: T0 });
  h.must({ kind: "create", event });
  return h;
}

type Harness = ReturnType<typeof created>;

/** One attempt: claimed, then reported with `outcome`. */
function attempt(h: Harness, id: string, outcome: AttemptOutcome) {
  h.must({ kind: "claim", attempt_id: id });
  return h.must({ kind: "record_attempt", attempt_id: id, outcome });
}

Deno.test("outbound event: create fixes the body and makes the first attempt due at once", () => {
  const h = new ActorHarness(outboundEventActor, { now: T0 });
  const step = h.must({ kind: "create", event: EVENT });
  assert.deepEqual(step.events, [
    { kind: "created", event: EVENT, at: T0 },
    { kind: "attempt_due", at: T0 },
  ]);
  // The timer is one lease later, so an attempt lost with its process is due again.
  assert.deepEqual(step.timers, [{ op: "set", name: ATTEMPT_TIMER, at: T0 + ATTEMPT_LEASE_MS }]);
  const s = h.state!;
  assert.equal(s.status, "pending");
  assert.equal(s.raw_body, EVENT.raw_body);
  assert.equal(s.next_attempt_at, T0);
  assert.deepEqual([s.attempts, s.attempts_total, s.round_attempts], [[], 0, 0]);
  assert.equal(step.reply, s);
  assert.deepEqual(h.replayed(), s);
});

Deno.test("outbound event: the same event again is a no-op; another body under its id is refused", () => {
  const h = created();
  assert.deepEqual(h.must({ kind: "create", event: EVENT }).events, []);
  h.refused(
    { kind: "create", event: { ...EVENT, raw_body: "{}" } },
    "exists_with_different_body",
    "event exists: evt_1",
  );
  h.refused(
    { kind: "create", event: { ...EVENT, event_type: "shipment.cancelled" } },
    "exists_with_different_body",
  );
});

Deno.test("outbound event: a body over the bound and an event without id, type or one recipient are refused", () => {
  const h = new ActorHarness(outboundEventActor, { now: T0 });
  const big = "x".repeat(OUTBOUND_BODY_BYTES_MAX + 1);
  h.refused(
    { kind: "create", event: { ...EVENT, raw_body: big } },
    "body_too_large",
    `event body too large: ${OUTBOUND_BODY_BYTES_MAX + 1} bytes, max ${OUTBOUND_BODY_BYTES_MAX}`,
  );
  // Counted in UTF-8 bytes, not characters.
  const wide = "é".repeat(Math.floor(OUTBOUND_BODY_BYTES_MAX / 2) + 1);
  h.refused({ kind: "create", event: { ...EVENT, raw_body: wide } }, "body_too_large");
  h.must({ kind: "create", event: { ...EVENT, raw_body: "x".repeat(OUTBOUND_BODY_BYTES_MAX) } });

  const fresh = () => new ActorHarness(outboundEventActor, { now: T0 });
  const required = "event id and event type are required";
  fresh().refused({ kind: "create", event: { ...EVENT, event_id: "" } }, "invalid_event", required);
  fresh().refused(
    { kind: "create", event: { ...EVENT, event_type: "" } },
    "invalid_event",
    required,
  );
  const { recipient: _, ...neither } = EVENT;
  const one = "an event has either a target or a recipient";
  fresh().refused({ kind: "create", event: neither }, "invalid_event", one);
  const target = { url: "https://acc.example/hook", key_id: "whk_1", sealed_secret: SEALED };
  fresh().refused({ kind: "create", event: { ...EVENT, target } }, "invalid_event", one);
  fresh().must({ kind: "create", event: { ...neither, target } });
});

const SEALED = { iv: "aXYtc2VhbGVk", data: "c2VhbGVkLXNlY3JldA" };

Deno.test("outbound event: created with no endpoint known, it waits an hour without spending the schedule", () => {
  const h = new ActorHarness(outboundEventActor, { now: T0 });
  const step = h.must({ kind: "create", event: EVENT, endpoint_missing: true });
  assert.deepEqual(step.events, [
    { kind: "created", event: EVENT, at: T0 },
    { kind: "endpoint_missing", at: T0, retry_at: T0 + NO_ENDPOINT_RETRY_MS },
  ]);
  assert.deepEqual(step.timers, [{
    op: "set",
    name: ATTEMPT_TIMER,
    at: T0 + NO_ENDPOINT_RETRY_MS,
  }]);
  assert.equal(h.state!.round_attempts, 0);
  assert.equal(h.state!.endpoint_missing_at, T0);
  assert.equal(h.state!.next_attempt_at, T0 + NO_ENDPOINT_RETRY_MS);
});

Deno.test("outbound event: the attempt timer makes an attempt due and re-arms one lease later", () => {
  const h = created();
  h.now = T0 + ATTEMPT_LEASE_MS;
  const due = h.fire(ATTEMPT_TIMER);
  assert.deepEqual(due.events, [{ kind: "attempt_due", at: h.now }]);
  assert.deepEqual(due.timers, [{ op: "set", name: ATTEMPT_TIMER, at: h.now + ATTEMPT_LEASE_MS }]);
  assert.deepEqual(h.fire("something_else").events, [], "an unknown timer does nothing");
  attempt(h, "att_1", DELIVERED);
  const stale = h.fire(ATTEMPT_TIMER);
  assert.deepEqual([stale.events, stale.timers], [[], []], "a settled event's timer does nothing");
});

Deno.test("outbound event: one attempt holds the event for a lease; another is refused until it runs out", () => {
  const h = created();
  const claimed = h.must({ kind: "claim", attempt_id: "att_1" });
  assert.deepEqual(claimed.events, [{
    kind: "attempt_claimed",
    attempt_id: "att_1",
    until: T0 + ATTEMPT_LEASE_MS,
  }]);
  assert.deepEqual(claimed.timers, [{
    op: "set",
    name: ATTEMPT_TIMER,
    at: T0 + ATTEMPT_LEASE_MS,
  }]);
  h.refused(
    { kind: "claim", attempt_id: "att_2" },
    "claimed",
    `another attempt holds the event until ${T0 + ATTEMPT_LEASE_MS}`,
  );
  h.must({ kind: "claim", attempt_id: "att_1" }); // the holder again: its lease renewed
  h.now = T0 + ATTEMPT_LEASE_MS;
  h.must({ kind: "claim", attempt_id: "att_2" });
  assert.equal(h.state!.claim?.attempt_id, "att_2");
  new ActorHarness(outboundEventActor).refused(
    { kind: "claim", attempt_id: "att_1" },
    "not_found",
    "outbound event not found",
  );
});

Deno.test("outbound event: a delivered attempt settles it and cancels the timer; a repeated report is a no-op", () => {
  const h = created();
  h.now = T0 + 2_000;
  const step = attempt(h, "att_1", DELIVERED);
  assert.deepEqual(step.events, [
    { kind: "attempt_recorded", attempt: { attempt_id: "att_1", at: h.now, outcome: DELIVERED } },
    { kind: "event_delivered", at: h.now },
  ]);
  assert.deepEqual(step.timers, [{ op: "cancel", name: ATTEMPT_TIMER }]);
  const s = h.state!;
  assert.deepEqual([s.status, s.next_attempt_at, s.claim], ["delivered", null, null]);
  assert.equal(s.attempts_total, 1);
  const again = h.must({ kind: "record_attempt", attempt_id: "att_1", outcome: DELIVERED });
  assert.deepEqual(again.events, []);
  h.refused(
    { kind: "record_attempt", attempt_id: "att_2", outcome: FAILED },
    "not_pending",
    "event is not pending: delivered",
  );
  h.refused(
    { kind: "claim", attempt_id: "att_3" },
    "not_pending",
    "event is not pending: delivered",
  );
});

Deno.test("outbound event: failures retry at +1, +5, +30, +120, +720 minutes from the first try, then fail", () => {
  const h = created();
  const first = T0 + 3_000;
  const dueAt: number[] = [];
  for (let n = 1; n <= ATTEMPTS_MAX; n++) {
    h.now = n === 1 ? first : dueAt.at(-1)! + 500;
    const step = attempt(h, `att_${n}`, FAILED);
    if (n < ATTEMPTS_MAX) {
      const at = first + RETRY_SCHEDULE_MINUTES[n - 1]! * MINUTE;
      assert.deepEqual(step.events.at(-1), { kind: "retry_scheduled", at });
      assert.deepEqual(step.timers, [{ op: "set", name: ATTEMPT_TIMER, at }]);
      assert.equal(h.state!.next_attempt_at, at);
      dueAt.push(at);
    } else {
      assert.deepEqual(kinds(step.events), ["attempt_recorded", "event_failed"]);
      assert.deepEqual(step.timers, [{ op: "cancel", name: ATTEMPT_TIMER }]);
    }
  }
  assert.equal(ATTEMPTS_MAX, 6);
  assert.deepEqual(RETRY_SCHEDULE_MINUTES, [1, 5, 30, 120, 720]);
  const s = h.state!;
  assert.deepEqual([s.status, s.attempts_total, s.round_started_at], ["failed", 6, first]);
  assert.deepEqual(h.replayed(), s);
});

Deno.test("outbound event: a failed attempt's error is stored cut to its bound", () => {
  const h = created();
  const error = "e".repeat(ATTEMPT_ERROR_CHARS_MAX + 50);
  attempt(h, "att_1", { result: "failed", http_status: null, error });
  const kept = h.state!.attempts[0]!.outcome;
  assert.equal(kept.result, "failed");
  assert.equal(kept.result === "failed" && kept.error, error.slice(0, ATTEMPT_ERROR_CHARS_MAX));
  h.now = h.state!.next_attempt_at!;
  h.must({ kind: "claim", attempt_id: "att_2" });
  h.must({
    kind: "record_attempt",
    attempt_id: "att_2",
    outcome: { result: "failed", http_status: 500, error: null },
  });
  const second = h.state!.attempts[1]!.outcome;
  assert.equal(second.result === "failed" && second.error, null);
});

Deno.test("outbound event: requeue needs a reason, never takes a delivered event, and starts a new round", () => {
  const h = created();
  for (let n = 1; n <= ATTEMPTS_MAX; n++) {
    h.now = T0 + n * 1_000 * 60 * 60 * 13;
    attempt(h, `att_${n}`, FAILED);
  }
  assert.equal(h.state!.status, "failed");
  h.refused({ kind: "requeue", reason: "  ", by: "staff:usr_1" }, "reason_required");
  h.now += MINUTE;
  const long = `  ${"r".repeat(REQUEUE_REASON_CHARS_MAX + 10)}  `;
  const step = h.must({ kind: "requeue", reason: long, by: "staff:usr_1" });
  const requeue = { reason: "r".repeat(REQUEUE_REASON_CHARS_MAX), by: "staff:usr_1", at: h.now };
  assert.deepEqual(step.events, [{ kind: "requeued", requeue }]);
  assert.deepEqual(step.timers, [{ op: "set", name: ATTEMPT_TIMER, at: h.now }]);
  const s = h.state!;
  assert.deepEqual(
    [s.status, s.round_attempts, s.round_started_at, s.next_attempt_at, s.requeues_total],
    ["pending", 0, null, h.now, 1],
  );
  // The new round's schedule counts from its own first try.
  const first = h.now + 1_000;
  h.now = first;
  const retry = attempt(h, "att_r1", FAILED);
  assert.deepEqual(retry.events.at(-1), { kind: "retry_scheduled", at: first + MINUTE });
  assert.equal(h.state!.attempts_total, ATTEMPTS_MAX + 1);

  h.now = h.state!.next_attempt_at!;
  attempt(h, "att_r2", DELIVERED);
  h.refused(
    { kind: "requeue", reason: "again", by: "staff:usr_1" },
    "not_requeueable",
    "only a failed or pending event is requeued: delivered",
  );
  new ActorHarness(outboundEventActor).refused(
    { kind: "requeue", reason: "x", by: "y" },
    "not_found",
  );
});

Deno.test("outbound event: a pending event may be requeued, which frees its claim", () => {
  const h = created();
  h.must({ kind: "claim", attempt_id: "att_1" });
  h.must({ kind: "requeue", reason: "receiver fixed", by: "api_key" });
  assert.equal(h.state!.claim, null);
  h.must({ kind: "claim", attempt_id: "att_2" });
});

Deno.test("outbound event: attempt and requeue histories stay bounded while their totals count all", () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 30 }), (rounds) => {
      const h = created();
      for (let r = 0; r < rounds; r++) {
        for (let n = 1; n <= ATTEMPTS_MAX; n++) {
          h.now += 13 * 60 * MINUTE;
          attempt(h, `att_${r}_${n}`, FAILED);
        }
        h.must({ kind: "requeue", reason: `round ${r}`, by: "operator" });
      }
      const s = h.state!;
      assert.equal(s.attempts_total, rounds * ATTEMPTS_MAX);
      assert.equal(s.attempts.length, Math.min(rounds * ATTEMPTS_MAX, ATTEMPT_HISTORY_MAX));
      assert.equal(s.attempts.at(-1)!.attempt_id, `att_${rounds - 1}_${ATTEMPTS_MAX}`);
      assert.equal(s.requeues.length, Math.min(rounds, REQUEUES_MAX));
      assert.equal(requeuesTotal(s), rounds);
      assert.equal(s.requeues.at(-1)!.reason, `round ${rounds - 1}`);
    }),
    { numRuns: 15 },
  );
});

Deno.test("outbound event: an attempt that finds no endpoint is retried hourly and spends no attempt", () => {
  const h = created();
  h.now = T0 + 1_000;
  h.must({ kind: "claim", attempt_id: "att_1" });
  const step = h.must({
    kind: "record_attempt",
    attempt_id: "att_1",
    outcome: { result: "no_endpoint" },
  });
  const retryAt = h.now + NO_ENDPOINT_RETRY_MS;
  assert.deepEqual(step.events, [{ kind: "endpoint_missing", at: h.now, retry_at: retryAt }]);
  assert.deepEqual(step.timers, [{ op: "set", name: ATTEMPT_TIMER, at: retryAt }]);
  const s = h.state!;
  assert.deepEqual([s.attempts_total, s.round_attempts, s.claim], [0, 0, null]);
  assert.deepEqual([s.endpoint_missing_at, s.endpoint_waited_at], [h.now, h.now]);
});

Deno.test("outbound event: endpoint_missing is noted once per due attempt, never while held or settled", () => {
  const h = created();
  h.now = T0 + 1_000;
  assert.deepEqual(kinds(h.must({ kind: "endpoint_missing", due_at: T0 }).events), [
    "endpoint_missing",
  ]);
  // Heard again by another instance for the same due attempt: nothing.
  assert.deepEqual(h.must({ kind: "endpoint_missing", due_at: T0 }).events, []);
  h.now = T0 + NO_ENDPOINT_RETRY_MS + 1_000;
  h.must({ kind: "claim", attempt_id: "att_1" });
  assert.deepEqual(
    h.must({ kind: "endpoint_missing", due_at: T0 + NO_ENDPOINT_RETRY_MS }).events,
    [],
    "an attempt under way holds it",
  );
  h.must({ kind: "record_attempt", attempt_id: "att_1", outcome: DELIVERED });
  assert.deepEqual(h.must({ kind: "endpoint_missing", due_at: h.now }).events, []);
  new ActorHarness(outboundEventActor).refused(
    { kind: "endpoint_missing", due_at: 0 },
    "not_found",
  );
});

Deno.test("outbound event: setting an endpoint makes a waiting event due now, and nothing else", () => {
  const h = new ActorHarness(outboundEventActor, { now: T0 });
  h.must({ kind: "create", event: EVENT, endpoint_missing: true });
  h.now = T0 + 10 * MINUTE;
  const set = h.must({ kind: "endpoint_set" });
  assert.deepEqual(set.events, [{ kind: "retry_scheduled", at: h.now }]);
  assert.deepEqual(set.timers, [{ op: "set", name: ATTEMPT_TIMER, at: h.now }]);
  assert.equal(h.state!.next_attempt_at, h.now);
  assert.deepEqual(h.must({ kind: "endpoint_set" }).events, [], "already due: nothing");
  // An event not waiting for an endpoint keeps its schedule.
  const other = created();
  assert.deepEqual(other.must({ kind: "endpoint_set" }).events, []);
  new ActorHarness(outboundEventActor).refused({ kind: "endpoint_set" }, "not_found");
});

Deno.test("outbound event: a delivery after waiting for an endpoint keeps when it waited", () => {
  const h = new ActorHarness(outboundEventActor, { now: T0 });
  h.must({ kind: "create", event: EVENT, endpoint_missing: true });
  h.now = T0 + NO_ENDPOINT_RETRY_MS;
  h.must({ kind: "endpoint_missing", due_at: h.now });
  h.now += 1_000;
  h.must({ kind: "endpoint_set" }); // the recipient set one: the attempt is due now
  attempt(h, "att_1", DELIVERED);
  const s = h.state!;
  assert.equal(s.endpoint_missing_at, null);
  assert.equal(s.endpoint_waited_at, T0 + NO_ENDPOINT_RETRY_MS);
  // spec: courier 3.1: only an hourly retry (not the first try) may have raised the alert.
  assert.equal(waitedForEndpoint(s, s.endpoint_waited_at), true);
  assert.equal(waitedForEndpoint(s, T0), false);
  assert.equal(waitedForEndpoint(s, null), false);
  assert.equal(summaryOf(s).endpoint_waited_at, T0 + NO_ENDPOINT_RETRY_MS);
});

Deno.test("outbound event: acknowledgements move forward only and keep the first reference per state", () => {
  const h = created();
  const ack = (state: "acknowledged" | "invoiced_externally" | "reconciled", ref: string | null) =>
    h.must({ kind: "acknowledge", state, external_reference: ref, by: "api_key" });
  assert.deepEqual(ack("acknowledged", "  ACK-1 ").events, [{
    kind: "acknowledged",
    state: "acknowledged",
    external_reference: "ACK-1",
    by: "api_key",
    at: T0,
  }]);
  assert.deepEqual(ack("acknowledged", "ACK-2").events, [], "rule 3: the first reference stays");
  assert.deepEqual(ack("acknowledged", null).events, [], "a repeated report adds nothing");
  ack("reconciled", null);
  assert.deepEqual(ack("invoiced_externally", null).events, [], "rule 1: never back");
  // A late report that adds a reference for an earlier state keeps it, without moving back.
  ack("invoiced_externally", "INV-7");
  assert.deepEqual(h.state!.acknowledgement, {
    reported_state: "reconciled",
    external_references: { acknowledged: "ACK-1", invoiced_externally: "INV-7" },
    at: T0,
  });
  assert.deepEqual(ack("reconciled", "  ").events, [], "a blank reference is none");
  assert.deepEqual(h.replayed(), h.state);
});

Deno.test("outbound event: only a billing event is acknowledged", () => {
  const webhook = created({
    ...EVENT,
    stream: "client_webhook",
    recipient: { kind: "client", client_id: "cli_1" },
  });
  const command = {
    kind: "acknowledge",
    state: "acknowledged",
    external_reference: null,
    by: "api_key",
  } as const;
  webhook.refused(command, "not_found", "billing event not found");
  new ActorHarness(outboundEventActor).refused(command, "not_found", "billing event not found");
});

Deno.test("outbound event: acknowledgement references are cut to their bound", () => {
  const h = created();
  const long = "R".repeat(REQUEUE_REASON_CHARS_MAX + 5);
  h.must({ kind: "acknowledge", state: "acknowledged", external_reference: long, by: "x" });
  assert.equal(
    h.state!.acknowledgement!.external_references.acknowledged,
    long.slice(0, REQUEUE_REASON_CHARS_MAX),
  );
});

Deno.test("outbound event: get answers it or not_found", () => {
  const h = created();
  assert.equal(h.must({ kind: "get" }).reply, h.state);
  new ActorHarness(outboundEventActor).refused(
    { kind: "get" },
    "not_found",
    "outbound event not found",
  );
});

Deno.test("outbound event: the log and the bus carry neither the body nor a sealed secret", () => {
  const target = { url: "https://acc.example/hook", key_id: "whk_1", sealed_secret: SEALED };
  const { recipient: _, ...rest } = EVENT;
  const h = created({ ...rest, target });
  const logged = JSON.stringify(h.log.map((e) => outboundEventActor.logged!(e)));
  assert.ok(!logged.includes(EVENT.raw_body.slice(1, 20)));
  assert.ok(!logged.includes(SEALED.data) && !logged.includes(SEALED.iv));
  const first = outboundEventActor.logged!(h.log[0]!) as { event: Record<string, unknown> };
  assert.equal(first.event.raw_body_bytes, new TextEncoder().encode(EVENT.raw_body).length);
  assert.deepEqual(first.event.target, { url: target.url, key_id: "whk_1" });
  const due: OutboundEventEvent = { kind: "attempt_due", at: T0 };
  assert.equal(outboundEventActor.logged!(due), due, "other events are logged whole");
  const projected = JSON.stringify(outboundEventActor.project!(h.state));
  assert.ok(!projected.includes(SEALED.data) && !projected.includes("raw_body"));
  assert.equal(outboundEventActor.project!(null), undefined);
  // A report kept under its attempt id answers no event on replay (the body would not fit).
  assert.equal(outboundEventActor.keptReply!(h.state!), undefined);
});

Deno.test("outbound event: the summary names the client and counts requeues of events stored before", () => {
  const h = created({ ...EVENT, client_id: undefined } as unknown as NewOutboundEvent);
  const s = h.state!;
  assert.equal(summaryOf(s).client_id, "cli_1", "else its entry's client");
  const { requeues_total: _, ...older } = { ...s, requeues: [{ reason: "a", by: "b", at: 1 }] };
  assert.equal(requeuesTotal(older), 1);
  assert.equal(summaryOf({ ...s, entry: null, client_id: undefined } as never).client_id, null);
  assert.throws(() => outboundEventActor.evolve(null, { kind: "attempt_due", at: T0 }));
});
