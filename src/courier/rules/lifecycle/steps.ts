/**
 * What each scan event does to a shipment (courier 3.2, the milestone table read event by event),
 * and what its headline still allows: cancelling, and the milestones the current rules leave open.
 */
import {
  type Headline,
  type Milestone,
  MILESTONES,
  type OpenMilestone,
  type ScanEvent,
  type TrailEvent,
} from "./vocabulary.ts";

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
  // spec: courier 3.2, 2.9: customs refused the shipment: neither clearance nor papers will come,
  // so nothing stays open with customs (no customs wait runs over); the refusal is an exception.
  customs_refused: { closes: ["customs_clearance", "customs_documents"], physical: false },
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

/** Whether a trail line is a physical scan; a status change (STATUS_CHANGES) is none. */
export function isPhysical(event: TrailEvent): boolean {
  return (STEPS as Partial<Record<TrailEvent, Step>>)[event]?.physical ?? false;
}

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
