/**
 * An operations' scan moving the shipment on (out for delivery, attempted, delivered) and a
 * customs hold, one after the other (courier 3.4: a parcel customs holds does not move on). The
 * scan reserves each of the shipment's crossings under its token before the shipment records it
 * (refused while customs holds it: actors/courier/customs_crossing/delivery.ts); a hold meeting
 * the reservation has the shipment refuse the token first (here, in the shipment's turn), so the
 * scan recorded after under it is refused. A scan the shipment recorded first stands, and the
 * hold follows it as before.
 */
import { accept, reject, type Rejection } from "../../../src/runtime/actor.ts";
import type { Decided, Shipment } from "./types.ts";

/** Refused scan tokens kept: only a scan still in flight can present one. */
export const REFUSED_SCANS_MAX = 20;

export function refuseScans(state: Shipment, tokens: readonly string[]): Decided {
  const kept = state.refused_scans ?? [];
  const fresh = [...new Set(tokens)].filter((t) => !kept.includes(t));
  if (fresh.length === 0) return accept([], (next) => next!);
  const dropped = kept.slice(0, Math.max(0, kept.length + fresh.length - REFUSED_SCANS_MAX));
  return accept([{ kind: "scans_refused", tokens: fresh, dropped }], (next) => next!);
}

/** Null: the scan under `token` may be recorded; refused once a hold refused it. */
export function scanGate(state: Shipment, token: string | undefined): Rejection | null {
  if (token === undefined || !(state.refused_scans ?? []).includes(token)) return null;
  return reject(
    "held_by_customs",
    `${state.waybill} is held by customs: customs held it while it was being scanned`,
  );
}
