/**
 * What a driver may touch (courier 4.5): only runs assigned to that driver, and the shipments on
 * them. A run actor indexes each of its shipments under its driver and itself (network_run
 * driver_index.ts) while the run is assigned to that driver and open, so the check is one prefix
 * read: any run of the driver carrying the shipment will do. Anything else (another driver's
 * run or shipment) is refused `not_found`, never forbidden: a driver does not learn what exists.
 */
import {
  DRIVER_WAYBILL_INDEX,
  driverWaybillPrefix,
} from "../../../actors/courier/network_run/mod.ts";
import { refuse } from "../../runtime/actor.ts";
import type { Deps } from "../../environment.ts";

/** The caller as a route's credential states it: its courier and, for a driver, who. */
export interface DriverCaller {
  readonly kind: string;
  readonly business: { readonly id: string };
  readonly driver_id?: string;
}

/** Refused `not_found` unless the signed-in driver has an open run carrying `waybill`. */
export async function assertDriverCarries(
  deps: Pick<Deps, "runtime">,
  caller: DriverCaller,
  waybill: string,
): Promise<void> {
  if (caller.kind !== "driver" || caller.driver_id === undefined) {
    refuse("unauthenticated", "a driver token is needed");
  }
  // One entry is enough: a driver's id is of one courier, so its entries are that tenant's
  // (checked all the same).
  const found = await deps.runtime.lookupPrefix(
    DRIVER_WAYBILL_INDEX,
    driverWaybillPrefix(caller.driver_id, waybill),
    1,
  );
  if (found.some((e) => e.target.tenant === caller.business.id)) return;
  refuse("not_found", `no shipment ${waybill} on your runs`);
}
