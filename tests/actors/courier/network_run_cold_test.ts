/**
 * A run's cold slots told by laboratory profiles (courier 2.10; src/courier/flows/runs/
 * cold_slots.ts): the tells about one shipment are ordered, and a stale one changes nothing, so a
 * release overtaken by a reservation made since never gives back the slots of a cold sample, nor
 * does a reservation the sweep released since take them again. Pure: no store, no HTTP.
 */
import assert from "node:assert/strict";
import { type NetworkRun, type RunCommand } from "../../../actors/courier/network_run/mod.ts";
import { applied, creation, decided, LOAD } from "./network_run_fixtures.ts";

const deliverWb1: RunCommand = {
  kind: "add_stop",
  stop: {
    id: "d1",
    kind: "deliver",
    waybill: "WB1",
    work_order: null,
    country: null,
    to_country: null,
    border_post: null,
    load: LOAD,
  },
  by: "ops",
};

function tell(cold: boolean, seq: number): RunCommand {
  return { kind: "cold_chain", waybill: "WB1", cold, seq, by: "ops" };
}

/** The run after `commands`, each accepted, and the events of the last. */
function after(...commands: RunCommand[]) {
  let run: NetworkRun | null = null;
  let events: readonly unknown[] = [];
  for (const c of commands) {
    const d = decided(run, c);
    events = d.events;
    run = applied(run, d.events);
  }
  return { run: run!, events };
}

const created: RunCommand = (() => {
  const c = creation("linehaul");
  if (c.kind !== "create") throw new Error("expected a creation");
  return { ...c, run: { ...c.run, capacity: { ...c.run.capacity, cold_slots: 1 } } };
})();

Deno.test("network run: a cold-chain tell older than the latest taken about the shipment changes nothing", () => {
  const reserved = after(created, deliverWb1, tell(true, 4));
  assert.equal(reserved.run.items[0]!.load.cold_slots, 1);
  // A release decided before reservation 2 (2 * 1 + 1), arriving after its tell: stale.
  const stale = after(created, deliverWb1, tell(true, 4), tell(false, 3));
  assert.deepEqual(stale.events, []);
  assert.equal(stale.run.items[0]!.load.cold_slots, 1);
  const released = after(created, deliverWb1, tell(true, 4), tell(false, 5));
  assert.equal(released.run.items[0]!.load.cold_slots, 0);
  // A reservation the sweep released since, its request woken late: stale too.
  const late = after(created, deliverWb1, tell(true, 4), tell(false, 5), tell(true, 4));
  assert.deepEqual(late.events, []);
  assert.equal(late.run.items[0]!.load.cold_slots, 0);
  assert.deepEqual(late.run.cold_chain_waybills, []);
});

Deno.test("network run: a newer reservation that changes no count keeps its order; a tell without one, or a release finding nothing, is as before", () => {
  const again = after(created, deliverWb1, tell(true, 2), tell(true, 4));
  assert.deepEqual(again.run.cold_chain_told, [{ waybill: "WB1", seq: 4 }]);
  assert.equal(again.run.items[0]!.load.cold_slots, 1);
  const unordered = after(created, deliverWb1, tell(true, 2), {
    kind: "cold_chain",
    waybill: "WB1",
    cold: true,
    by: "ops",
  });
  assert.deepEqual(unordered.events, []);
  // A release where nothing is counted (a shipment never cold) leaves the run as it was.
  const never = after(created, deliverWb1, tell(false, 1));
  assert.deepEqual(never.events, []);
  assert.deepEqual(never.run.history.filter((h) => h.action === "cold_chain"), []);
});
