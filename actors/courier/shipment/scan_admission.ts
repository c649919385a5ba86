/**
 * What a scan may be (courier 3.2): the step it records and its trail line, or why the shipment
 * refuses it (closed, not cancellable, no reason, unknown or missing pieces, out of order).
 */
import { reject, type Rejection } from "../../../src/runtime/actor.ts";
import {
  FINAL_HEADLINES,
  isCancellable,
  type ScanEvent,
  STEPS,
} from "../../../src/courier/rules/lifecycle.ts";
import type { ScanEntry, ScanInput, Shipment } from "./types.ts";

/** Scans that move a parcel on to its recipient: none while customs holds it. */
export const DELIVERY_SCANS: ReadonlySet<ScanEvent> = new Set([
  "out_for_delivery",
  "delivery_attempted",
  "delivered",
]);

/** Scans that claim what customs did: only of a shipment with a crossing. */
const CUSTOMS_OUTCOMES: ReadonlySet<ScanEvent> = new Set([
  "documents_supplied",
  "cleared",
  "released",
  "customs_refused",
]);

/** Headlines and milestones of a customs step the shipment was presented to (courier 3.2). */
const CUSTOMS_HEADLINES: ReadonlySet<string> = new Set([
  "at_border",
  "customs_processing",
  "customs_hold",
  "cleared",
]);

/**
 * Whether the shipment has a customs crossing: cross-border, its crossing opens at booking
 * (CONTRACT: one crossing at booking; customs may clear it before presentation), or a customs
 * step recorded by scans (at the border, presented, held, cleared, papers owed).
 */
function hasCrossing(state: Shipment): boolean {
  return state.from_country !== state.to_country || CUSTOMS_HEADLINES.has(state.status) ||
    state.milestones.some((m) => m.name === "customs_clearance" || m.name === "customs_documents");
}

/** Scan texts (notes, reasons, holders, facility ids) are short. */
export const SCAN_TEXT_CHARS_MAX = 500;

export type Step = typeof STEPS[ScanEvent];

/** Scans that say why: an exception, a loss, a cancellation, a hold, papers asked for. */
const NEEDS_REASON: ReadonlySet<ScanEvent> = new Set([
  "exception",
  "customs_refused",
  "lost_or_damaged",
  "cancelled",
  "customs_hold",
  "documents_requested",
]);

export function clipText(v: string | null | undefined): string | null {
  const t = v?.trim();
  return t ? t.slice(0, SCAN_TEXT_CHARS_MAX) : null;
}

/** The scan's step and trail line, or why the shipment refuses it. */
export function admit(
  state: Shipment,
  scan: ScanInput,
  now: number,
): Rejection | { readonly ok: true; readonly step: Step; readonly entry: ScanEntry } {
  const step = STEPS[scan.event];
  if (!step) return reject("invalid_scan", `unknown scan event: ${scan.event}`);
  if (FINAL_HEADLINES.has(state.status)) {
    return reject("shipment_closed", `the shipment is ${state.status}: nothing more is recorded`);
  }
  if (scan.event === "cancelled" && !isCancellable(state)) {
    const why = state.last_scan === null ? state.status : `${state.status} and scanned`;
    return reject("not_cancellable", `a shipment ${why} can no longer be cancelled`);
  }
  const reason = clipText(scan.reason);
  if (NEEDS_REASON.has(scan.event) && reason === null) {
    return reject("reason_required", `${scan.event} needs a reason`);
  }
  const known = new Set(state.pieces.map((p) => p.id));
  const pieces = scan.pieces && scan.pieces.length > 0 ? [...new Set(scan.pieces)] : null;
  const unknown = pieces?.find((p) => !known.has(p));
  if (unknown) return reject("unknown_piece", `no such piece on ${state.waybill}: ${unknown}`);
  // spec: courier 2.3, 2.9: each piece has its own custody. A scan that closes the shipment
  // (delivered, returned) for some pieces would close it with the others still out, and no
  // pieces_separated could ever be raised for them: it names every piece, or none.
  const left = pieces && closes(step) ? state.pieces.filter((p) => !pieces.includes(p.id)) : [];
  if (left.length > 0) {
    return reject(
      "pieces_incomplete",
      `${scan.event} closes ${state.waybill} and names every piece or none; not named: ${
        left.map((p) => p.id).join(", ")
      }`,
    );
  }
  const entry: ScanEntry = {
    at: now,
    event: scan.event,
    facility_id: clipText(scan.facility_id),
    holder: clipText(scan.holder),
    note: clipText(scan.note),
    reason,
    pieces,
    by: scan.by,
  };
  return { ok: true, step, entry };
}

/**
 * spec: courier 3.2 (transitions not shown), 2.6 rule 3: only the scans that would owe a later
 * charge for what cannot have happened are refused. An attempt is made out for delivery (scanned
 * again while its redelivery is open, it is the same attempt); a return needs a parcel the
 * courier has had (a shipment it could still cancel never left the sender).
 */
export function outOfOrder(state: Shipment, event: ScanEvent): Rejection | null {
  // spec: courier 3.4: a parcel customs holds does not move on (as runs refuse, refuseIfHeld).
  if (state.status === "customs_hold" && DELIVERY_SCANS.has(event)) {
    return reject(
      "held_by_customs",
      `${state.waybill} is held by customs and cannot be ${event}: its headline is customs_hold`,
    );
  }
  if (CUSTOMS_OUTCOMES.has(event) && !hasCrossing(state)) {
    return reject(
      "scan_out_of_order",
      `${event} needs a customs crossing: ${state.waybill} is ${state.status} with no customs ` +
        `crossing (domestic, never presented to customs)`,
    );
  }
  const attempt = event === "delivery_attempted" &&
    state.status !== "out_for_delivery" && state.status !== "awaiting_redelivery";
  const returned = event === "returned" && isCancellable(state);
  if (!attempt && !returned) return null;
  return reject(
    "scan_out_of_order",
    `${event} cannot follow the shipment's headline: ${state.waybill} is ${state.status}` +
      (returned ? " and never left the sender" : ", not out for delivery"),
  );
}

/** Whether the step closes the shipment (nothing more is recorded after it). */
export function closes(step: Step): boolean {
  return step.headline !== undefined && FINAL_HEADLINES.has(step.headline);
}
