/**
 * A run's step on a shipment (delivered, attempted, transferred) and a customs hold, one after
 * the other (courier 3.4: a shipment customs holds is neither delivered, attempted, nor moved to
 * another run). The checks read before the run records the step would miss a hold landing in
 * between: so the request first reserves each of the shipment's crossings under the run's gate
 * for it (refused while customs holds it), and the run records the step only under that gate. A
 * hold meeting the reservation has the run void the gate first, in the run's turn
 * (actors/courier/customs_crossing/delivery.ts; src/courier/flows/customs_moves.ts): the step
 * then recorded under it is refused. A reservation a crash or a refusal left blocks nothing: the
 * next hold voids it.
 */
import {
  deliveryGateOf,
  type ItemState,
  type NetworkRun,
  type Stop,
} from "../../../../actors/courier/network_run/mod.ts";
import {
  CUSTOMS_HOLDS,
  customsCrossingActor,
} from "../../../../actors/courier/customs_crossing/mod.ts";
import { foundOrNull, refuse, Refused } from "../../../runtime/actor.ts";
import type { RunCaller, RunDeps } from "./caller.ts";
import { bookingCrossingIdOf, crossingIdOf } from "../customs.ts";
import { withdrawnFromCrossing, withdrawShipmentPresentation } from "../customs_withdrawn.ts";

/**
 * Reserves the shipment's crossings for the run's step on it; answers the gate the run's step
 * carries. Refused `held_by_customs` when customs holds it (`done`: what it cannot be).
 */
export async function passCustoms(
  deps: RunDeps,
  caller: RunCaller,
  at: { run: NetworkRun; waybill: string },
  done: string,
): Promise<string> {
  const { run, waybill } = at;
  const token = deliveryGateOf(run, waybill);
  const delivery = { token, run_id: run.id, waybill };
  for (const id of crossingIdsOf(caller.tenant, run, waybill)) {
    const r = await deps.runtime.ask(customsCrossingActor, caller.tenant, id, {
      kind: "reserve_delivery",
      delivery,
    });
    if (r.ok || r.code === "not_found") continue;
    if (r.code === "held_by_customs") {
      refuse(
        "held_by_customs",
        `${waybill} is held by customs and cannot be ${done}: ${r.message}`,
      );
    }
    throw new Refused(r);
  }
  return token;
}

/**
 * spec: courier 3.4: a report of the shipment as customs_hold reserves the crossing holding it
 * (`crossing`) under the run's gate, refused once customs let it go; the run records it only
 * under that gate, which a clearance or release meeting the reservation voids first
 * (actors/courier/customs_crossing/delivery.ts). Answers the gate, or null when no longer held.
 */
export async function reserveHeld(
  deps: RunDeps,
  caller: RunCaller,
  at: { run: NetworkRun; waybill: string },
  crossing: string,
): Promise<string | null> {
  const { run, waybill } = at;
  const token = deliveryGateOf(run, waybill);
  const r = await deps.runtime.ask(customsCrossingActor, caller.tenant, crossing, {
    kind: "reserve_delivery",
    delivery: { token, run_id: run.id, waybill, while_held: true },
  });
  if (r.ok) return token;
  if (r.code === "not_held_by_customs") return null;
  throw new Refused(r);
}

/**
 * spec: courier 3.4: the driver presents the vehicle with what it carries: a shipment a border
 * request presented at `stop` that left the run before the stop was recorded (the run refused it
 * `border_load_changed`) has that presentation withdrawn from the crossing it got at booking, so
 * the run carrying it now presents that crossing (actors/courier/customs_crossing/border.ts). One
 * the stop recorded (another request presented it with the shipment on board) stands. Withdrawn
 * from the crossing, it is withdrawn from the shipment next (courier 3.2: the customs_clearance it
 * opened did not happen); a crossing that keeps it (something crossed there) keeps it on the
 * shipment too. The crossing's withdrawal answers the same when sent again, so a try that stopped
 * between the two completes the shipment's. Besides what this request presented, each shipment
 * that left the run for another place (LEFT) is looked at: a request refused or cut before it
 * withdrew what it presented leaves its retry nothing else naming them, and the crossing would
 * stay bound to this stop for good (the run carrying it then opening a second crossing, a
 * second clearance). One never presented here is no crossing's presentation here: unchanged.
 * A shipment presented here at a crossing of this stop's own (its booking crossing was presented
 * at an earlier border) has that presentation withdrawn from the shipment alike.
 */
export async function withdrawPresented(
  deps: RunDeps,
  caller: RunCaller,
  at: { run: NetworkRun; stop: Stop },
  presented: readonly string[],
): Promise<void> {
  const { run } = at;
  const aboard = new Set(run.items.filter((i) => i.state === "on_board").map((i) => i.waybill));
  const left = run.items.filter((i) => LEFT.has(i.state)).map((i) => i.waybill);
  for (const waybill of new Set([...presented, ...left])) {
    if (aboard.has(waybill)) continue;
    await withdrawBooked(deps, caller, { ...at, waybill });
    await withdrawStopOwn(deps, caller, { ...at, waybill });
  }
}

/** The presentation of the shipment's booking crossing at the stop: the crossing's, then its. */
async function withdrawBooked(
  deps: RunDeps,
  caller: RunCaller,
  at: { run: NetworkRun; stop: Stop; waybill: string },
): Promise<void> {
  const { run, stop, waybill } = at;
  const id = bookingCrossingIdOf(caller.tenant, waybill);
  if (stop.crossings.includes(id)) return;
  const command = {
    kind: "withdraw_presentation",
    run_id: run.id,
    stop_id: stop.id,
    by: caller.by,
  } as const;
  const r = await deps.runtime.ask(customsCrossingActor, caller.tenant, id, command);
  if (!r.ok && r.code === "not_found") return;
  if (!r.ok) throw new Refused(r);
  const { crossing } = r.reply;
  if (crossing.run_id === run.id && crossing.stop_id === stop.id) return;
  // Read again, as the outbox's withdrawal does: presented at this stop again since (back on
  // board, another request), the shipment stands in that presentation (spec: courier 3.4, 3.2).
  const presentation = { crossing_id: id, run_id: run.id, stop_id: stop.id };
  await withdrawnFromCrossing(deps.runtime, caller.tenant, {
    waybill,
    ...presentation,
    by: caller.by,
  }, deps.requestId);
}

/**
 * The presentation at a crossing of the stop's own (opened for this stop alone, it stays as it
 * is): withdrawn from the shipment unless customs holds it there or the vehicle crossed with it.
 */
async function withdrawStopOwn(
  deps: RunDeps,
  caller: RunCaller,
  at: { run: NetworkRun; stop: Stop; waybill: string },
): Promise<void> {
  const { run, stop, waybill } = at;
  const id = crossingIdOf(caller.tenant, waybill, run.id, stop.id);
  if (stop.crossings.includes(id)) return;
  const read = { kind: "get" } as const;
  const got = foundOrNull(await deps.runtime.read(customsCrossingActor, caller.tenant, id, read));
  const c = got?.crossing;
  if (!c || CUSTOMS_HOLDS.has(c.status)) return;
  if (c.exit_at !== null || c.entry_at !== null || c.vehicle_left_at !== null) return;
  const presentation = { crossing_id: id, run_id: run.id, stop_id: stop.id };
  await withdrawShipmentPresentation(deps.runtime, caller.tenant, {
    waybill,
    ...presentation,
    by: caller.by,
  }, deps.requestId);
}

/**
 * Items that left the run for another place (another run, a depot, back to origin, reported
 * missing or damaged): their shipment may be presented elsewhere. Delivered or handed to the
 * laboratory it is closed; customs holding it keeps its presentation (the crossing's rule).
 */
const LEFT: ReadonlySet<ItemState> = new Set([
  "transferred",
  "unloaded",
  "returned",
  "missing",
  "damaged",
]);

/** The shipment's crossings a run reads: the one opened at booking, one per border stop. */
export function crossingIdsOf(tenant: string, run: NetworkRun, waybill: string): string[] {
  return [
    bookingCrossingIdOf(tenant, waybill),
    ...run.stops.filter((s) => s.kind === "checkpoint")
      .map((s) => crossingIdOf(tenant, waybill, run.id, s.id)),
  ];
}
