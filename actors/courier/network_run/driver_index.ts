/**
 * What a driver may touch (courier 4.5): the shipments of the runs assigned to them. A run
 * indexes each of its shipments under `driver_waybill` = `<driver>|<waybill>` while the run is
 * assigned to that driver, so the check (src/courier/flows/driver_access.ts) is one index read.
 */
import type { IndexEntry } from "../../../src/runtime/actor.ts";
import type { NetworkRunState } from "./run.ts";

/** The index a run keeps for each shipment on it while a driver is assigned. */
export const DRIVER_WAYBILL_INDEX = "driver_waybill";

export function driverWaybillKey(driverId: string, waybill: string): string {
  return `${driverId}|${waybill}`;
}

/** The driver reaches the run's shipments while assigned to it and the run is open. */
export function driverIndexes(state: NetworkRunState): IndexEntry[] {
  if (state === null || state.driver_id === null || state.status === "closed") return [];
  const driver = state.driver_id;
  // Whether each shipment has an item still with this run: one pass, as runs hold hundreds.
  const kept = new Map<string, boolean>();
  for (const i of state.items) {
    kept.set(i.waybill, (kept.get(i.waybill) ?? false) || i.state !== "transferred");
  }
  const waybills = new Set(state.items.map((i) => i.waybill));
  for (const s of state.stops) if (s.waybill) waybills.add(s.waybill);
  // A shipment transferred to another run is that run's driver's now (courier 4.5).
  for (const [w, stays] of kept) if (!stays) waybills.delete(w);
  return [...waybills].map((w) => ({
    index: DRIVER_WAYBILL_INDEX,
    key: driverWaybillKey(driver, w),
  }));
}
