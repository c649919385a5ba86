/**
 * What a driver may touch (courier 4.5): the shipments of the runs assigned to them. A run
 * indexes each of its shipments under `driver_waybill` = `<driver>|<waybill>|<run>` while the run
 * is assigned to that driver and open, so the check (src/courier/flows/driver_access.ts) is one
 * prefix read of `<driver>|<waybill>|`. Keyed per run: two runs of the driver carrying one
 * shipment each hold their own entry, and the one reassigned or closed takes only its own away.
 * (Until state version 3 the key was `<driver>|<waybill>`, shared by such runs; the runtime's
 * start rewrote those entries, networkRunActor.indexesChangedAt.)
 */
import type { IndexEntry } from "../../../src/runtime/actor.ts";
import type { NetworkRunState } from "./run.ts";

/** The index a run keeps for each shipment on it while a driver is assigned. */
export const DRIVER_WAYBILL_INDEX = "driver_waybill";

/** The entry of one run carrying `waybill` for its driver. */
export function driverWaybillKey(driverId: string, waybill: string, runId: string): string {
  return `${driverWaybillPrefix(driverId, waybill)}${runId}`;
}

/** What the entries of every run of the driver carrying `waybill` begin with. */
export function driverWaybillPrefix(driverId: string, waybill: string): string {
  return `${driverId}|${waybill}|`;
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
    key: driverWaybillKey(driver, w, state.id),
  }));
}
