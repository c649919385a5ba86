/**
 * The runs one shipment has boarded and its cold-chain flag (actors/courier/shipment_runs.ts;
 * courier 2.10 cold slots): boarding is recorded once per run, the flag only when it changes,
 * and every reply says what the flag was before the command.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { SHIPMENT_RUNS_MAX, shipmentRunsActor } from "../../../actors/courier/shipment_runs.ts";
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

Deno.test("shipment runs: the cold-chain flag is recorded with each reservation's number, the reply naming the flag before", () => {
  const h = new ActorHarness(shipmentRunsActor);
  h.must({ kind: "board", run_id: "run_1" });
  const set = h.must({ kind: "cold_chain", cold: true });
  assert.deepEqual(set.events, [{ kind: "cold_chain_set", cold: true, reservation: 1 }]);
  assert.deepEqual(set.reply, {
    runs: ["run_1"],
    cold_chain: true,
    cold_reservations: 1,
    was_cold_chain: false,
  });
  const again = h.must({ kind: "cold_chain", cold: true });
  assert.deepEqual(again.events, [{ kind: "cold_chain_set", cold: true, reservation: 2 }]);
  assert.equal(again.reply?.was_cold_chain, true);
  // A boarding after the flag sees it: its load counts the cold slots.
  const boarded = h.must({ kind: "board", run_id: "run_2" });
  assert.deepEqual(boarded.reply, {
    runs: ["run_1", "run_2"],
    cold_chain: true,
    cold_reservations: 2,
    was_cold_chain: true,
  });
  h.must({ kind: "cold_chain", cold: false });
  assert.equal(h.must({ kind: "get" }).reply?.cold_chain, false);
  assert.deepEqual(h.fire("x").events, []);
  assert.deepEqual(h.replayed(), h.state);
});

Deno.test("shipment runs: a refused profile takes back only its own reservation, not one made since", () => {
  const h = new ActorHarness(shipmentRunsActor);
  const first = h.must({ kind: "cold_chain", cold: true }).reply!.cold_reservations!;
  h.must({ kind: "cold_chain", cold: true }); // another profile reserves meanwhile
  const stale = h.must({ kind: "cold_chain", cold: false, undo: first });
  assert.deepEqual(stale.events, []);
  assert.equal(stale.reply?.cold_chain, true);
  const own = h.must({ kind: "cold_chain", cold: true }).reply!.cold_reservations!;
  const undone = h.must({ kind: "cold_chain", cold: false, undo: own });
  assert.deepEqual(undone.events, [{ kind: "cold_chain_set", cold: false }]);
  assert.equal(undone.reply?.cold_chain, false);
  assert.deepEqual(h.replayed(), h.state);
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
