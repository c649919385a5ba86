/**
 * The driver index of a run (courier 4.5): the driver reaches each shipment of an open run
 * assigned to them, but not one whose every item was transferred to another run; each run keeps
 * its own entry, so two runs of the driver carrying one shipment never share one.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { driverIndexes } from "../../../actors/courier/network_run/driver_index.ts";
import { ITEM_STATES, type NetworkRun } from "../../../actors/courier/network_run/run.ts";

/** The rule as the spec words it, shipment by shipment. */
function reached(run: NetworkRun): string[] {
  const waybills = new Set([
    ...run.items.map((i) => i.waybill),
    ...run.stops.flatMap((s) => s.waybill ? [s.waybill] : []),
  ]);
  return [...waybills].filter((w) => {
    const items = run.items.filter((i) => i.waybill === w);
    return items.length === 0 || items.some((i) => i.state !== "transferred");
  }).sort();
}

const waybill = fc.constantFrom("WB1", "WB2", "WB3", "WB4", "WB5");

Deno.test("network run driver index: each shipment not wholly transferred, keyed by driver and run", () => {
  fc.assert(fc.property(
    fc.array(fc.record({ waybill, state: fc.constantFrom(...ITEM_STATES) }), { maxLength: 12 }),
    fc.array(fc.option(waybill, { nil: null }), { maxLength: 4 }),
    (items, stopWaybills) => {
      const run = {
        id: "RUN-1",
        driver_id: "drv_1",
        status: "in_transit",
        items,
        stops: stopWaybills.map((w) => ({ waybill: w })),
      } as unknown as NetworkRun;
      const keys = driverIndexes(run).map((e) => e.key).sort();
      assert.deepEqual(keys, reached(run).map((w) => `drv_1|${w}|RUN-1`));
      assert.deepEqual(driverIndexes({ ...run, status: "closed" }), []);
      assert.deepEqual(driverIndexes({ ...run, driver_id: null }), []);
    },
  ));
});
