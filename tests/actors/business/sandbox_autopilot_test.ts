// deno-lint-ignore-file no-explicit-any
/**
 * A trip's sandbox autopilot (Business API 4.4): its timer brings the next step due into the
 * outbox; a success sets the next timer step_seconds later; a refused step is tried 3 times, then
 * the trip is given up with the refusal; an outcome recorded twice (a handler's crash) counts once.
 */
import assert from "node:assert/strict";
import {
  AUTOPILOT_INDEX,
  AUTOPILOT_OUTBOX,
  type RunningScenario,
  sandboxAutopilotActor,
} from "../../../actors/business/sandbox_autopilot.ts";
import { ActorHarness, kinds } from "../../helpers/actor.ts";

function started(scenario: RunningScenario = "delivered"): ActorHarness<any, any, any, any> {
  const h = new ActorHarness(sandboxAutopilotActor, { now: 1_000 });
  const s = h.must({
    kind: "start",
    business_id: "biz",
    reference: "BK-1",
    scenario,
    step_seconds: 2,
    source: "setting",
  });
  assert.deepEqual(s.timers, [{ op: "set", name: "step", at: 3_000 }]);
  return h;
}

function due(h: ActorHarness<any, any, any, any>) {
  const fired = h.fire("step");
  const e = fired.events[0];
  return sandboxAutopilotActor.outbox!(e, h.state);
}

Deno.test("sandbox autopilot: each timer hands the next step to the outbox; the last success ends it", () => {
  const h = started("cancel_by_driver");
  assert.deepEqual(h.indexes(), [{ index: AUTOPILOT_INDEX, key: "biz:moving:BK-1" }]);
  const steps: string[] = [];
  for (let i = 0; i < 3; i++) {
    h.now += 2_000;
    const [item] = due(h);
    assert.equal(item!.outbox, AUTOPILOT_OUTBOX);
    const payload = item!.payload as any;
    assert.equal(payload.index, i);
    steps.push(payload.step);
    const done = h.must({ kind: "step_done", index: i });
    assert.deepEqual(done.timers, i < 2 ? [{ op: "set", name: "step", at: h.now + 2_000 }] : []);
    // The handler run again after a crash records nothing twice.
    assert.deepEqual(kinds(h.must({ kind: "step_done", index: i }).events), []);
  }
  assert.deepEqual(steps, ["assign_driver", "arrive_pickup", "cancel_by_driver"]);
  assert.equal(h.state.status, "done");
  assert.deepEqual(h.indexes(), []);
  assert.deepEqual(kinds(h.fire("step").events), [], "a stray timer after the end does nothing");
  // A booking's retry starts nothing new.
  const again = h.must({
    kind: "start",
    business_id: "biz",
    reference: "BK-1",
    scenario: "delivered",
    step_seconds: 5,
  });
  assert.deepEqual(kinds(again.events), []);
  assert.equal(again.reply.scenario, "cancel_by_driver");
});

Deno.test("sandbox autopilot: a step refused 3 times leaves the trip for manual moves with the refusal", () => {
  const h = started("id_refused");
  for (let i = 0; i < 4; i++) {
    due(h);
    h.must({ kind: "step_done", index: i });
  }
  const refused = { kind: "step_refused", index: 4, code: "invalid_transition", message: "no" };
  for (const tries of [1, 2]) {
    due(h);
    const r = h.must(refused);
    assert.equal(h.state.tries, tries);
    assert.equal(h.state.status, "moving");
    assert.equal(r.timers.length, 1, "tried again step_seconds later");
  }
  due(h);
  const last = h.must(refused);
  assert.deepEqual(last.timers, []);
  assert.equal(h.state.status, "gave_up");
  assert.deepEqual(
    { ...h.state.refusal, at: undefined },
    { step: "id_refused", code: "invalid_transition", message: "no", at: undefined },
  );
  assert.deepEqual(h.indexes(), [{ index: AUTOPILOT_INDEX, key: "biz:gave_up:BK-1" }]);
  assert.deepEqual(kinds(h.fire("step").events), [], "given up: no step comes due");
  assert.deepEqual(kinds(h.must({ ...refused }).events), [], "an outcome after giving up");
});

Deno.test("sandbox autopilot: stopped at its due step, it runs nothing more and leaves the list", () => {
  const h = started("delivered");
  h.now += 2_000;
  const [item] = due(h);
  assert.equal((item!.payload as any).source, "setting");
  // A stop for another step (a stale handler) changes nothing.
  assert.deepEqual(kinds(h.must({ kind: "stop", index: 3 }).events), []);
  const stopped = h.must({ kind: "stop", index: 0 });
  assert.deepEqual(kinds(stopped.events), ["autopilot_stopped"]);
  assert.deepEqual(stopped.timers, []);
  assert.equal(h.state.status, "stopped");
  assert.deepEqual(h.indexes(), []);
  assert.deepEqual(kinds(h.fire("step").events), [], "a stray timer after the stop does nothing");
  assert.deepEqual(kinds(h.must({ kind: "step_done", index: 0 }).events), []);
});

Deno.test("sandbox autopilot: its trip ended stops it, moving or given up; an ended one is left as it is", () => {
  const moving = started();
  assert.deepEqual(kinds(moving.must({ kind: "trip_ended" }).events), ["autopilot_stopped"]);
  assert.deepEqual([moving.state.status, moving.indexes()], ["stopped", []]);
  assert.equal(moving.fire("step").events.length, 0, "its timer brings nothing due");
  const given = started();
  for (let i = 0; i < 3; i++) {
    given.must({ kind: "step_refused", index: 0, code: "invalid_transition", message: "no" });
  }
  assert.equal(given.state.status, "gave_up");
  given.must({ kind: "trip_ended" });
  assert.deepEqual([given.state.status, given.indexes()], ["stopped", []]);
  assert.equal(given.must({ kind: "trip_ended" }).events.length, 0);
  const none = new ActorHarness(sandboxAutopilotActor, { now: 1_000 });
  assert.equal(none.must({ kind: "trip_ended" }).events.length, 0, "no autopilot: nothing");
});

// spec: business 3.1, 4.4: the first step waits for live dispatch's offer; readiness brings it
// forward once, and changes nothing once the offer time has come.
Deno.test("sandbox autopilot: the first step waits for the trip's offer time; offerable brings it forward once", () => {
  const h = new ActorHarness(sandboxAutopilotActor, { now: 1_000 });
  const s = h.must({
    kind: "start",
    business_id: "biz",
    reference: "BK-1",
    scenario: "delivered",
    step_seconds: 2,
    source: "setting",
    offer_at: 60_000,
  });
  assert.deepEqual(s.timers, [{ op: "set", name: "step", at: 62_000 }]);
  h.now = 5_000;
  const ready = h.must({ kind: "offerable" });
  assert.deepEqual(kinds(ready.events), ["autopilot_offerable"]);
  assert.deepEqual(ready.timers, [{ op: "set", name: "step", at: 7_000 }]);
  assert.deepEqual(kinds(h.must({ kind: "offerable" }).events), [], "ready twice is harmless");
  const unready = started();
  assert.deepEqual(kinds(unready.must({ kind: "offerable" }).events), [], "offered at once");
});
