/**
 * Deferred work (actors/platform/deferred_work.ts): a deferral is kept once, tried on the schedule with
 * the next try set before each is made, and done ends it.
 */
import assert from "node:assert/strict";
import {
  deferredRetryDelay,
  type DeferredWork,
  deferredWorkActor,
  type DeferredWorkCommand,
  deferredWorkId,
} from "../../../actors/platform/deferred_work.ts";
import type { TimerFired } from "../../../src/runtime/actor.ts";
import { DEFERRED_WORK_RETRY_MS } from "../../../src/limits.ts";

const ctx = (now: number) => ({ now, newId: (p: string) => `${p}_1` });
const DEFER: DeferredWorkCommand = {
  kind: "defer",
  worker: "alert_raiser",
  subject: "live.biz_1.shipment.WB1",
  payload: { tenant: "biz_1", version: 7 },
  error: "store refused",
};
const TIMER: TimerFired = { kind: "timer", name: "retry", payload: undefined };

/** Decides and applies, answering the state and what the decision set. */
function step(state: DeferredWork, command: DeferredWorkCommand | TimerFired, now: number) {
  const d = deferredWorkActor.decide(state, command, ctx(now));
  assert.ok(d.ok, JSON.stringify(d));
  const next = d.events.reduce(deferredWorkActor.evolve, state);
  return { state: next, events: d.events, timers: d.timers ?? [] };
}

Deno.test("deferred work: kept once, tried on the schedule, each next try set before it is made", () => {
  let s = deferredWorkActor.initial;
  const deferred = step(s, DEFER, 1_000);
  s = deferred.state;
  assert.equal(s.status, "waiting");
  assert.deepEqual(s.payload, DEFER.kind === "defer" && DEFER.payload);
  assert.deepEqual(deferred.timers, [{
    op: "set",
    name: "retry",
    at: 1_000 + DEFERRED_WORK_RETRY_MS[0]!,
  }]);
  assert.equal(step(s, DEFER, 2_000).events.length, 0, "deferred again while waiting: kept once");

  let now = 1_000;
  for (let attempt = 1; attempt <= DEFERRED_WORK_RETRY_MS.length + 2; attempt++) {
    now += deferredRetryDelay(attempt);
    const due = step(s, TIMER, now);
    s = due.state;
    assert.deepEqual(due.events, [{ kind: "due", attempt, at: now }]);
    assert.deepEqual(due.timers, [{
      op: "set",
      name: "retry",
      at: now + deferredRetryDelay(attempt + 1),
    }]);
    s = step(s, { kind: "failed", error: `try ${attempt}` }, now).state;
    assert.equal(s.last_error, `try ${attempt}`);
  }
  assert.equal(
    deferredRetryDelay(DEFERRED_WORK_RETRY_MS.length + 5),
    DEFERRED_WORK_RETRY_MS.at(-1),
    "the last wait for ever after the schedule",
  );

  const done = step(s, { kind: "done" }, now);
  assert.equal(done.state.status, "done");
  assert.equal(done.state.payload, null, "the message is not kept once done");
  assert.deepEqual(done.timers, [{ op: "cancel", name: "retry" }]);
  assert.equal(step(done.state, TIMER, now + 1).events.length, 0, "a stray timer does nothing");
  assert.equal(step(done.state, { kind: "done" }, now + 1).events.length, 0);
  assert.equal(step(done.state, DEFER, now + 2).state.status, "waiting", "a new failure later");
});

Deno.test("deferred work: one actor per worker and message version", () => {
  const a = deferredWorkId("alert_raiser", "live.b.shipment.WB1", 7);
  assert.notEqual(a, deferredWorkId("client_webhooks", "live.b.shipment.WB1", 7));
  assert.notEqual(a, deferredWorkId("alert_raiser", "live.b.shipment.WB1", 8));
  assert.equal(a, deferredWorkId("alert_raiser", "live.b.shipment.WB1", 7));
});

Deno.test("deferred work: work refused for good is parked once, with its refusal, and never tried", () => {
  const park: DeferredWorkCommand = {
    kind: "park",
    worker: "run_follow_ups",
    subject: "live.biz_1.network_run.run_1",
    payload: { run_id: "run_1", batch: "fu_1", follow_up: { kind: "alert" } },
    error: "not_found: shipment not found: WB9",
  };
  const parked = step(deferredWorkActor.initial, park, 5_000);
  assert.deepEqual(parked.timers, [], "no try is set");
  assert.deepEqual(parked.state, {
    worker: "run_follow_ups",
    subject: "live.biz_1.network_run.run_1",
    payload: { run_id: "run_1", batch: "fu_1", follow_up: { kind: "alert" } },
    status: "parked",
    attempts: 1,
    deferred_at: 5_000,
    last_error: "not_found: shipment not found: WB9",
    done_at: null,
  });
  assert.equal(step(parked.state, park, 6_000).events.length, 0, "parked again: kept once");
  assert.equal(step(parked.state, TIMER, 7_000).events.length, 0, "a stray timer tries nothing");
  assert.equal(step(parked.state, { kind: "done" }, 7_000).events.length, 0);
});
