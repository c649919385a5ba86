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
  networkRunActor,
} from "../../../../actors/courier/network_run/mod.ts";
import type { Crossing } from "../../../../actors/courier/customs_crossing/mod.ts";
import { foundOrNull } from "../../../runtime/actor.ts";
import type { ActorRuntime } from "../../../runtime/runtime.ts";
import { recordOnce } from "../shipments.ts";

/**
 * spec: courier 3.2 (delivery_attempt opens when out for delivery): a shipment a delivery run
 * takes across a border goes out for delivery once the vehicle has entered with it and customs
 * cleared or released it, whichever comes last, when no other border is left before its deliver
 * stop. Both steps call this; keyed by the crossing, so either, or a retry, moves it once.
 * `requestId`: the request the step is done for, if any.
 */
export async function outForDeliveryPastBorder(
  runtime: ActorRuntime,
  tenant: string,
  crossing: Crossing,
  by: string,
  requestId?: string,
): Promise<void> {
  const settled = crossing.status === "cleared" || crossing.status === "released";
  if (!settled || crossing.entry_at === null || crossing.vehicle_left_at !== null) return;
  if (crossing.run_id === null) return;
  // A run busy or failing is no answer that the shipment is not aboard: thrown, the request
  // answers it (503) and a follow-up stays due, so the milestone is not skipped (courier 3.2).
  const got = foundOrNull(
    await runtime.read(networkRunActor, tenant, crossing.run_id, { kind: "get" }),
  );
  if (got === null) return;
  const run = asRun(got);
  const aboard = run.items.some((i) => i.waybill === crossing.waybill && i.state === "on_board");
  if (!aboard || !deliversNext(run, crossing.waybill)) return;
  await recordOnce(runtime, tenant, crossing.waybill, `customs:${crossing.id}:out_for_delivery`, {
    event: "out_for_delivery",
    holder: holderOf(run),
    pieces: carriedPieces(run.stops, crossing.waybill),
    by,
  }, requestId);
}
