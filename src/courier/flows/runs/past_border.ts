/**
 * A shipment a delivery run takes across a border goes out for delivery once past it (courier
 * 3.2, 3.4): called by the vehicle's entry (perform.ts) and by customs' clearance or release
 * (src/courier/flows/customs_moves.ts), which the runs' follow-ups call in turn.
 */
import {
  asRun,
  carriedPieces,
  deliversNext,
  holderOf,
  type NetworkRun,
  networkRunActor,
} from "../../../../actors/courier/network_run/mod.ts";
import {
  type Crossing,
  customsCrossingActor,
} from "../../../../actors/courier/customs_crossing/mod.ts";
import { foundOrNull } from "../../../runtime/actor.ts";
import type { ActorRuntime } from "../../../runtime/runtime.ts";
import { recordOnce, shipmentIn } from "../shipments.ts";
import { crossingIdsOf } from "./customs_gate.ts";

/**
 * spec: courier 3.2 (delivery_attempt opens when out for delivery): a shipment a delivery run
 * takes across a border goes out for delivery once the vehicle has entered with it and customs
 * cleared or released it, whichever comes last, at every border the run presented it at, when
 * no other border is left before its deliver stop. Both steps call this; keyed by the crossing
 * and sent out once, so either, or a retry, moves it once. `requestId`: the request the step is
 * done for, if any.
 */
export async function outForDeliveryPastBorder(
  runtime: ActorRuntime,
  tenant: string,
  crossing: Crossing,
  by: string,
  requestId?: string,
): Promise<void> {
  if (!passed(crossing) || crossing.run_id === null) return;
  // A run busy or failing is no answer that the shipment is not aboard: thrown, the request
  // answers it (503) and a follow-up stays due, so the milestone is not skipped (courier 3.2).
  const got = foundOrNull(
    await runtime.read(networkRunActor, tenant, crossing.run_id, { kind: "get" }),
  );
  if (got === null) return;
  const run = asRun(got);
  const aboard = run.items.some((i) => i.waybill === crossing.waybill && i.state === "on_board");
  if (!aboard || !deliversNext(run, crossing.waybill)) return;
  // spec: courier 3.4, 3.2: past every border the run crossed with it, not only this one: the
  // crossing customs settles last sends it out, once (one already out is not sent out again).
  if (!(await othersPassed(runtime, tenant, run, crossing))) return;
  if (SENT_OUT.has((await shipmentIn(runtime, tenant, crossing.waybill)).status)) return;
  await recordOnce(runtime, tenant, crossing.waybill, `customs:${crossing.id}:out_for_delivery`, {
    event: "out_for_delivery",
    holder: holderOf(run),
    pieces: carriedPieces(run.stops, crossing.waybill),
    by,
  }, requestId);
}

/** Customs let the crossing's shipment go (cleared or released) and the vehicle entered with it. */
function passed(c: Crossing): boolean {
  const settled = c.status === "cleared" || c.status === "released";
  return settled && c.entry_at !== null && c.vehicle_left_at === null;
}

/** The shipment's other crossings this run presented it at (its border stops): each passed. */
async function othersPassed(
  runtime: ActorRuntime,
  tenant: string,
  run: NetworkRun,
  crossing: Crossing,
): Promise<boolean> {
  for (const id of crossingIdsOf(tenant, run, crossing.waybill)) {
    if (id === crossing.id) continue;
    const got = foundOrNull(await runtime.read(customsCrossingActor, tenant, id, { kind: "get" }));
    const other = got?.crossing;
    if (!other || other.run_id !== run.id) continue;
    if (!passed(other)) return false;
  }
  return true;
}

/** Headlines of a shipment already sent out for delivery (or past it). */
const SENT_OUT: ReadonlySet<string> = new Set([
  "out_for_delivery",
  "delivery_attempted",
  "awaiting_redelivery",
  "delivered",
  "returning",
  "returned",
  "cancelled",
]);
