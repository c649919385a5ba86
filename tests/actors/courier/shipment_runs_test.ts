/**
 * The runs one shipment has boarded and its cold-chain flag (actors/courier/shipment_runs.ts;
 * courier 2.10 cold slots): boarding is recorded once per run, each cold-chain reservation is
 * pending until settled (the sweep settles one left pending), the flag is released only with
 * none pending and none made since, and every reply says what the flag was before the command.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  COLD_RESERVATIONS_OUTBOX,
  COLD_RESERVATIONS_TIMER,
  SHIPMENT_RUNS_MAX,
  shipmentRunsActor,
} from "../../../actors/courier/shipment_runs.ts";
import { COLD_RESERVATION_STALL_MS } from "../../../src/limits.ts";
import { ActorHarness } from "../../helpers/actor.ts";

Deno.test("shipment runs: boarding a run records it once", () => {
  const h = new ActorHarness(shipmentRunsActor);
  const step = h.must({ kind: "board", run_id: "run_1" });
  assert.deepEqual(step.events, [{ kind: "boarded", run_id: "run_1" }]);
  assert.deepEqual(step.reply, { runs: ["run_1"], cold_chain: false, was_cold_chain: false });
  assert.deepEqual(h.must({ kind: "board", run_id: "run_1" }).events, []);
  h.must({ kind: "board", run_id: "run_2" });
  assert.deepEqual(h.state.runs, ["run_1", "run_2"]);
  assert.equal(shipmentRunsActor.publishEvents, false, "nobody downstream needs the events");
});

Deno.test("shipment runs: each cold-chain reservation is numbered and pending until settled, the reply naming the flag before", () => {
  const h = new ActorHarness(shipmentRunsActor, { now: 1_000 });
  h.must({ kind: "board", run_id: "run_1" });
  const set = h.must({ kind: "cold_chain", cold: true });
  assert.deepEqual(set.events, [{ kind: "cold_reserved", reservation: 1, at: 1_000 }]);
  assert.deepEqual(set.reply, {
    runs: ["run_1"],
    cold_chain: true,
    cold_reservations: 1,
    cold_pending: [{ reservation: 1, at: 1_000 }],
    was_cold_chain: false,
  });
  assert.deepEqual(set.timers, [
    { op: "set", name: COLD_RESERVATIONS_TIMER, at: 1_000 + COLD_RESERVATION_STALL_MS },
  ]);
  const again = h.must({ kind: "cold_chain", cold: true });
  assert.deepEqual(again.events, [{ kind: "cold_reserved", reservation: 2, at: 1_000 }]);
  assert.equal(again.reply?.was_cold_chain, true);
  // A boarding after the flag sees it: its load counts the cold slots.
  const boarded = h.must({ kind: "board", run_id: "run_2" });
  assert.equal(boarded.reply?.cold_chain, true);
  assert.deepEqual(boarded.reply?.runs, ["run_1", "run_2"]);
  // spec: courier 2.10: never released while a reservation is pending.
  assert.deepEqual(h.must({ kind: "cold_chain", cold: false, seen: 2 }).events, []);
  assert.equal(h.must({ kind: "cold_settle", reservation: 1 }).reply?.settled, true);
  const last = h.must({ kind: "cold_settle", reservation: 2 });
  assert.deepEqual(last.timers, [{ op: "cancel", name: COLD_RESERVATIONS_TIMER }]);
  assert.equal(h.must({ kind: "cold_settle", reservation: 2 }).reply?.settled, false);
  const released = h.must({ kind: "cold_chain", cold: false, seen: 2 });
  assert.equal(h.must({ kind: "get" }).reply?.cold_chain, false);
  assert.deepEqual(h.fire("x").events, []);
  // The runs hear of the release after its commit: the sweep tells them again later.
  assert.deepEqual(released.timers, [
    { op: "set", name: COLD_RESERVATIONS_TIMER, at: 1_000 + COLD_RESERVATION_STALL_MS },
  ]);
  h.now = 1_000 + COLD_RESERVATION_STALL_MS;
  const toldAgain = h.fire(COLD_RESERVATIONS_TIMER).events;
  assert.deepEqual(toldAgain, [{ kind: "cold_reservations_stalled", reservations: [] }]);
  assert.deepEqual(h.replayed(), h.state);
});

Deno.test("shipment runs: a release seen before a reservation made since changes nothing", () => {
  const h = new ActorHarness(shipmentRunsActor);
  h.must({ kind: "cold_chain", cold: true });
  h.must({ kind: "cold_settle", reservation: 1 });
  // Found not cold after reservation 1; reservation 2 is made before the release arrives.
  h.must({ kind: "cold_chain", cold: true });
  h.must({ kind: "cold_settle", reservation: 2 });
  const stale = h.must({ kind: "cold_chain", cold: false, seen: 1 });
  assert.deepEqual(stale.events, []);
  assert.equal(stale.reply?.cold_chain, true);
  const released = h.must({ kind: "cold_chain", cold: false, seen: 2 });
  assert.deepEqual(released.events, [{ kind: "cold_chain_set", cold: false }]);
  assert.equal(released.reply?.cold_chain, false);
  assert.deepEqual(h.replayed(), h.state);
});

Deno.test("shipment runs: a reservation left pending past the bound goes to the sweep's outbox", () => {
  const h = new ActorHarness(shipmentRunsActor, { now: 0 });
  h.must({ kind: "cold_chain", cold: true });
  h.now = 60_000;
  h.must({ kind: "cold_chain", cold: true });
  h.now = COLD_RESERVATION_STALL_MS;
  const fired = h.fire(COLD_RESERVATIONS_TIMER);
  assert.deepEqual(fired.events, [{ kind: "cold_reservations_stalled", reservations: [1] }]);
  assert.deepEqual(shipmentRunsActor.outbox!(fired.events[0]!, h.state), [
    { outbox: COLD_RESERVATIONS_OUTBOX, payload: { reservations: [1] } },
  ]);
  // Looked at again later while any is pending.
  assert.deepEqual(fired.timers, [
    { op: "set", name: COLD_RESERVATIONS_TIMER, at: 2 * COLD_RESERVATION_STALL_MS },
  ]);
  h.must({ kind: "cold_settle", reservation: 1 });
  h.must({ kind: "cold_settle", reservation: 2 });
  h.now = 2 * COLD_RESERVATION_STALL_MS;
  assert.deepEqual(h.fire(COLD_RESERVATIONS_TIMER).events, []);
});

Deno.test("shipment runs: at most SHIPMENT_RUNS_MAX runs are kept, the most recent last", () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 60 }), (n) => {
      const h = new ActorHarness(shipmentRunsActor);
      for (let i = 0; i < n; i++) h.must({ kind: "board", run_id: `run_${i}` });
      const kept = Array.from({ length: n }, (_, i) => `run_${i}`).slice(-SHIPMENT_RUNS_MAX);
      assert.deepEqual(h.state.runs, kept);
    }),
    { numRuns: 30 },
  );
});

Deno.test("shipment runs: one run plans the shipment; another takes the claim only naming it", () => {
  const h = new ActorHarness(shipmentRunsActor);
  const first = h.must({ kind: "plan", run_id: "run_1" });
  assert.deepEqual(first.reply?.planned_on, { run_id: "run_1", claim: 1 });
  // The same run again (a retry) has the same claim.
  assert.deepEqual(h.must({ kind: "plan", run_id: "run_1" }).events, []);
  // spec: courier 3.4: another run is refused, told the run and the claim it would replace.
  const refused = shipmentRunsActor.decide(h.state, { kind: "plan", run_id: "run_2" }, h.ctx());
  assert.deepEqual(refused.ok ? null : [refused.code, refused.details], [
    "planned_on_another_run",
    { run_id: "run_1", claim: 1 },
  ]);
  const stale = { kind: "plan", run_id: "run_2", replacing: 7 } as const;
  assert.equal(shipmentRunsActor.decide(h.state, stale, h.ctx()).ok, false);
  const taken = h.must({ kind: "plan", run_id: "run_2", replacing: 1 });
  assert.deepEqual(taken.reply?.planned_on, { run_id: "run_2", claim: 2 });
  assert.deepEqual(h.replayed(), h.state);
});

Deno.test("shipment runs: a claim a transfer passes on names the run it came from until taken over", () => {
  const h = new ActorHarness(shipmentRunsActor);
  h.must({ kind: "plan", run_id: "run_1" });
  // spec: courier 3.4: run_1 has the shipment until run_2 takes it (planning.ts passClaim).
  const passed = h.must({ kind: "plan", run_id: "run_2", replacing: 1, from_run: "run_1" });
  assert.deepEqual(passed.reply?.planned_on, { run_id: "run_2", claim: 2, from_run: "run_1" });
  const refused = shipmentRunsActor.decide(h.state, { kind: "plan", run_id: "run_3" }, h.ctx());
  assert.deepEqual(refused.ok ? null : refused.details, {
    run_id: "run_2",
    claim: 2,
    from_run: "run_1",
  });
  const back = h.must({ kind: "plan", run_id: "run_1", replacing: 2 });
  assert.deepEqual(back.reply?.planned_on, { run_id: "run_1", claim: 3 });
  assert.deepEqual(h.replayed(), h.state);
});
