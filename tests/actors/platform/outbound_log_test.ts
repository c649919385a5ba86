/**
 * An outbound event whose first attempt its outbox's handler made (issue 36 item 2): created with
 * the attempt recorded, its retries counted from it (courier 3.1); and the state of a
 * delivery-log row, which must be the state the actor would have held.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  ATTEMPT_TIMER,
  outboundEventActor,
  stateOfLog,
} from "../../../actors/platform/outbound_event/mod.ts";
import { RETRY_SCHEDULE_MINUTES } from "../../../src/platform/rules/delivery_schedule.ts";
import { ActorHarness } from "../../helpers/actor.ts";
import { EVENT, T0 } from "./outbound_log_fixtures.ts";

const MINUTE = 60_000;
const FAILED = { result: "failed", http_status: 503, error: "unavailable" } as const;
const DELIVERED = { result: "delivered", http_status: 200 } as const;

Deno.test("outbound event: made after a failed first attempt, it is pending with the retry 1 minute on", () => {
  const h = new ActorHarness(outboundEventActor, { now: T0 });
  const step = h.must({
    kind: "create",
    event: EVENT,
    first_attempt: { attempt_id: "att_1", outcome: FAILED },
  });
  const first = T0 + RETRY_SCHEDULE_MINUTES[0]! * MINUTE;
  assert.deepEqual(step.events, [
    { kind: "created", event: EVENT, at: T0 },
    { kind: "attempt_recorded", attempt: { attempt_id: "att_1", at: T0, outcome: FAILED } },
    { kind: "retry_scheduled", at: first },
  ]);
  // No attempt due at once: the retry timer only.
  assert.deepEqual(step.timers, [{ op: "set", name: ATTEMPT_TIMER, at: first }]);
  const s = h.state!;
  assert.deepEqual([s.status, s.attempts_total, s.round_attempts], ["pending", 1, 1]);
  assert.deepEqual([s.round_started_at, s.next_attempt_at], [T0, first]);
  // The second retry counts from the first attempt too (5 minutes after it).
  h.now = first;
  h.must({ kind: "claim", attempt_id: "att_2" });
  const second = h.must({ kind: "record_attempt", attempt_id: "att_2", outcome: FAILED });
  assert.deepEqual(second.timers, [
    { op: "set", name: ATTEMPT_TIMER, at: T0 + RETRY_SCHEDULE_MINUTES[1]! * MINUTE },
  ]);
  assert.deepEqual(h.replayed(), h.state);
});

Deno.test("outbound event: made again with a first attempt is a no-op; another body is refused", () => {
  const h = new ActorHarness(outboundEventActor, { now: T0 });
  const first = { attempt_id: "att_1", outcome: FAILED };
  h.must({ kind: "create", event: EVENT, first_attempt: first });
  assert.deepEqual(h.must({ kind: "create", event: EVENT, first_attempt: first }).events, []);
  h.refused(
    { kind: "create", event: { ...EVENT, raw_body: "{}" }, first_attempt: first },
    "exists_with_different_body",
  );
  const empty = new ActorHarness(outboundEventActor, { now: T0 });
  empty.refused(
    { kind: "create", event: { ...EVENT, event_type: "" }, first_attempt: first },
    "invalid_event",
  );
});

Deno.test("outbound event: a delivery-log row's state is the state of the actor that made and delivered it", () => {
  fc.assert(fc.property(
    fc.integer({ min: 0, max: 10 * MINUTE }),
    fc.integer({ min: 200, max: 299 }),
    fc.option(fc.string({ minLength: 1, maxLength: 12 }), { nil: undefined }),
    (took, status, requestId) => {
      const event = requestId === undefined ? EVENT : { ...EVENT, request_id: requestId };
      // The engine's course: made, claimed, sent, recorded.
      const h = new ActorHarness(outboundEventActor, { now: T0 });
      h.must({ kind: "create", event });
      h.must({ kind: "claim", attempt_id: "att_1" });
      h.now = T0 + took;
      const outcome = { result: "delivered", http_status: status } as const;
      h.must({ kind: "record_attempt", attempt_id: "att_1", outcome });
      const logged = stateOfLog({
        event,
        created_at: T0,
        attempt: { attempt_id: "att_1", at: T0 + took, outcome },
      });
      assert.deepEqual(logged, h.state);
      // And the actor made with the attempt recorded holds it too, but for when it was made.
      const made = new ActorHarness(outboundEventActor, { now: T0 + took });
      made.must({ kind: "create", event, first_attempt: { attempt_id: "att_1", outcome } });
      assert.deepEqual({ ...made.state!, created_at: T0 }, h.state);
    },
  ));
});

Deno.test("outbound event: a delivery-log row is of a delivered event only", () => {
  const attempt = { attempt_id: "att_1", at: T0, outcome: FAILED };
  assert.throws(() => stateOfLog({ event: EVENT, created_at: T0, attempt }), TypeError);
});

Deno.test("outbound event: an actor made from a delivered row takes an acknowledgement and refuses a requeue", () => {
  const row = stateOfLog({
    event: EVENT,
    created_at: T0,
    attempt: { attempt_id: "att_1", at: T0, outcome: DELIVERED },
  });
  const h = new ActorHarness(outboundEventActor, { now: T0 + MINUTE, state: row });
  const acked = h.must({
    kind: "acknowledge",
    state: "acknowledged",
    external_reference: "ERP-1",
    by: "owner",
  });
  assert.equal(acked.events.length, 1);
  assert.equal(h.state?.acknowledgement?.reported_state, "acknowledged");
  h.refused({ kind: "requeue", reason: "again", by: "owner" }, "not_requeueable");
});
