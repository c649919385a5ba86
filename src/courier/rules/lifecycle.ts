/**
 * A shipment's life after booking (courier 1.4, 3.2): headline status, milestones with their own
 * deadline and owner, health in the order of 3.2, the next obligation, and per-piece custody.
 * Pure: instants are epoch milliseconds passed in; deadlines count working hours on the
 * calendar frozen with the service terms (working_hours.ts).
 */
import { addWorkingDays, type WorkingCalendar } from "../../domain/calendar.ts";
import type { ChargeKind } from "./ledger.ts";
import { addWorkingHours, workingMsBetween } from "../../domain/working_hours.ts";

/** spec: courier 3.2: headline values (what customers see). */
export const HEADLINES = [
  "booked",
  "awaiting_collection",
  "collected",
  "at_origin_facility",
  "in_transit",
  "at_border",
  "customs_processing",
  "customs_hold",
  "cleared",
  "at_destination_facility",
  "out_for_delivery",
  "delivery_attempted",
  "awaiting_redelivery",
  "delivered",
  "returning",
  "returned",
  "cancelled",
  "lost_or_damaged",
] as const;
export type Headline = typeof HEADLINES[number];

/** spec: courier 3.2: health values (what operations sees). */
export const HEALTHS = [
  "on_schedule",
  "at_risk",
  "late",
  "waiting_customer",
  "waiting_customs",
  "waiting_courier",
  "exception",
  "delivered",
  "closed",
] as const;
export type Health = typeof HEALTHS[number];

/** spec: courier 3.2 milestone table. */
export const MILESTONES = [
  "collection",
  "depot_dwell",
  "linehaul",
  "border_presentation",
  "customs_clearance",
  "customs_documents",
  "delivery_attempt",
  "redelivery",
  "promise",
] as const;
export type Milestone = typeof MILESTONES[number];
/** Who must act next on a shipment (courier 3.2 milestones, owner column). */
export const OWNER_ROLES = ["courier", "customs", "recipient"] as const;
export type Owner = typeof OWNER_ROLES[number];

/** The service terms a shipment froze at booking (courier 2.8), as far as deadlines need them. */
/** The hours a service level allows each milestone (courier 2.8, 3.2). */
export interface ServiceHours {
  readonly collection_due_hours: number;
  readonly depot_dwell_hours: number;
  readonly border_presentation_hours: number;
  readonly customs_wait_hours: number;
  readonly linehaul_hours: number;
  readonly destination_dwell_hours: number;
  readonly delivery_attempt_hours: number;
  readonly redelivery_due_hours: number;
  readonly no_scan_hours: number;
}

export interface LifecycleTerms extends ServiceHours {
  readonly at_risk_pct: number;
  readonly calendar: WorkingCalendar;
}

export interface OpenMilestone {
  readonly name: Milestone;
  readonly owner: Owner;
  readonly opened_at: number;
  readonly due_at: number;
  /** When `at_risk_pct` of the working window is used. */
  readonly at_risk_at: number;
  readonly at_risk_raised: boolean;
  readonly overdue_raised: boolean;
  /** customs_documents: the courier supplied the papers; customs now has them. */
  readonly supplied_at: number | null;
}

/** Scan and custody events operations (and later runs and drivers) record (courier 3.2). */
export const SCAN_EVENTS = [
  "scan",
  "collected",
  "received_at_depot",
  "loaded",
  "departed",
  "departed_to_border",
  "arrived",
  "arrived_at_border",
  "presented_to_customs",
  "customs_hold",
  "documents_requested",
  "documents_supplied",
  "cleared",
  "released",
  "received_at_destination",
  "out_for_delivery",
  "delivery_attempted",
  "delivered",
  "returning",
  "returned",
  "cancelled",
  "exception",
  "exception_cleared",
  "lost_or_damaged",
] as const;
export type ScanEvent = typeof SCAN_EVENTS[number];

interface Step {
  readonly headline?: Headline;
  readonly opens?: readonly Milestone[];
  readonly closes?: readonly Milestone[];
  /** A physical scan: it resets the no-scan clock and moves custody. */
  readonly physical: boolean;
}

/** What each event does: the milestone table of 3.2 read event by event. */
export const STEPS: Readonly<Record<ScanEvent, Step>> = {
  scan: { physical: true },
  collected: { headline: "collected", closes: ["collection"], physical: true },
  // spec: courier 3.2: linehaul closes when the shipment arrives or is received, at any depot
  // (a hub between legs too, not only the destination's).
  received_at_depot: {
    headline: "at_origin_facility",
    closes: ["collection", "linehaul"],
    opens: ["depot_dwell"],
    physical: true,
  },
  loaded: { closes: ["depot_dwell"], physical: true },
  departed: {
    headline: "in_transit",
    closes: ["collection", "depot_dwell"],
    opens: ["linehaul"],
    physical: true,
  },
  departed_to_border: {
    headline: "in_transit",
    closes: ["collection", "depot_dwell"],
    opens: ["linehaul", "border_presentation"],
    physical: true,
  },
  // spec: courier 3.2: linehaul closes when the run arrives; the depot's receipt opens its dwell.
  arrived: { closes: ["linehaul"], physical: true },
  arrived_at_border: { headline: "at_border", closes: ["linehaul"], physical: true },
  presented_to_customs: {
    headline: "customs_processing",
    closes: ["border_presentation", "linehaul"],
    opens: ["customs_clearance"],
    physical: true,
  },
  // spec: courier 3.2: customs_documents opens only when customs holds for papers. A plain hold
  // (inspection, x-ray) leaves customs_clearance open with customs: nothing is owed by the courier.
  customs_hold: { headline: "customs_hold", physical: false },
  documents_requested: {
    headline: "customs_hold",
    opens: ["customs_documents"],
    physical: false,
  },
  documents_supplied: { headline: "customs_processing", physical: false },
  cleared: {
    headline: "cleared",
    closes: ["customs_clearance", "customs_documents"],
    physical: false,
  },
  released: {
    headline: "cleared",
    closes: ["customs_clearance", "customs_documents"],
    physical: false,
  },
  received_at_destination: {
    headline: "at_destination_facility",
    closes: ["linehaul", "collection"],
    opens: ["depot_dwell"],
    physical: true,
  },
  out_for_delivery: {
    headline: "out_for_delivery",
    closes: ["depot_dwell", "redelivery", "collection"],
    opens: ["delivery_attempt"],
    physical: true,
  },
  delivery_attempted: {
    headline: "awaiting_redelivery",
    closes: ["delivery_attempt"],
    opens: ["redelivery"],
    physical: true,
  },
  delivered: { headline: "delivered", closes: [...MILESTONES], physical: true },
  // Decision (courier 3.2 is silent on returning): a parcel on its way back to the sender owes
  // the recipient nothing, so the milestones towards delivery close: the delivery attempt, the
  // recipient's redelivery and the delivery promise. The way back is the courier's (its legs, its
  // no-scan watch); nothing moves the delivery estimate any more (deliveryEstimateMoves).
  returning: {
    headline: "returning",
    closes: ["delivery_attempt", "redelivery", "promise"],
    physical: true,
  },
  returned: { headline: "returned", closes: [...MILESTONES], physical: true },
  cancelled: { headline: "cancelled", closes: [...MILESTONES], physical: false },
  exception: { physical: false },
  exception_cleared: { physical: false },
  lost_or_damaged: { headline: "lost_or_damaged", physical: false },
};

/** Headlines after which nothing is open any more. */
export const FINAL_HEADLINES: ReadonlySet<Headline> = new Set([
  "delivered",
  "returned",
  "cancelled",
]);

/** Cancelling is for a shipment not yet in the courier's hands. */
export const CANCELLABLE: ReadonlySet<Headline> = new Set(["booked", "awaiting_collection"]);

/**
 * Whether a shipment may still be cancelled: its headline says it is not yet in the courier's
 * hands, and no physical scan says otherwise. A generic `scan` leaves the headline at booked, yet
 * a parcel scanned is held by the courier (Business API 7: not_cancellable, cancel after pickup).
 * `last_scan` is the last physical scan, kept by every lifecycle stored, old ones too.
 */
export function isCancellable(s: { readonly status: Headline; readonly last_scan: unknown }) {
  return CANCELLABLE.has(s.status) && s.last_scan === null;
}

/**
 * spec: courier 2.3, 3.2: whether the delivery estimate still moves (and estimate_changed goes to
 * the client). Not while the parcel goes back to the sender: it will not be delivered, so a
 * nightly move of its delivery day would tell the client something untrue.
 */
export function deliveryEstimateMoves(status: Headline): boolean {
  return status !== "returning";
}

/**
 * The lifecycle's open milestones as the current rules leave them: one stored `returning` before
 * the returning rule (STEPS.returning) still held the recipient's milestones and the promise.
 */
export function openUnderRules(
  status: Headline,
  milestones: readonly OpenMilestone[],
): readonly OpenMilestone[] {
  if (status !== "returning") return milestones;
  const closed = new Set(STEPS.returning.closes);
  return milestones.some((m) => closed.has(m.name))
    ? milestones.filter((m) => !closed.has(m.name))
    : milestones;
}

/** A later charge a scan causes (courier 2.6 rule 3), as the client's ledger books it. */
export interface ScanCharge {
  readonly kind: ChargeKind;
  readonly reference: string;
  readonly reason: string;
  readonly evidence_path: string;
  /** The fact that caused it; it books once however often it is sent (2.6 rule 2). */
  readonly source_event: string;
}

/**
 * The later charge a scan on a shipment causes (courier 2.6 rule 3), or null: going out again
 * after a failed delivery attempt is a redelivery (one per failed attempt, however many scans
 * follow it), arriving back with the sender is a return (once). `s` is the shipment after the
 * scan: `attempts` counts the failed attempts so far.
 */
export function scanCharge(
  s: { readonly waybill: string; readonly attempts: number },
  event: ScanEvent,
): ScanCharge | null {
  if ((event === "out_for_delivery" || event === "delivered") && s.attempts > 0) {
    return {
      kind: "redelivery",
      reference: `RDL-${s.waybill}-${s.attempts}`,
      reason: `delivery attempt ${s.attempts + 1} after a failed attempt`,
      evidence_path: `shipment:${s.waybill}/attempt:${s.attempts}`,
      source_event: `shipment.redelivery:${s.waybill}:${s.attempts}`,
    };
  }
  if (event === "returned") {
    return {
      kind: "return",
      reference: `RET-${s.waybill}`,
      reason: `returned to the sender`,
      evidence_path: `shipment:${s.waybill}/returned`,
      source_event: `shipment.return:${s.waybill}`,
    };
  }
  return null;
}

const OWNERS: Readonly<Record<Milestone, Owner>> = {
  collection: "courier",
  depot_dwell: "courier",
  linehaul: "courier",
  border_presentation: "courier",
  customs_clearance: "customs",
  customs_documents: "courier",
  delivery_attempt: "courier",
  redelivery: "recipient",
  promise: "courier",
};

const HOUR_MS = 3_600_000;

/** The allowance of a milestone in working hours (courier 2.8); `atDestination` for dwell. */
export function allowanceHours(terms: LifecycleTerms, m: Milestone, atDestination: boolean) {
  switch (m) {
    case "collection":
      return terms.collection_due_hours;
    case "depot_dwell":
      return atDestination ? terms.destination_dwell_hours : terms.depot_dwell_hours;
    case "linehaul":
      return terms.linehaul_hours;
    case "border_presentation":
      return terms.border_presentation_hours;
    case "customs_clearance":
    case "customs_documents":
      return terms.customs_wait_hours;
    case "delivery_attempt":
      return terms.delivery_attempt_hours;
    case "redelivery":
      return terms.redelivery_due_hours;
    case "promise":
      return null;
  }
}

/**
 * A milestone opened at `at` with its deadline and at-risk point on the working calendar. Its
 * working window counts from `countFrom` (never before `at`: collectionCountsFrom), else `at`.
 */
export function openMilestone(
  terms: LifecycleTerms,
  m: Milestone,
  at: number,
  options: { atDestination?: boolean; dueAt?: number; countFrom?: number } = {},
): OpenMilestone {
  const cal = terms.calendar;
  const from = options.countFrom ?? at;
  const hours = allowanceHours(terms, m, options.atDestination ?? false);
  const due = options.dueAt ?? addWorkingHours(cal, from, hours ?? 0);
  // spec: courier 2.8: at risk once at_risk_pct of the working window is used.
  const windowMs = workingMsBetween(cal, from, due);
  const riskAt = addWorkingHours(cal, from, (windowMs * terms.at_risk_pct) / 100 / HOUR_MS);
  return {
    name: m,
    owner: OWNERS[m],
    opened_at: at,
    due_at: due,
    at_risk_at: Math.min(riskAt, due),
    at_risk_raised: false,
    overdue_raised: false,
    supplied_at: null,
  };
}

/** The promise's deadline: the end of `latest_delivery` in the calendar's timezone. */
export function promiseDueAt(cal: WorkingCalendar, latestDelivery: string): number {
  return dayEndsAt(cal, latestDelivery);
}

/**
 * spec: courier 2.2, 2.8: collection is owed from the promised collection day, not before: its
 * clock starts at the later of booking and the start of `collection_on` in the calendar's
 * timezone (booked after the cut-off, that is the next working day).
 */
export function collectionCountsFrom(
  cal: WorkingCalendar,
  bookedAt: number,
  collectionOn: string,
): number {
  return Math.max(bookedAt, dayStartsAt(cal, collectionOn));
}

/** The first instant of a day (`YYYY-MM-DD`) in the calendar's timezone. */
export function dayStartsAt(cal: WorkingCalendar, day: string): number {
  return localMidnight(cal.timezone, day, 0);
}

/** The instant a day (`YYYY-MM-DD`) is over in the calendar's timezone: the next local midnight. */
export function dayEndsAt(cal: WorkingCalendar, day: string): number {
  return localMidnight(cal.timezone, day, 1);
}

/** Midnights remembered, at most; the map starts afresh past this (bounded memory). */
const MIDNIGHTS_KEPT_MAX = 10_000;
const midnights = new Map<string, number>();

/**
 * The first instant of the day `daysAfter` days after `day`, in `timeZone`. Every booking asks
 * this for its promise and milestones, and Temporal's zone arithmetic cost about 20 µs of each
 * booking: the answer, fixed for a zone and a day, is remembered.
 */
function localMidnight(timeZone: string, day: string, daysAfter: 0 | 1): number {
  const key = `${timeZone}\u0000${day}\u0000${daysAfter}`;
  const known = midnights.get(key);
  if (known !== undefined) return known;
  const at = Temporal.PlainDate.from(day).add({ days: daysAfter })
    .toZonedDateTime({ timeZone }).epochMilliseconds;
  if (midnights.size >= MIDNIGHTS_KEPT_MAX) midnights.clear();
  midnights.set(key, at);
  return at;
}

/** What health needs to know of a shipment. */
export interface HealthInput {
  readonly status: Headline;
  readonly exception: { readonly reason: string } | null;
  readonly milestones: readonly OpenMilestone[];
}

export interface HealthVerdict {
  readonly health: Health;
  readonly reason: string;
}

/** spec: courier 3.2: the first that applies, in order, with the reason shown. */
export function healthOf(s: HealthInput, now: number): HealthVerdict {
  if (s.status === "delivered") return { health: "delivered", reason: "delivered" };
  if (FINAL_HEADLINES.has(s.status)) return { health: "closed", reason: s.status };
  if (s.exception) return { health: "exception", reason: `exception: ${s.exception.reason}` };
  if (s.status === "lost_or_damaged") return { health: "exception", reason: "lost or damaged" };
  const late = s.milestones
    .filter((m) => m.owner === "courier" && m.due_at <= now && m.supplied_at === null)
    .sort((a, b) => a.due_at - b.due_at)[0];
  if (late) {
    return { health: "late", reason: `${late.name} overdue since ${iso(late.due_at)}` };
  }
  const papers = s.milestones.find((m) => m.name === "customs_documents" && m.supplied_at === null);
  if (papers) return { health: "waiting_courier", reason: "customs papers to supply" };
  // Held by customs before a border stop presented it (no customs_clearance open yet): waiting
  // on customs all the same.
  const atCustoms = s.status === "customs_hold" ||
    s.milestones.some((m) => m.name === "customs_clearance" || m.name === "customs_documents");
  if (atCustoms) {
    return { health: "waiting_customs", reason: "waiting on customs" };
  }
  if (s.milestones.some((m) => m.owner === "recipient")) {
    return { health: "waiting_customer", reason: "waiting on the recipient to rebook delivery" };
  }
  const risky = s.milestones
    .filter((m) => m.at_risk_at <= now)
    .sort((a, b) => a.due_at - b.due_at)[0];
  if (risky) {
    return { health: "at_risk", reason: `${risky.name} due ${iso(risky.due_at)}` };
  }
  // The way back is the courier's own: on schedule reads as the return under way.
  const reason = s.status === "returning" ? "returning to the sender" : "on schedule";
  return { health: "on_schedule", reason };
}

/**
 * The next obligation: the open milestone due first (the promise only when nothing else is), save
 * one that waits on another, whatever their deadlines. spec: courier 3.2: while customs holds for
 * papers, clearance waits on the courier's customs_documents; papers supplied, the documents wait
 * on customs' clearance.
 */
export function nextObligation(milestones: readonly OpenMilestone[]): OpenMilestone | null {
  const papersOwed = milestones.some((m) =>
    m.name === "customs_documents" && m.supplied_at === null
  );
  const clearanceOpen = milestones.some((m) => m.name === "customs_clearance");
  const waits = (m: OpenMilestone) =>
    (m.name === "customs_clearance" && papersOwed) ||
    (m.name === "customs_documents" && !papersOwed && clearanceOpen);
  const rank = (m: OpenMilestone) => (waits(m) ? 1 : 0);
  const open = [...milestones].sort((a, b) => rank(a) - rank(b) || a.due_at - b.due_at);
  return open.find((m) => m.name !== "promise") ?? open[0] ?? null;
}

/** The delivery estimate after a setback: the next working day after `now`, never earlier. */
export function estimateAfterSetback(
  cal: WorkingCalendar,
  current: string,
  now: number,
): string {
  const today = Temporal.Instant.fromEpochMilliseconds(now).toZonedDateTimeISO(cal.timezone)
    .toPlainDate();
  const next = addWorkingDays(cal, today, 1).toString();
  return next > current ? next : current;
}

/**
 * spec: courier 2.3, 3.2: the delivery estimate never lies in the past. Once its day is over in the
 * calendar's timezone without delivery, it moves to the next working day not yet over: the first
 * working day after the estimated one, or today's (or the next) when the clock is further on.
 */
export function estimateAfterDayPassed(
  cal: WorkingCalendar,
  current: string,
  now: number,
): string {
  if (now < dayEndsAt(cal, current)) return current;
  const today = Temporal.Instant.fromEpochMilliseconds(now).toZonedDateTimeISO(cal.timezone)
    .toPlainDate();
  return addWorkingDays(cal, today, 0).toString();
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** The first instant of the next local day after `ms`, in the calendar's timezone. */
export function nextLocalDayStart(cal: WorkingCalendar, ms: number): number {
  return Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO(cal.timezone)
    .toPlainDate().add({ days: 1 }).toZonedDateTime({ timeZone: cal.timezone }).epochMilliseconds;
}
