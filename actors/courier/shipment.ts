/**
 * A courier shipment (courier 2.3): identified by its waybill, it keeps a frozen pricing snapshot
 * and the service-level terms of the moment it was booked; nothing later rewrites them. It can
 * stay open 1 to 14 days (courier 1.4): scans move its headline, per-piece custody and milestones
 * (3.2); durable timers at each milestone's at-risk point and deadline, and after a silence,
 * raise alerts (2.9) and move health; one at the end of the estimated delivery day moves the
 * estimate on (2.3). Timers only ever raise alerts and move the estimate: they never cancel,
 * release or complete a shipment (1.4).
 */
import {
  accept,
  type ActorDefinition,
  reject,
  type TimerOp,
  unreachable,
} from "../../src/runtime/actor.ts";
import {
  collectionCountsFrom,
  dayEndsAt,
  deliveryEstimateMoves,
  estimateAfterDayPassed,
  estimateAfterSetback,
  FINAL_HEADLINES,
  type Headline,
  type Health,
  healthOf,
  isCancellable,
  type LifecycleTerms,
  type Milestone,
  nextLocalDayStart,
  nextObligation,
  type OpenMilestone,
  openMilestone,
  openUnderRules,
  type Owner,
  promiseDueAt,
  scanCharge,
  type ScanEvent,
  STEPS,
} from "../../src/courier/rules/lifecycle.ts";
import { addWorkingHours, workingDaysOver } from "../../src/domain/working_hours.ts";
import { SHIPMENT_OPEN_MS_MAX } from "../../src/limits.ts";
import {
  CHARGE_TIMER,
  chargeRetry,
  confirmation,
  dueAgain,
  type DueCharge,
  withDue,
  withoutConfirmed,
} from "../../src/courier/rules/charges_due.ts";
import type { AlertKind } from "./alert.ts";
import type { PriceLine } from "../../src/courier/rules/pricing.ts";
import type { SettlementMode } from "../../src/courier/rules/settlement.ts";

/** spec: courier 2.3: rate-card version, inputs, service, every line, tax, currency, payer, promise. */
export interface FrozenPricing {
  readonly prices_reference: string;
  readonly rate_card_id: string;
  readonly rate_card_version: number;
  readonly service: { readonly code: string; readonly name: string };
  readonly chargeable_grams: number;
  readonly lines: readonly PriceLine[];
  readonly tax_minor: number;
  readonly total_minor: number;
  readonly currency: string;
  readonly payer: "client";
  readonly settlement_mode: SettlementMode;
  readonly promise: {
    readonly collection_on: string;
    readonly earliest_delivery: string;
    readonly latest_delivery: string;
  };
}

export interface ShipmentParty {
  readonly name: string | null;
  readonly address: string | null;
  readonly phone: string | null;
  readonly lat: number | null;
  readonly lng: number | null;
}

/** The shipment as booked: what the booking flow hands the actor. */
export interface ShipmentBooking {
  readonly waybill: string;
  readonly courier_id: string;
  readonly client_id: string;
  readonly booked_at: number;
  readonly booked_by: string;
  readonly from_country: string;
  readonly to_country: string;
  readonly sender: ShipmentParty;
  readonly recipient: ShipmentParty;
  readonly parcels: readonly {
    weight_kg: number;
    length_cm: number;
    width_cm: number;
    height_cm: number;
    /** What this parcel holds, when the booking says so per parcel (courier 4.6). */
    contents?: string;
  }[];
  readonly contents: string | null;
  readonly declared_value_minor: number | null;
  readonly liability_cover: boolean;
  readonly dangerous_goods_confirmed: boolean;
  readonly references: {
    readonly external_customer_code: string | null;
    readonly external_billing_reference: string | null;
    readonly client_order_reference: string | null;
  };
  readonly pricing: FrozenPricing;
  /** spec: courier 2.8: the service level as it stood at booking. */
  readonly service_terms: Readonly<Record<string, unknown>>;
  /**
   * The customer tracking link's token. Kept readable (not only hashed) because every read of the
   * booking shows its tracking_url again (courier 4.1, Business API 2.2); found by its hash.
   */
  readonly tracking_token: string;
  readonly tracking_token_hash: string;
}

/** One piece's custody (courier 3.2): who holds it and where. */
export interface PieceCustody {
  readonly id: string;
  readonly holder: string | null;
  readonly facility_id: string | null;
  readonly last_scan_at: number | null;
}

/** One line of the full trail: every scan, custody move and status change. */
export interface TrailEntry {
  readonly at: number;
  readonly event: ScanEvent;
  readonly facility_id: string | null;
  readonly holder: string | null;
  readonly note: string | null;
  readonly reason: string | null;
  readonly pieces: readonly string[] | null;
  readonly by: string;
}

export interface LastScan {
  readonly event: ScanEvent;
  readonly at: number;
  readonly facility_id: string | null;
  readonly note: string | null;
}

/** Where the shipment stands after booking (courier 1.4, 3.2). */
export interface Lifecycle {
  readonly status: Headline;
  readonly health: Health;
  readonly health_reason: string;
  readonly pieces: readonly PieceCustody[];
  readonly trail: readonly TrailEntry[];
  readonly trail_total: number;
  /** The last physical scan. */
  readonly last_scan: LastScan | null;
  readonly milestones: readonly OpenMilestone[];
  readonly exception: { readonly reason: string; readonly at: number } | null;
  readonly estimated_delivery_on: string;
  readonly attempts: number;
  readonly delivered_at: number | null;
  readonly pod: { readonly received_by: string | null; readonly note: string | null } | null;
  readonly closed_at: number | null;
  /** Working days over the customs deadline already alerted (once per working day, 2.9). */
  readonly customs_days_alerted: number;
  /** When to count the working days over the customs deadline again (each local day start). */
  readonly customs_check_at?: number | null;
  /** The last-scan instant whose no-scan alert was raised (once per silence). */
  readonly no_scan_raised_for: number | null;
  /** Since when the pieces are in different places (null: together). */
  readonly separated_since: number | null;
  /** The next obligation (courier 4.4): the open milestone due first, its deadline and owner. */
  readonly next_milestone: Milestone | null;
  readonly next_due_at: number | null;
  readonly next_owner: Owner | null;
  /** The earliest deadline of any open milestone: overdue once it has passed. */
  readonly first_due_at: number | null;
}

/**
 * A later charge a scan caused (courier 2.6 rule 3), due on the client's account until the
 * ledger has booked it: kept with the scan's own commit, so a request that dies after the scan
 * still has it booked (scan_charges.ts), and booked again while it stays due.
 */
export interface ChargeDue extends DueCharge {
  /** The scan and the failed attempts counted after it: what `scanCharge` prices. */
  readonly scan: ScanEvent;
  readonly attempts: number;
  readonly by: string;
}

export interface Shipment extends ShipmentBooking, Lifecycle {
  /** At most one per failed attempt and one return; absent (none) on shipments stored before. */
  readonly charges_due?: readonly ChargeDue[];
}

export type ShipmentState = Shipment | null;

/** A scan or custody move as operations, runs or drivers record it (courier 3.2). */
export interface ScanInput {
  readonly event: ScanEvent;
  readonly facility_id?: string | null;
  readonly holder?: string | null;
  /** Piece ids; absent: every piece. */
  readonly pieces?: readonly string[] | null;
  readonly note?: string | null;
  /** Required for an exception, lost or damaged, or a cancellation. */
  readonly reason?: string | null;
  /** Delivered: who received it (proof of delivery). */
  readonly received_by?: string | null;
  readonly by: string;
}

export type ShipmentCommand =
  | { kind: "book"; shipment: ShipmentBooking }
  | { kind: "record"; scan: ScanInput }
  /** The ledger booked these charges (by source event): they are no longer due. */
  | { kind: "confirm_charges"; source_events: readonly string[] }
  | { kind: "get" };

/** An alert the shipment's timers or scans call for; raised by the alert raiser (2.9). */
export interface AlertDue {
  readonly kind: AlertKind;
  readonly condition_key: string;
  readonly owner: string;
  readonly message: string;
  readonly detail: Readonly<Record<string, unknown>>;
}

export type ShipmentEvent =
  | { kind: "shipment_booked"; shipment: Shipment }
  /** A scan and what it changed: the lifecycle after it, carried whole (pure evolve). */
  | { kind: "scanned"; entry: TrailEntry; lifecycle: Lifecycle }
  /** A deadline passed or neared, or a silence ran long: the lifecycle after it. */
  | { kind: "checked"; at: number; lifecycle: Lifecycle }
  | { kind: "alert_due"; alert: AlertDue }
  | { kind: "estimate_changed"; from: string; to: string; at: number }
  /** The customer-facing stage moved (client webhook `shipment.<stage>`, courier 6.2). */
  | { kind: "stage_reached"; stage: Headline; at: number; occurrence: number }
  /** A later charge is due on the client's account: caused by a scan, or still due later. */
  | { kind: "charge_due"; charge: ChargeDue }
  | { kind: "charges_confirmed"; source_events: readonly string[]; at: number };

/** `book` answers whether this call made the shipment (false: it existed, a replay). */
export interface Booking {
  readonly shipment: Shipment;
  readonly created: boolean;
}

export type ShipmentReply = Shipment | Booking;

export function asShipment(reply: ShipmentReply): Shipment {
  return "created" in reply ? reply.shipment : reply;
}

/** Trail lines kept in state; `trail_total` counts all (the event log keeps every one). */
export const TRAIL_MAX = 200;
/** Scan texts (notes, reasons, holders, facility ids) are short. */
export const SCAN_TEXT_CHARS_MAX = 500;

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
function obligations(milestones: readonly OpenMilestone[], status: Headline) {
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

type Decided = ReturnType<typeof accept<ShipmentState, ShipmentEvent, ShipmentReply>>;

function clipText(v: string | null | undefined): string | null {
  const t = v?.trim();
  return t ? t.slice(0, SCAN_TEXT_CHARS_MAX) : null;
}

function record(
  state: Shipment,
  scan: ScanInput,
  now: number,
): Decided | ReturnType<typeof reject> {
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
  const needsReason = scan.event === "exception" || scan.event === "lost_or_damaged" ||
    scan.event === "cancelled" || scan.event === "customs_hold" ||
    scan.event === "documents_requested";
  if (needsReason && reason === null) {
    return reject("reason_required", `${scan.event} needs a reason`);
  }
  const known = new Set(state.pieces.map((p) => p.id));
  const pieces = scan.pieces && scan.pieces.length > 0 ? [...new Set(scan.pieces)] : null;
  const unknown = pieces?.find((p) => !known.has(p));
  if (unknown) return reject("unknown_piece", `no such piece on ${state.waybill}: ${unknown}`);
  const entry: TrailEntry = {
    at: now,
    event: scan.event,
    facility_id: clipText(scan.facility_id),
    holder: clipText(scan.holder),
    note: clipText(scan.note),
    reason,
    pieces,
    by: scan.by,
  };
  const terms = termsOf(state);
  const closes = new Set(step.closes ?? []);
  let milestones = state.milestones.filter((m) => !closes.has(m.name));
  const atDestination = scan.event === "received_at_destination";
  const touched = (id: string) => pieces === null || pieces.includes(id);
  // The same scan again: it moves neither the headline nor any piece to another facility.
  const repeated = (step.headline ?? state.status) === state.status &&
    !(entry.facility_id !== null &&
      state.pieces.some((p) => touched(p.id) && p.facility_id !== entry.facility_id));
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
  if (scan.event === "documents_supplied") {
    milestones = milestones.map((m) =>
      m.name === "customs_documents" ? { ...m, supplied_at: now } : m
    );
  }
  // spec: courier 2.3: each piece has its own holder and facility. A holder taking a piece takes
  // it from the facility; a facility receiving it (with no holder named) takes it from whoever
  // brought it, so pieces together at one facility are in one place (2.9 pieces_separated).
  const custody = step.physical
    ? state.pieces.map((p) =>
      touched(p.id)
        ? {
          ...p,
          holder: entry.holder ?? (entry.facility_id ? null : p.holder),
          facility_id: entry.facility_id ?? (entry.holder ? null : p.facility_id),
          last_scan_at: now,
        }
        : p
    )
    : state.pieces;
  const exception = scan.event === "exception" || scan.event === "lost_or_damaged"
    ? { reason: reason!, at: now }
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
  const attempts = state.attempts + (attempted ? 1 : 0);
  const estimate = attempted
    ? estimateAfterSetback(terms.calendar, state.estimated_delivery_on, now)
    : state.estimated_delivery_on;
  const partial = { status, exception, milestones: final ? [] : milestones };
  const verdict = healthOf(partial, now);
  const lifecycle: Lifecycle = {
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
    attempts,
    delivered_at: scan.event === "delivered" ? now : state.delivered_at,
    pod: scan.event === "delivered"
      ? { received_by: clipText(scan.received_by), note: entry.note }
      : state.pod,
    closed_at: final ? now : null,
    separated_since: separated ? state.separated_since ?? now : null,
    ...obligations(partial.milestones, status),
  };
  const events: ShipmentEvent[] = [{ kind: "scanned", entry, lifecycle }];
  // spec: courier 2.6 rule 3: a redelivery or a return is a later charge, due from this commit on.
  const charge = scanCharge({ waybill: state.waybill, attempts }, scan.event);
  const due: ChargeDue | null = charge && {
    source_event: charge.source_event,
    scan: scan.event,
    attempts,
    by: scan.by,
  };
  if (due) events.push({ kind: "charge_due", charge: due });
  if (status !== state.status) {
    events.push({
      kind: "stage_reached",
      stage: status,
      at: now,
      occurrence: lifecycle.trail_total,
    });
  }
  if (estimate !== state.estimated_delivery_on) {
    events.push({
      kind: "estimate_changed",
      from: state.estimated_delivery_on,
      to: estimate,
      at: now,
    });
  }
  if (separated && state.separated_since === null) {
    events.push(
      alertDue(
        state,
        "pieces_separated",
        `separated:${now}`,
        "courier",
        `the pieces of ${state.waybill} are in different places with no exception recorded`,
        { places: placesOf(custody) },
      ),
    );
  }
  // spec: courier 2.9: documents_missing only when customs asked for papers, not on any hold; and
  // once while they are missing: asked for again before they were supplied is the same condition.
  const papersOwed = state.milestones.some((m) =>
    m.name === "customs_documents" && m.supplied_at === null
  );
  if (scan.event === "documents_requested" && !papersOwed) {
    events.push(
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
  const timers = timersFor({ ...state, ...lifecycle }, state);
  // The first charge due arms the retry; one already due has armed it.
  if (due && chargesDueOf(state).length === 0) timers.push(chargeRetry(now));
  return accept(events, (next) => next!, timers);
}

function chargesDueOf(s: Shipment): readonly ChargeDue[] {
  return s.charges_due ?? [];
}

/**
 * Books again what is still due (courier 2.6 rules 2, 3): a charge whose scan's request died, or
 * whose booking failed, is due again one retry later, and then again, until the ledger confirms.
 */
function chargesDueAgain(state: Shipment, now: number): Decided {
  const { events, timers } = dueAgain(chargesDueOf(state), now);
  return accept(events, undefined, timers);
}

function confirmCharges(state: Shipment, sourceEvents: readonly string[], now: number): Decided {
  const { confirmed, timers } = confirmation(chargesDueOf(state), sourceEvents);
  if (confirmed.length === 0) return accept([], () => state);
  return accept(
    [{ kind: "charges_confirmed", source_events: confirmed, at: now }],
    (next) => next!,
    timers,
  );
}

function alertDue(
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

function lifecycleOf(s: Shipment): Lifecycle {
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
  };
}

function placesOf(pieces: readonly PieceCustody[]): string[] {
  return [...new Set(pieces.map((p) => `${p.facility_id ?? "-"}|${p.holder ?? "-"}`))];
}

/** Pieces scanned at least once and now in more than one place (courier 2.9 pieces_separated). */
function isSeparated(pieces: readonly PieceCustody[]): boolean {
  const scanned = pieces.filter((p) => p.last_scan_at !== null);
  return scanned.length > 1 && placesOf(scanned).length > 1;
}

const NO_SCAN_TIMER = "no_scan";
const CUSTOMS_TIMER = "customs_over";
/** The estimated delivery day is over without delivery: the estimate moves (courier 2.3, 3.2). */
const ESTIMATE_TIMER = "estimate_passed";

/**
 * spec: courier 2.9 no_scan: the silence counts from the last physical scan; before the first,
 * from when collection is owed (collectionCountsFrom), as no scan can be owed before that.
 */
function noScanSince(s: Shipment): number {
  return s.last_scan?.at ??
    collectionCountsFrom(termsOf(s).calendar, s.booked_at, s.pricing.promise.collection_on);
}

/**
 * Whether the no_scan alert for the silence since `since` was raised. Before the first scan
 * there is one silence, whatever instant it was counted from when raised (shipments booked
 * before it counted from collection counted from booking).
 */
function noScanRaised(s: Shipment, since: number): boolean {
  return s.no_scan_raised_for === since || (s.last_scan === null && s.no_scan_raised_for !== null);
}

/** The durable timers a lifecycle needs, by name and instant. */
function wantedTimers(s: Shipment): Map<string, number> {
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
function rearm(s: Shipment, now: number): TimerOp[] {
  const next = nextCheckAt(s, now);
  return next === null ? [] : [{ op: "set", name: CHECK_TIMER, at: next }];
}

/** Only what changed: the check timer is set when its instant moved, cancelled when none is due. */
function timersFor(next: Shipment, prev: Shipment | null = null): TimerOp[] {
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

/**
 * The check timer fired: every check due by now, earliest first (at risk, overdue, no scan,
 * another working day over the customs wait, the estimated delivery day over). Timers named per
 * check, set before there was one timer, fire here too and do the same.
 */
function check(state: Shipment, now: number): Decided {
  if (state.closed_at !== null) return accept([]);
  const terms = termsOf(state);
  const events: ShipmentEvent[] = [];
  let milestones = state.milestones;
  let estimate = state.estimated_delivery_on;
  let noScanFor = state.no_scan_raised_for;
  let customsDays = state.customs_days_alerted;
  let customsCheck = state.customs_check_at ?? null;
  const due = [...wantedTimers(state)].filter(([, at]) => at <= now).sort((a, b) => a[1] - b[1]);
  for (const [name] of due) {
    const [what, milestone] = name.split(":") as [string, Milestone | undefined];
    const m = milestones.find((o) => o.name === milestone);
    if (what === "risk" && m && !m.at_risk_raised && now >= m.at_risk_at) {
      milestones = milestones.map((o) => o === m ? { ...o, at_risk_raised: true } : o);
      events.push(
        alertDue(
          state,
          "milestone_at_risk",
          `${m.name}:${m.opened_at}:risk`,
          m.owner,
          `${m.name} of ${state.waybill} is at risk: due ${new Date(m.due_at).toISOString()}`,
          { milestone: m.name, due_at: new Date(m.due_at).toISOString() },
        ),
      );
    } else if (what === "due" && m && !m.overdue_raised && now >= m.due_at) {
      milestones = milestones.map((o) =>
        o === m ? { ...o, overdue_raised: true, at_risk_raised: true } : o
      );
      events.push(
        alertDue(
          state,
          "milestone_overdue",
          `${m.name}:${m.opened_at}:due`,
          m.owner,
          `${m.name} of ${state.waybill} is overdue since ${new Date(m.due_at).toISOString()}`,
          { milestone: m.name, due_at: new Date(m.due_at).toISOString() },
        ),
      );
      if (
        (m.owner === "courier" || m.name === "customs_clearance") &&
        deliveryEstimateMoves(state.status)
      ) {
        estimate = estimateAfterSetback(terms.calendar, estimate, now);
      }
      if (m.name === "customs_clearance") {
        customsDays = 1;
        customsCheck = nextLocalDayStart(terms.calendar, now) + 1;
        events.push(
          alertDue(
            state,
            "customs_wait_exceeded",
            `customs:${m.opened_at}:1`,
            "courier",
            `customs has held ${state.waybill} past its wait (1 working day over)`,
            { days_over: 1 },
          ),
        );
      }
    } else if (what === NO_SCAN_TIMER) {
      const since = noScanSince(state);
      const due = addWorkingHours(terms.calendar, since, terms.no_scan_hours);
      if (!noScanRaised({ ...state, no_scan_raised_for: noScanFor }, since) && now >= due) {
        noScanFor = since;
        events.push(
          alertDue(
            state,
            "no_scan",
            `no_scan:${since}`,
            "courier",
            `no scan of ${state.waybill} since ${new Date(since).toISOString()}`,
            { since: new Date(since).toISOString() },
          ),
        );
      }
    } else if (what === ESTIMATE_TIMER) {
      // spec: courier 3.2: the estimate moves to the next working day; estimate_changed below
      // tells the client's webhook (once per move).
      estimate = estimateAfterDayPassed(terms.calendar, estimate, now);
    } else if (what === CUSTOMS_TIMER) {
      const customs = milestones.find((o) => o.name === "customs_clearance");
      if (customs) {
        const over = workingDaysOver(terms.calendar, customs.due_at, now);
        for (let day = customsDays + 1; day <= over; day++) {
          events.push(
            alertDue(
              state,
              "customs_wait_exceeded",
              `customs:${customs.opened_at}:${day}`,
              "courier",
              `customs has held ${state.waybill} past its wait (${day} working days over)`,
              { days_over: day },
            ),
          );
        }
        customsDays = Math.max(customsDays, over);
        customsCheck = nextLocalDayStart(terms.calendar, now) + 1;
      }
    }
  }
  if (
    events.length === 0 && estimate === state.estimated_delivery_on &&
    customsCheck === (state.customs_check_at ?? null)
  ) {
    // Nothing new (a timer that fired early, or a stale one): the check timer is armed again.
    return accept([], undefined, rearm(state, now));
  }
  const verdict = healthOf({ ...state, milestones }, now);
  const lifecycle: Lifecycle = {
    ...lifecycleOf(state),
    milestones,
    health: verdict.health,
    health_reason: verdict.reason,
    estimated_delivery_on: estimate,
    no_scan_raised_for: noScanFor,
    customs_days_alerted: customsDays,
    customs_check_at: customsCheck,
    ...obligations(milestones, state.status),
  };
  const all: ShipmentEvent[] = [{ kind: "checked", at: now, lifecycle }, ...events];
  if (estimate !== state.estimated_delivery_on) {
    all.push({
      kind: "estimate_changed",
      from: state.estimated_delivery_on,
      to: estimate,
      at: now,
    });
  }
  return accept(all, undefined, rearm({ ...state, ...lifecycle }, now));
}

export const shipmentActor: ActorDefinition<
  ShipmentState,
  ShipmentCommand,
  ShipmentEvent,
  ShipmentReply
> = {
  type: "shipment",
  version: 2,
  initial: null,
  decide(state, command, ctx) {
    switch (command.kind) {
      case "book": {
        // A retry of the same booking finds the shipment made: nothing is booked twice.
        if (state !== null) return accept([], () => ({ shipment: state, created: false }));
        const shipment: Shipment = { ...command.shipment, ...startLifecycle(command.shipment) };
        return accept(
          [{ kind: "shipment_booked", shipment }],
          () => ({ shipment, created: true }),
          timersFor(shipment),
        );
      }
      case "record":
        if (state === null) return reject("not_found", "shipment not found");
        return record(state, command.scan, ctx.now);
      case "confirm_charges":
        if (state === null) return reject("not_found", "shipment not found");
        return confirmCharges(state, command.source_events, ctx.now);
      case "get":
        if (state === null) return reject("not_found", "shipment not found");
        return accept([], () => state);
      case "timer":
        if (state === null) return accept([]);
        // Charges are booked after the shipment closes too: only milestones stop there.
        if (command.name === CHARGE_TIMER) return chargesDueAgain(state, ctx.now);
        return check(state, ctx.now);
      default:
        return unreachable(command);
    }
  },
  evolve(state, event) {
    switch (event.kind) {
      case "shipment_booked":
        return event.shipment;
      case "scanned":
      case "checked":
        if (state === null) throw new Error(`shipment: ${event.kind} before booked`);
        return { ...state, ...event.lifecycle };
      case "alert_due":
      case "estimate_changed":
      case "stage_reached":
        return state;
      case "charge_due": {
        if (state === null) throw new Error("shipment: charge_due before booked");
        return { ...state, charges_due: withDue(chargesDueOf(state), event.charge) };
      }
      case "charges_confirmed":
        if (state === null) throw new Error("shipment: charges_confirmed before booked");
        return {
          ...state,
          charges_due: withoutConfirmed(chargesDueOf(state), event.source_events),
        };
      default:
        return unreachable(event);
    }
  },
  load,
  indexes: (s) => s === null ? [] : [{ index: "tracking", key: s.tracking_token_hash }],
  project: (s) => s === null ? null : shipmentSearchView(s),
};

/**
 * Version 1 knew only bookings: they start their lifecycle as booked. One stored returning before
 * the returning rule (lifecycle.ts STEPS.returning) loads as that rule leaves it: the recipient's
 * milestones and the promise closed, health and next obligation as of its last scan.
 */
function load(stored: unknown, version: number): ShipmentState {
  if (stored === null) return null;
  const s = stored as Shipment;
  if (version < 2 || s.milestones === undefined) return { ...s, ...startLifecycle(s) };
  const milestones = openUnderRules(s.status, s.milestones);
  if (milestones === s.milestones) return s;
  const verdict = healthOf({ ...s, milestones }, s.trail.at(-1)?.at ?? s.booked_at);
  return {
    ...s,
    milestones,
    health: verdict.health,
    health_reason: verdict.reason,
    ...obligations(milestones, s.status),
  };
}

/** What the query side keeps for search and lists: references, parties, money, no token. */
export function shipmentSearchView(s: Shipment) {
  // Charges due are the actor's own work list (scan_charges.ts), not the shipment's story.
  const { tracking_token: _t, tracking_token_hash: _h, charges_due: _c, ...rest } = s;
  return { ...rest, ...s.references };
}
