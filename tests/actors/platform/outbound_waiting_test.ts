/**
 * A charge event made while its recipient has no endpoint (courier 3.1, issue 36 item 2): kept as
 * a delivery-log row whose state is the actor's own (stateOfWaiting), made an actor only when its
 * hourly retry finds an endpoint (`due`), a requeue or an acknowledgement changes it; and the
 * courier's one timer that retries every waiting row (billing_wait).
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  ATTEMPT_TIMER,
  outboundEventActor,
  stateOfWaiting,
} from "../../../actors/platform/outbound_event/mod.ts";
import { BILLING_WAIT_OUTBOX, billingWaitActor } from "../../../actors/courier/billing_wait.ts";
import { NO_ENDPOINT_RETRY_MS } from "../../../src/platform/rules/delivery_schedule.ts";
import { ActorHarness } from "../../helpers/actor.ts";
import { EVENT, T0 } from "./outbound_log_fixtures.ts";

const HOUR = NO_ENDPOINT_RETRY_MS;

Deno.test("outbound event: a waiting row reads as the actor made with no endpoint and retried hourly", () => {
  fc.assert(fc.property(fc.nat({ max: 30 }), (retries) => {
    // The actor's course: made finding no endpoint, then each hourly retry finding none.
    const h = new ActorHarness(outboundEventActor, { now: T0 });
    h.must({ kind: "create", event: EVENT, endpoint_missing: true });
    for (let n = 1; n <= retries; n++) {
      h.now = T0 + n * HOUR;
      h.must({ kind: "endpoint_missing", due_at: h.now });
    }
    const row = stateOfWaiting({
      event: EVENT,
      created_at: T0,
      missing_at: T0 + retries * HOUR,
      retry_at: T0 + (retries + 1) * HOUR,
    });
    assert.deepEqual(row, h.state);
  }));
});

Deno.test("outbound event: a waiting row found with an endpoint is due now, once it waits no more nothing", () => {
  const row = stateOfWaiting({
    event: EVENT,
    created_at: T0,
    missing_at: T0 + HOUR,
    retry_at: T0 + 2 * HOUR,
  });
  // Its retry is due already (found a minute late): made due anyway, as it has no timer.
  const h = new ActorHarness(outboundEventActor, { now: T0 + 2 * HOUR + 60_000, state: row });
  const due = h.must({ kind: "due" });
  assert.deepEqual(due.events, [{ kind: "retry_scheduled", at: h.now }]);
  assert.deepEqual(due.timers, [{ op: "set", name: ATTEMPT_TIMER, at: h.now }]);
  // Under way or sent: nothing more.
  h.must({ kind: "claim", attempt_id: "att_1" });
  assert.deepEqual(h.must({ kind: "due" }).events, []);
  h.must({
    kind: "record_attempt",
    attempt_id: "att_1",
    outcome: { result: "delivered", http_status: 200 },
  });
  assert.deepEqual(h.must({ kind: "due" }).events, []);
  new ActorHarness(outboundEventActor, { now: T0 }).refused({ kind: "due" }, "not_found");
});

Deno.test("outbound event: acknowledged while it waits, it keeps its hourly retry", () => {
  const row = stateOfWaiting({ event: EVENT, created_at: T0, missing_at: T0, retry_at: T0 + HOUR });
  const h = new ActorHarness(outboundEventActor, { now: T0 + 60_000, state: row });
  const acked = h.must({
    kind: "acknowledge",
    state: "acknowledged",
    external_reference: null,
    by: "owner",
  });
  // Made from its row, the actor has no timer until this commit sets the one the row held.
  assert.deepEqual(acked.timers, [{ op: "set", name: ATTEMPT_TIMER, at: T0 + HOUR }]);
  // A delivered event keeps none.
  const sent = new ActorHarness(outboundEventActor, { now: T0 });
  sent.must({ kind: "create", event: EVENT });
  sent.must({ kind: "claim", attempt_id: "att_1" });
  sent.must({
    kind: "record_attempt",
    attempt_id: "att_1",
    outcome: { result: "delivered", http_status: 200 },
  });
  const ack = {
    kind: "acknowledge",
    state: "acknowledged",
    external_reference: null,
    by: "owner",
  } as const;
  assert.deepEqual(sent.must(ack).timers, []);
});

Deno.test("billing wait: one timer per courier, armed for the earliest retry asked, a pass when it fires", () => {
  const h = new ActorHarness(billingWaitActor, { now: T0 });
  const first = h.must({ kind: "wait", at: T0 + HOUR });
  assert.deepEqual(first.timers, [{ op: "set", name: "retry", at: T0 + HOUR }]);
  // Later retries asked meanwhile write nothing; an earlier one moves the timer.
  assert.deepEqual(h.must({ kind: "wait", at: T0 + HOUR + 5 }).events, []);
  const earlier = h.must({ kind: "wait", at: T0 + HOUR - 5 });
  assert.deepEqual(earlier.timers, [{ op: "set", name: "retry", at: T0 + HOUR - 5 }]);
  // A retry asked for the past is armed for now.
  h.now = T0 + 2 * HOUR;
  const fired = h.must({ kind: "timer", name: "retry", payload: undefined });
  assert.deepEqual(fired.events, [{ kind: "retry_due", at: h.now }]);
  assert.deepEqual(billingWaitActor.outbox!(fired.events[0]!, h.state), [
    { outbox: BILLING_WAIT_OUTBOX, payload: { at: h.now } },
  ]);
  assert.equal(h.state.due_at, null);
  // Fired again (a timer left from before): no second pass.
  assert.deepEqual(h.must({ kind: "timer", name: "retry", payload: undefined }).events, []);
  const past = h.must({ kind: "wait", at: T0 });
  assert.deepEqual(past.timers, [{ op: "set", name: "retry", at: h.now }]);
});
