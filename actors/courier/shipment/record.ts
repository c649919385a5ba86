/**
 * A scan or custody move recorded on the shipment (courier 3.2): what it may be, the lifecycle
 * after it (headline, milestones, per-piece custody, attempts, estimate, health), and what it
 * calls for (a later charge, a stage reached, an alert).
 */
import { accept, reject, type Rejection, type TimerOp } from "../../../src/runtime/actor.ts";
import {
  estimateAfterSetback,
  FINAL_HEADLINES,
  healthOf,
  isCancellable,
  type OpenMilestone,
  openMilestone,
  scanCharge,
  type ScanEvent,
  STEPS,
} from "../../../src/courier/rules/lifecycle.ts";
import { chargeRetry } from "../../../src/courier/rules/charges_due.ts";
import { chargesDueOf } from "./charges.ts";
import {
  alertDue,
  isSeparated,
  lifecycleChanges,
  lifecycleOf,
  obligations,
  placesOf,
  termsOf,
  TRAIL_MAX,
} from "./lifecycle.ts";
import { presentedAfter, settledAfter } from "./presentation.ts";
import { stepsMet } from "./run_steps.ts";
import { scanGate } from "./scan_gates.ts";
import { timersFor } from "./timers.ts";
import type {
  ChargeDue,
  Decided,
  Lifecycle,
  PieceCustody,
  ScanEntry,
  ScanInput,
  Shipment,
  ShipmentCommand,
  ShipmentEvent,
} from "./types.ts";

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

type Step = typeof STEPS[ScanEvent];

/** Scans that say why: an exception, a loss, a cancellation, a hold, papers asked for. */
const NEEDS_REASON: ReadonlySet<ScanEvent> = new Set([
  "exception",
  "customs_refused",
  "lost_or_damaged",
  "cancelled",
  "customs_hold",
  "documents_requested",
]);

function clipText(v: string | null | undefined): string | null {
  const t = v?.trim();
  return t ? t.slice(0, SCAN_TEXT_CHARS_MAX) : null;
}

export function record(
  state: Shipment,
  command: Extract<ShipmentCommand, { kind: "record" }>,
  now: number,
): Decided {
  const { scan } = command;
  const admitted = admit(state, scan, now);
  if (!admitted.ok) return admitted;
  const held = scanGate(state, command.customs_gate);
  if (held) return held;
  const order = command.ordered === true ? outOfOrder(state, scan.event) : null;
  if (order) return order;
  const { step, entry } = admitted;
  // spec: courier 3.4: a run's step under way is recorded or voided before the shipment closes.
  const met = stepsMet(state, {
    closes: closes(step),
    key: command.step,
    voiding: command.voiding,
  });
  if (!Array.isArray(met)) return met as Rejection;
  const after = lifecycleAfter(state, scan, step, entry, now);
  const lifecycle = settledAfter(state, command, presentedAfter(state, command, after, now), now);
  const scanned = scanEvents(state, entry, lifecycle, now);
  const { due } = scanned;
  const events = [...scanned.events, ...met];
  const timers: TimerOp[] = timersFor({ ...state, ...lifecycle }, state);
  // The first charge due arms the retry; one already due has armed it.
  if (due && chargesDueOf(state).length === 0) timers.push(chargeRetry(now));
  return accept(events, (next) => next!, timers);
}

/** The scan's step and trail line, or why the shipment refuses it. */
function admit(
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
function outOfOrder(state: Shipment, event: ScanEvent): Rejection | null {
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
function closes(step: Step): boolean {
  return step.headline !== undefined && FINAL_HEADLINES.has(step.headline);
}

/** Whether the scan touches the piece (no pieces named: every piece). */
function touches(entry: ScanEntry, id: string): boolean {
  return entry.pieces === null || entry.pieces.includes(id);
}

/** Scans that open an exception with their reason (a customs refusal is one: courier 3.2). */
const EXCEPTIONS: ReadonlySet<ScanEvent> = new Set([
  "exception",
  "customs_refused",
  "lost_or_damaged",
]);

/** The lifecycle after the scan, whole. */
function lifecycleAfter(
  state: Shipment,
  scan: ScanInput,
  step: Step,
  entry: ScanEntry,
  now: number,
): Lifecycle {
  const custody = step.physical ? custodyAfter(state.pieces, entry, now) : state.pieces;
  const exception = EXCEPTIONS.has(scan.event)
    ? { reason: entry.reason!, at: now }
    : scan.event === "exception_cleared"
    ? null
    : state.exception;
  const status = step.headline ?? state.status;
  const final = FINAL_HEADLINES.has(status);
  const separated = !final && exception === null && isSeparated(custody);
  // spec: courier 3.2: a failed attempt opens redelivery, which only going out again closes:
  // while it is open, the attempt scanned again is the same attempt (and the same redelivery).
  const attempted = scan.event === "delivery_attempted" &&
    !state.milestones.some((m) => m.name === "redelivery");
  const estimate = attempted
    ? estimateAfterSetback(termsOf(state).calendar, state.estimated_delivery_on, now)
    : state.estimated_delivery_on;
  const milestones = final ? [] : milestonesAfter(state, step, entry, now);
  const partial = { status, exception, milestones };
  const verdict = healthOf(partial, now);
  return {
    ...lifecycleOf(state),
    ...partial,
    health: verdict.health,
    health_reason: verdict.reason,
    pieces: custody,
    trail: [...state.trail, entry].slice(-TRAIL_MAX),
    trail_total: state.trail_total + 1,
    last_scan: step.physical
      ? { event: scan.event, at: now, facility_id: entry.facility_id, note: entry.note }
      : state.last_scan,
    estimated_delivery_on: estimate,
    attempts: state.attempts + (attempted ? 1 : 0),
    delivered_at: scan.event === "delivered" ? now : state.delivered_at,
    pod: scan.event === "delivered"
      ? { received_by: clipText(scan.received_by), note: entry.note }
      : state.pod,
    closed_at: final ? now : null,
    separated_since: separated ? state.separated_since ?? now : null,
    ...obligations(milestones, status),
  };
}

/** The open milestones after the scan: the step's closed, its opened, papers marked supplied. */
function milestonesAfter(
  state: Shipment,
  step: Step,
  entry: ScanEntry,
  now: number,
): readonly OpenMilestone[] {
  const terms = termsOf(state);
  const closes = new Set(step.closes ?? []);
  let milestones = state.milestones.filter((m) => !closes.has(m.name));
  const atDestination = entry.event === "received_at_destination";
  // The same scan again: it moves neither the headline nor any piece to another facility.
  const repeated = (step.headline ?? state.status) === state.status &&
    !(entry.facility_id !== null &&
      state.pieces.some((p) => touches(entry, p.id) && p.facility_id !== entry.facility_id));
  for (const m of step.opens ?? []) {
    // spec: courier 3.2, 2.9: a milestone opens once, with its own deadline: a repeated scan
    // keeps the open one (never a later deadline, nor its alerts raised twice). Papers asked for
    // again after they were supplied open it afresh.
    const already = milestones.find((o) => o.name === m);
    if (already && already.supplied_at === null && repeated) continue;
    milestones = [
      ...milestones.filter((o) => o.name !== m),
      openMilestone(terms, m, now, { atDestination }),
    ];
  }
  if (entry.event === "documents_supplied") {
    milestones = milestones.map((m) =>
      m.name === "customs_documents" ? { ...m, supplied_at: now } : m
    );
  }
  return milestones;
}

/**
 * spec: courier 2.3: each piece has its own holder and facility. A holder taking a piece takes
 * it from the facility; a facility receiving it (with no holder named) takes it from whoever
 * brought it, so pieces together at one facility are in one place (2.9 pieces_separated).
 */
function custodyAfter(
  pieces: readonly PieceCustody[],
  entry: ScanEntry,
  now: number,
): readonly PieceCustody[] {
  return pieces.map((p) =>
    touches(entry, p.id)
      ? {
        ...p,
        holder: entry.holder ?? (entry.facility_id ? null : p.holder),
        facility_id: entry.facility_id ?? (entry.holder ? null : p.facility_id),
        last_scan_at: now,
      }
      : p
  );
}

/** The scan and what it calls for: a later charge, a stage, a moved estimate, alerts. */
function scanEvents(
  state: Shipment,
  entry: ScanEntry,
  lifecycle: Lifecycle,
  now: number,
): { events: ShipmentEvent[]; due: ChargeDue | null } {
  const changed = lifecycleChanges(lifecycleOf(state), lifecycle);
  const events: ShipmentEvent[] = [{ kind: "scanned", entry, changed }];
  // spec: courier 2.6 rule 3: a redelivery or a return is a later charge, due from this commit on.
  const attempts = lifecycle.attempts;
  const charge = scanCharge({ waybill: state.waybill, attempts }, entry.event);
  const due: ChargeDue | null = charge && {
    source_event: charge.source_event,
    scan: entry.event,
    attempts,
    by: entry.by,
  };
  if (due) events.push({ kind: "charge_due", charge: due });
  if (lifecycle.status !== state.status) {
    events.push({
      kind: "stage_reached",
      stage: lifecycle.status,
      at: now,
      occurrence: lifecycle.trail_total,
    });
  }
  const estimate = lifecycle.estimated_delivery_on;
  if (estimate !== state.estimated_delivery_on) {
    events.push({
      kind: "estimate_changed",
      from: state.estimated_delivery_on,
      to: estimate,
      at: now,
    });
  }
  events.push(...scanAlerts(state, entry, lifecycle, now));
  return { events, due };
}

/** Alerts a scan raises (courier 2.9): pieces newly separated; papers newly asked for. */
function scanAlerts(
  state: Shipment,
  entry: ScanEntry,
  lifecycle: Lifecycle,
  now: number,
): ShipmentEvent[] {
  const alerts: ShipmentEvent[] = [];
  if (lifecycle.separated_since !== null && state.separated_since === null) {
    alerts.push(
      alertDue(
        state,
        "pieces_separated",
        `separated:${now}`,
        "courier",
        `the pieces of ${state.waybill} are in different places with no exception recorded`,
        { places: placesOf(lifecycle.pieces) },
      ),
    );
  }
  // spec: courier 2.9: documents_missing only when customs asked for papers, not on any hold; and
  // once while they are missing: asked for again before they were supplied is the same condition.
  const papersOwed = state.milestones.some((m) =>
    m.name === "customs_documents" && m.supplied_at === null
  );
  if (entry.event === "documents_requested" && !papersOwed) {
    const reason = entry.reason;
    alerts.push(
      alertDue(
        state,
        "documents_missing",
        `documents:${now}`,
        "courier",
        `customs holds ${state.waybill} for documents: ${reason}`,
        { reason },
      ),
    );
  }
  return alerts;
}
