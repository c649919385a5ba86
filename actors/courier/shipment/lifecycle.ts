/**
 * The shipment's lifecycle as a value (courier 1.4, 3.2): how it starts at booking, its next
 * obligation, where its pieces are, and the alerts it calls for.
 */
import {
  collectionCountsFrom,
  type Headline,
  healthOf,
  type LifecycleTerms,
  nextObligation,
  type OpenMilestone,
  openMilestone,
  promiseDueAt,
} from "../../../src/courier/rules/lifecycle.ts";
import type { AlertKind } from "../alert.ts";
import type {
  Lifecycle,
  LifecycleChanges,
  PieceCustody,
  Shipment,
  ShipmentBooking,
  ShipmentEvent,
} from "./types.ts";

/** Trail lines kept in state; `trail_total` counts all (the event log keeps every one). */
export const TRAIL_MAX = 200;

/** The terms deadlines need, from the frozen service terms (courier 2.8). */
export function termsOf(s: ShipmentBooking): LifecycleTerms {
  return s.service_terms as unknown as LifecycleTerms;
}

/** The lifecycle a shipment starts with at booking: collection and the promise open. */
export function startLifecycle(b: ShipmentBooking): Lifecycle {
  const terms = termsOf(b);
  const pieces = b.parcels.map((_, i) => ({
    id: `${b.waybill}-${i + 1}`,
    holder: null,
    facility_id: null,
    last_scan_at: null,
  }));
  const milestones = [
    openMilestone(terms, "collection", b.booked_at, {
      countFrom: collectionCountsFrom(terms.calendar, b.booked_at, b.pricing.promise.collection_on),
    }),
    openMilestone(terms, "promise", b.booked_at, {
      dueAt: promiseDueAt(terms.calendar, b.pricing.promise.latest_delivery),
    }),
  ];
  const base = {
    status: "booked" as Headline,
    exception: null,
    milestones,
  };
  const verdict = healthOf(base, b.booked_at);
  return {
    ...base,
    health: verdict.health,
    health_reason: verdict.reason,
    pieces,
    trail: [],
    trail_total: 0,
    last_scan: null,
    estimated_delivery_on: b.pricing.promise.earliest_delivery,
    attempts: 0,
    delivered_at: null,
    pod: null,
    closed_at: null,
    customs_days_alerted: 0,
    no_scan_raised_for: null,
    separated_since: null,
    ...obligations(milestones, base.status),
  };
}

/** The next obligation and the earliest deadline of a set of open milestones. */
export function obligations(milestones: readonly OpenMilestone[], status: Headline) {
  const next = nextObligation(milestones);
  const first = milestones.reduce<number | null>(
    (min, m) => min === null || m.due_at < min ? m.due_at : min,
    null,
  );
  return {
    next_milestone: next?.name ?? null,
    next_due_at: next?.due_at ?? null,
    // Going back to the sender with no leg open, the courier still owes the way back (the board
    // and report count it under the courier, not under nobody).
    next_owner: next?.owner ?? (status === "returning" ? "courier" as const : null),
    first_due_at: first,
  };
}

/** The lifecycle part of a shipment, as a scan or a check carries it whole. */
export function lifecycleOf(s: Shipment): Lifecycle {
  return {
    status: s.status,
    health: s.health,
    health_reason: s.health_reason,
    pieces: s.pieces,
    trail: s.trail,
    trail_total: s.trail_total,
    last_scan: s.last_scan,
    milestones: s.milestones,
    exception: s.exception,
    estimated_delivery_on: s.estimated_delivery_on,
    attempts: s.attempts,
    delivered_at: s.delivered_at,
    pod: s.pod,
    closed_at: s.closed_at,
    customs_days_alerted: s.customs_days_alerted,
    customs_check_at: s.customs_check_at ?? null,
    no_scan_raised_for: s.no_scan_raised_for,
    separated_since: s.separated_since,
    next_milestone: s.next_milestone,
    next_due_at: s.next_due_at,
    next_owner: s.next_owner,
    first_due_at: s.first_due_at,
    // Absent on a shipment never presented at a run's border stop (and on those stored before).
    ...(s.presentation === undefined ? {} : { presentation: s.presentation }),
    ...(s.presentations_withdrawn === undefined
      ? {}
      : { presentations_withdrawn: s.presentations_withdrawn }),
  };
}

/**
 * What an event carries of the lifecycle after a scan or check: the fields that changed (an
 * unchanged one keeps its value, or the very object, from before), and always status and health.
 */
export function lifecycleChanges(before: Lifecycle, after: Lifecycle): LifecycleChanges {
  const changed: Record<string, unknown> = { status: after.status, health: after.health };
  for (const [key, value] of Object.entries(after)) {
    if (key === "trail" || key === "trail_total") continue;
    if (value !== before[key as keyof Lifecycle]) changed[key] = value;
  }
  return changed as LifecycleChanges;
}

/** The distinct places (facility and holder) the pieces are in. */
export function placesOf(pieces: readonly PieceCustody[]): string[] {
  return [...new Set(pieces.map((p) => `${p.facility_id ?? "-"}|${p.holder ?? "-"}`))];
}

/**
 * spec: courier 2.9 pieces_separated: the pieces are in more than one place once any has moved.
 * A piece no scan has moved is still where it was booked from: collected without it, the other
 * is in another place, as the board's count of places (4.4) says. Before, only pieces scanned
 * were compared, so a piece left at the sender raised nothing at all.
 */
export function isSeparated(pieces: readonly PieceCustody[]): boolean {
  return pieces.some((p) => p.last_scan_at !== null) && placesOf(pieces).length > 1;
}

/** An alert the shipment calls for (2.9), keyed by its waybill and condition. */
export function alertDue(
  s: ShipmentBooking,
  kind: AlertKind,
  key: string,
  owner: string,
  message: string,
  detail: Record<string, unknown> = {},
): ShipmentEvent {
  return {
    kind: "alert_due",
    alert: { kind, condition_key: `${s.waybill}:${key}`, owner, message, detail },
  };
}
