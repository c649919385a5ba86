/**
 * A hold and a run's step on the shipment, one after the other (courier 3.4: a shipment customs
 * holds is neither delivered, attempted, nor moved to another run). The run's request reserves
 * the crossing before the run records the step (refused while customs holds, asked papers for,
 * or refused the shipment); a hold, request for papers or refusal meeting a step under way waits
 * until that run voided it in its own turn (so the step, recorded after, is refused), then names
 * it (`voiding`). A step the run recorded first stands, and the hold follows it as before.
 */
import { accept, reject, type Rejection } from "../../../src/runtime/actor.ts";
import type { Crossing, CrossingEvent, Decided, DeliveryUnderWay, MoveInput } from "./types.ts";
import { SCANS_UNDER_WAY_MAX } from "./limits.ts";
import { crossingOf } from "./views.ts";

/**
 * The crossing statuses that keep a shipment where customs has it (spec: courier 3.4 "customs
 * hold (held by customs)"): held, held for papers, or turned back.
 */
export const CUSTOMS_HOLDS: ReadonlySet<Crossing["status"]> = new Set([
  "held",
  "documents_requested",
  "refused",
]);
/** The moves that keep it. */
const HOLDS: ReadonlySet<MoveInput["action"]> = new Set(["hold", "request_documents", "refuse"]);
/** The moves that let it go on (its follow-up may send it out for delivery past the border). */
const ONWARDS: ReadonlySet<MoveInput["action"]> = new Set(["clear", "release"]);

export function reserveDelivery(state: Crossing, delivery: DeliveryUnderWay): Decided {
  if (delivery.while_held && !CUSTOMS_HOLDS.has(state.status)) {
    return reject(
      "not_held_by_customs",
      `crossing ${state.id} is ${state.status}: customs does not hold ${state.waybill}`,
    );
  }
  if (!delivery.while_held && CUSTOMS_HOLDS.has(state.status)) {
    return reject(
      "held_by_customs",
      `crossing ${state.id} is ${state.status}: customs holds ${state.waybill}`,
    );
  }
  if (state.delivery_under_way?.token === delivery.token) {
    return accept([], (next) => crossingOf(next!));
  }
  return accept([{ kind: "delivery_reserved", delivery }], (next) => crossingOf(next!));
}

/**
 * An operations' scan moving the shipment on (out for delivery, attempted, delivered) reserves
 * the crossing under its token before the shipment records it, beside a run's delivery (which
 * keeps its own slot): refused while customs holds the shipment. A hold meeting it has the
 * shipment refuse that token first (src/courier/flows/customs_moves.ts), then names it.
 */
export function reserveScan(state: Crossing, token: string): Decided {
  if (CUSTOMS_HOLDS.has(state.status)) {
    return reject(
      "held_by_customs",
      `crossing ${state.id} is ${state.status}: customs holds ${state.waybill}`,
    );
  }
  const scans = state.scans_under_way ?? [];
  if (scans.includes(token)) return accept([], (next) => crossingOf(next!));
  const dropped = scans.slice(0, Math.max(0, scans.length + 1 - SCANS_UNDER_WAY_MAX));
  return accept([{ kind: "scan_reserved", token, dropped }], (next) => crossingOf(next!));
}

/**
 * Null: the move may be decided. A hold meeting operations' scans under way, or a delivery under
 * way, is refused, naming them, unless it names them refused by the shipment (scans) or voided
 * by their run (the delivery); then they are no longer under way.
 */
export function deliveryGate(
  state: Crossing,
  m: MoveInput,
): Rejection | { readonly voided: CrossingEvent[] } {
  const under = state.delivery_under_way ?? null;
  if (ONWARDS.has(m.action)) return heldReportGate(state, under, m);
  if (!HOLDS.has(m.action)) return { voided: [] };
  const scans = state.scans_under_way ?? [];
  const open = scans.filter((t) => !(m.voiding_scans ?? []).includes(t));
  if (open.length > 0) {
    return reject(
      "scan_under_way",
      `operations are recording a scan of ${state.waybill}`,
      { waybill: state.waybill, scans: open },
    );
  }
  const voided: CrossingEvent[] = scans.length > 0 ? [{ kind: "scans_voided", tokens: scans }] : [];
  // A customs_hold report under way stands with any hold.
  if (under === null || under.while_held) return { voided };
  if (m.voiding === under.token) {
    return { voided: [...voided, { kind: "delivery_voided", token: under.token }] };
  }
  return reject(
    "delivery_under_way",
    `run ${under.run_id} is recording the delivery or transfer of ${state.waybill}`,
    { ...under },
  );
}

/**
 * spec: courier 3.4: one state for the parcel. A clearance or release meeting a report of the
 * shipment as customs_hold under way waits until that run voided it in its own turn (the report
 * recorded after is refused `not_held_by_customs`), so its follow-up never sends on a parcel the
 * run ends held; one the run recorded first stands, and the follow-up leaves it as the run ended.
 */
function heldReportGate(
  state: Crossing,
  under: DeliveryUnderWay | null,
  m: MoveInput,
): Rejection | { readonly voided: CrossingEvent[] } {
  if (!under?.while_held) return { voided: [] };
  if (m.voiding === under.token) {
    return { voided: [{ kind: "delivery_voided", token: under.token }] };
  }
  return reject(
    "delivery_under_way",
    `run ${under.run_id} is recording ${state.waybill} held by customs`,
    { ...under },
  );
}
