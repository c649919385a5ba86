/**
 * A run's claim on a shipment it collected (courier 3.4: one run carries a shipment out at a
 * time): kept while the run has it on board, let go once it is unloaded at a depot with no deliver
 * stop here for it; a collection or a transfer in still under way with a claim let go is refused.
 * Pure: no store, no HTTP.
 */
import assert from "node:assert/strict";
import {
  type NetworkRun,
  networkRunActor,
  type RunCommand,
} from "../../../actors/courier/network_run/mod.ts";
import { applied, collectStop, creation, ctx, decided, LOAD, NOW } from "./network_run_fixtures.ts";

const RESERVED = { grams: 10_000, cm3: 10_000, pieces: 10, cold_slots: 0 };
const LET_GO = { kind: "let_go", waybill: "WB1", claim: "WB1#1", by: "ops" } as const;

function collecting(claim: string | null): RunCommand {
  return {
    kind: "stop_collect",
    stop_id: "c1",
    waybill: "WB1",
    labels: ["WB1-1"],
    load: LOAD,
    override_reason: null,
    claim,
    by: "driver:drv_1",
  };
}

/** The run after `commands`, each accepted, from its creation with collect stop c1. */
function after(...commands: RunCommand[]): NetworkRun {
  const steps = [creation("linehaul"), collectStop("c1", RESERVED), ...commands];
  return steps.reduce<NetworkRun>((run, c) => applied(run, decided(run, c, NOW).events)!, null!);
}

function refusal(run: NetworkRun, command: RunCommand): string | null {
  const d = networkRunActor.decide(run, command, ctx());
  return d.ok ? null : d.code;
}

Deno.test("network run: a shipment it collected keeps its claim while on board; unloaded at a depot, the claim is let go", () => {
  const collected = after(collecting("WB1#1"));
  // spec: courier 3.4: on board here, it is this run's: another run may not plan it.
  assert.equal(refusal(collected, LET_GO), "planned_on_another_run");
  const arrived = after(
    collecting("WB1#1"),
    { kind: "depart", by: "ops" },
    { kind: "arrive", by: "ops" },
  );
  assert.equal(refusal(arrived, LET_GO), "planned_on_another_run");
  const unloaded = applied(
    arrived,
    decided(arrived, { kind: "unload", waybills: null, by: "ops" }).events,
  )!;
  const released = applied(unloaded, decided(unloaded, LET_GO).events)!;
  assert.deepEqual(released.released_claims, ["WB1#1"]);
});

Deno.test("network run: a collection under a claim the run let go is refused; one replayed answers as it did", () => {
  const released = after(LET_GO);
  assert.equal(refusal(released, collecting("WB1#1")), "planned_on_another_run");
  assert.equal(refusal(released, collecting("WB1#2")), null);
  const made = after(collecting("WB1#1"));
  assert.deepEqual(decided(made, collecting("WB1#1")).events, []);
});

Deno.test("network run: a transfer in under a claim the run let go is refused; under one it holds it is taken once", () => {
  const taking = (claim: string): RunCommand => ({
    kind: "transfer_in",
    from_run: "run_a",
    items: [{ waybill: "WB2", load: LOAD }],
    claims: { WB2: claim },
    by: "ops",
  });
  // spec: courier 3.4: the claim passed here was let go before the items came: another run
  // plans the shipment now, so this run takes nothing.
  const released = after({ ...LET_GO, waybill: "WB2", claim: "WB2#2" });
  assert.equal(refusal(released, taking("WB2#2")), "planned_on_another_run");
  const took = applied(released, decided(released, taking("WB2#3")).events)!;
  assert.deepEqual(took.items.map((i) => i.waybill), ["WB2"]);
  assert.deepEqual(decided(took, taking("WB2#3")).events, [], "the same transfer again");
});
