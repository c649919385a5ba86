/**
 * What a driver may touch (courier 4.5): only runs assigned to that driver, and the shipments on
 * them. A run actor indexes each of its shipments under `driver_waybill` = `<driver>|<waybill>`
 * while the run is assigned to that driver, so the check is one index read. Anything else (another
 * driver's run or shipment) answers 404, never 403: a driver does not learn what exists.
 */
import type { Context } from "hono";
import { asRun, networkRunActor } from "../../../actors/courier/network_run.ts";
import { openRunIdsOfDriver } from "../queries/runs.ts";
import { businessPrincipalOf } from "../../platform/auth/principal.ts";
import type { AppEnv } from "../../http/context.ts";
import { ApiError } from "../../http/errors.ts";

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
  if (found && found.tenant === tenant) return;
  if (await onOpenRun(c, driverId, waybill)) return;
  throw new ApiError("not_found", `no shipment ${waybill} on your runs`);
}

/** Open runs read when the index misses: as many as GET /driver/network-runs lists. */
const DRIVER_RUNS_READ_MAX = 100;

/**
 * The index keeps one entry per driver and waybill: two runs of the driver carrying the shipment
 * share it, and the one reassigned or closed deletes it for both. So a miss asks the driver's
 * open runs themselves, by the same rule the index follows (network_run.ts indexes), before
 * answering 404 (courier 4.5: limited to runs assigned to that driver, every one of them).
 */
async function onOpenRun(c: Context<AppEnv>, driverId: string, waybill: string) {
  const env = c.get("env");
  const tenant = businessPrincipalOf(c).business.id;
  const ids = await openRunIdsOfDriver(env.db, tenant, driverId, DRIVER_RUNS_READ_MAX);
  const key = driverWaybillKey(driverId, waybill);
  for (const id of ids) {
    const got = await env.runtime.read(networkRunActor, tenant, id, { kind: "get" });
    if (!got.ok) continue;
    const entries = networkRunActor.indexes?.(asRun(got.reply)) ?? [];
    if (entries.some((e) => e.index === DRIVER_WAYBILL_INDEX && e.key === key)) return true;
  }
  return false;
}
