/**
 * What a driver may touch (courier 4.5): only runs assigned to that driver, and the shipments on
 * them. A run actor indexes each of its shipments under `driver_waybill` = `<driver>|<waybill>`
 * while the run is assigned to that driver, so the check is one index read. Anything else (another
 * driver's run or shipment) answers 404, never 403: a driver does not learn what exists.
 */
import type { Context } from "hono";
import { businessPrincipalOf } from "../http/auth.ts";
import type { AppEnv } from "../http/context.ts";
import { ApiError } from "../http/errors.ts";

/** The index a run keeps for each shipment on it while a driver is assigned. */
export const DRIVER_WAYBILL_INDEX = "driver_waybill";

export function driverWaybillKey(driverId: string, waybill: string): string {
  return `${driverId}|${waybill}`;
}

/** The driver signed in on this request; a non-driver principal is a programming error. */
export function driverIdOf(c: Context<AppEnv>): string {
  const p = businessPrincipalOf(c);
  if (p.kind !== "driver") throw new ApiError("unauthenticated", "a driver token is needed");
  return p.driver_id;
}

/** Refuses with 404 unless the signed-in driver has a run carrying `waybill`. */
export async function assertDriverCarries(c: Context<AppEnv>, waybill: string): Promise<void> {
  const driverId = driverIdOf(c);
  const tenant = businessPrincipalOf(c).business.id;
  const found = await c.get("env").runtime.lookup(
    DRIVER_WAYBILL_INDEX,
    driverWaybillKey(driverId, waybill),
  );
  if (!found || found.tenant !== tenant) {
    throw new ApiError("not_found", `no shipment ${waybill} on your runs`);
  }
}
