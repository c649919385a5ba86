/**
 * The shipment's one durable timer (courier 2.9, 2.3): set at the earliest check its lifecycle
 * needs (a milestone at risk or overdue, a silence, another working day over the customs wait,
 * the estimated delivery day over), and moved only when that instant moves.
 */
import type { TimerOp } from "../../../src/runtime/actor.ts";
import {
  collectionCountsFrom,
  dayEndsAt,
  deliveryEstimateMoves,
} from "../../../src/courier/rules/lifecycle.ts";
import { addWorkingHours } from "../../../src/domain/working_hours.ts";
import { SHIPMENT_OPEN_MS_MAX } from "../../../src/limits.ts";
import { termsOf } from "./lifecycle.ts";
import type { Shipment } from "./types.ts";

export const NO_SCAN_TIMER = "no_scan";
export const CUSTOMS_TIMER = "customs_over";
/** The estimated delivery day is over without delivery: the estimate moves (courier 2.3, 3.2). */
export const ESTIMATE_TIMER = "estimate_passed";

/**
 * spec: courier 2.9 no_scan: the silence counts from the last physical scan; before the first,
 * from when collection is owed (collectionCountsFrom), as no scan can be owed before that.
 */
export function noScanSince(s: Shipment): number {
  return s.last_scan?.at ??
    collectionCountsFrom(termsOf(s).calendar, s.booked_at, s.pricing.promise.collection_on);
}

/**
 * Whether the no_scan alert for the silence since `since` was raised. Before the first scan
 * there is one silence, whatever instant it was counted from when raised (shipments booked
 * before it counted from collection counted from booking).
 */
export function noScanRaised(s: Shipment, since: number): boolean {
  return s.no_scan_raised_for === since || (s.last_scan === null && s.no_scan_raised_for !== null);
}

/** The durable timers a lifecycle needs, by name and instant. */
export function wantedTimers(s: Shipment): Map<string, number> {
  const wanted = new Map<string, number>();
  if (s.closed_at !== null) return wanted;
  for (const m of s.milestones) {
    // spec: courier 2.9: an alert is owned by whoever must act; papers supplied, the courier's
    // customs_documents waits on customs' clearance (3.2), whose own deadline speaks.
    if (m.supplied_at !== null) continue;
    if (!m.at_risk_raised) wanted.set(`risk:${m.name}`, m.at_risk_at);
    if (!m.overdue_raised) wanted.set(`due:${m.name}`, m.due_at);
  }
  const terms = termsOf(s);
  const since = noScanSince(s);
  if (!noScanRaised(s, since)) {
    wanted.set(NO_SCAN_TIMER, addWorkingHours(terms.calendar, since, terms.no_scan_hours));
  }
  const customs = s.milestones.find((m) => m.name === "customs_clearance");
  if (customs?.overdue_raised && s.customs_check_at) {
    // Once per working day over (2.9): counted again as each local day begins.
    wanted.set(CUSTOMS_TIMER, s.customs_check_at);
  }
  // spec: courier 2.3: estimated_delivery_on never lies in the past while the shipment is open,
  // within its open time (1.4, 8: SHIPMENT_OPEN_MS_MAX, or its promise if later); past that, its
  // overdue alerts speak, and nothing wakes it every night.
  const estimateEnds = dayEndsAt(terms.calendar, s.estimated_delivery_on);
  const openUntil = Math.max(
    s.booked_at + SHIPMENT_OPEN_MS_MAX,
    dayEndsAt(terms.calendar, s.pricing.promise.latest_delivery),
  );
  if (estimateEnds <= openUntil && deliveryEstimateMoves(s.status)) {
    wanted.set(ESTIMATE_TIMER, estimateEnds);
  }
  return wanted;
}

/**
 * One durable timer, at the earliest check the shipment needs: every booking and scan would
 * otherwise set and move a timer per milestone and alert, each a key written in the store.
 */
const CHECK_TIMER = "check";

/** The earliest check due after `after`. */
function nextCheckAt(s: Shipment, after = -Infinity): number | null {
  let next: number | null = null;
  for (const at of wantedTimers(s).values()) {
    if (at > after && (next === null || at < next)) next = at;
  }
  return next;
}

/** After a check: the fired timer is gone, so the next one is set whatever it was before. */
export function rearm(s: Shipment, now: number): TimerOp[] {
  const next = nextCheckAt(s, now);
  return next === null ? [] : [{ op: "set", name: CHECK_TIMER, at: next }];
}

/** Only what changed: the check timer is set when its instant moved, cancelled when none is due. */
export function timersFor(next: Shipment, prev: Shipment | null = null): TimerOp[] {
  const before = prev && !estimateOnly(prev) ? nextCheckAt(prev) : null;
  const after = nextCheckAt(next);
  if (after === before) return [];
  return [
    after === null
      ? { op: "cancel", name: CHECK_TIMER }
      : { op: "set", name: CHECK_TIMER, at: after },
  ];
}

/**
 * Whether the end of the estimated day is the only check the shipment waits for. A shipment
 * stored before that check existed had no timer left then (every alert raised): it is armed again
 * rather than assumed set.
 */
function estimateOnly(s: Shipment): boolean {
  const wanted = wantedTimers(s);
  return wanted.size === 1 && wanted.has(ESTIMATE_TIMER);
}
