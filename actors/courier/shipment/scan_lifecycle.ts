/**
 * The lifecycle after a scan (courier 3.2), whole: headline, milestones, per-piece custody,
 * exception, attempts, estimate, proof of delivery and health.
 */
import {
  estimateAfterSetback,
  FINAL_HEADLINES,
  healthOf,
  type OpenMilestone,
  openMilestone,
  type ScanEvent,
} from "../../../src/courier/rules/lifecycle.ts";
import { isSeparated, lifecycleOf, obligations, termsOf, TRAIL_MAX } from "./lifecycle.ts";
import { clipText, type Step } from "./scan_admission.ts";
import type { Lifecycle, PieceCustody, ScanEntry, ScanInput, Shipment } from "./types.ts";

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
export function lifecycleAfter(
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
