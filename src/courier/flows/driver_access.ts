/**
 * What a driver may touch (courier 4.5): only runs assigned to that driver, and the shipments on
 * them. A run actor indexes each of its shipments under its driver (network_run driver_index.ts)
 * while the run is assigned to that driver, so the check is one index read. Anything else
 * (another driver's run or shipment) is refused `not_found`, never forbidden: a driver does not
 * learn what exists.
 */
import { openRunIdsOfDriver } from "../queries/runs.ts";
import {
  asRun,
  DRIVER_WAYBILL_INDEX,
  driverWaybillKey,
  networkRunActor,
} from "../../../actors/courier/network_run/mod.ts";
import { refuse } from "../../runtime/actor.ts";
import type { Deps } from "../../environment.ts";

/** The caller as a route's credential states it: its courier and, for a driver, who. */
export interface DriverCaller {
  readonly kind: string;
  readonly business: { readonly id: string };
  readonly driver_id?: string;
}

/** Refused `not_found` unless the signed-in driver has a run carrying `waybill`. */
export async function assertDriverCarries(
  deps: Pick<Deps, "runtime" | "db">,
  caller: DriverCaller,
  waybill: string,
): Promise<void> {
  if (caller.kind !== "driver" || caller.driver_id === undefined) {
    refuse("unauthenticated", "a driver token is needed");
  }
  const driverId = caller.driver_id;
  const tenant = caller.business.id;
  const found = await deps.runtime.lookup(
    DRIVER_WAYBILL_INDEX,
    driverWaybillKey(driverId, waybill),
  );
  if (found && found.tenant === tenant) return;
  if (await onOpenRun(deps, tenant, driverId, waybill)) return;
  refuse("not_found", `no shipment ${waybill} on your runs`);
}

/** Open runs read when the index misses: as many as GET /driver/network-runs lists. */
const DRIVER_RUNS_READ_MAX = 100;

/**
 * The index keeps one entry per driver and waybill: two runs of the driver carrying the shipment
 * share it, and the one reassigned or closed deletes it for both. So a miss asks the driver's
 * open runs themselves, by the same rule the index follows (network_run driverIndexes), before
 * answering not found (courier 4.5: limited to runs assigned to that driver, every one of them).
 */
async function onOpenRun(
  deps: Pick<Deps, "runtime" | "db">,
  tenant: string,
  driverId: string,
  waybill: string,
) {
  const ids = await openRunIdsOfDriver(deps.db, tenant, driverId, DRIVER_RUNS_READ_MAX);
  const key = driverWaybillKey(driverId, waybill);
  for (const id of ids) {
    const got = await deps.runtime.read(networkRunActor, tenant, id, { kind: "get" });
    if (!got.ok) continue;
    const entries = networkRunActor.indexes?.(asRun(got.reply)) ?? [];
    if (entries.some((e) => e.index === DRIVER_WAYBILL_INDEX && e.key === key)) return true;
  }
  return false;
}
