/**
 * Courier 2.11: the customer tracking view (what a customer may see of a shipment, never customs
 * notes, declared values, specimen data or money) and the public tracking link.
 */
import type { Context } from "hono";
import type { Shipment } from "../../../actors/courier/shipment/mod.ts";
import { HEADLINES, isPhysical, type Milestone } from "../../../src/courier/rules/lifecycle.ts";
import { type AppEnv, publicBaseUrl } from "../../../src/http/context.ts";
import { z } from "../../../src/http/route.ts";
import { CalendarDay, orNull, UtcInstant } from "../../../src/http/schemas.ts";

/** The public tracking view's address (CONTRACT: `GET /api/s/{token}`). */
export function trackingUrl(c: Context<AppEnv>, token: string): string {
  return `${publicBaseUrl(c)}/api/s/${token}`;
}

/** What a customer reads for each stage: plain language, no internal terms. */
const NEXT_STEP: Readonly<Record<string, string>> = {
  booked: "The courier will collect the parcel.",
  awaiting_collection: "The courier will collect the parcel.",
  collected: "The parcel is on its way to the courier's depot.",
  at_origin_facility: "The parcel will leave the depot on its way to you.",
  in_transit: "The parcel is on its way.",
  at_border: "The parcel is at the border.",
  customs_processing: "The parcel is being cleared by customs.",
  customs_hold: "The parcel is waiting for customs clearance.",
  cleared: "The parcel has cleared customs and is on its way.",
  at_destination_facility: "The parcel will go out for delivery.",
  out_for_delivery: "The parcel is out for delivery today.",
  delivery_attempted: "We will try to deliver again.",
  awaiting_redelivery: "We will try to deliver again; you can contact the sender to rearrange.",
  delivered: "Delivered.",
  returning: "The parcel is on its way back to the sender.",
  returned: "The parcel was returned to the sender.",
  cancelled: "The shipment was cancelled.",
  lost_or_damaged: "The sender will be in touch with you about what happens next.",
};

/** spec: courier 2.11: the delay a customer reads once the parcel was reported lost or damaged. */
const LOST_OR_DAMAGED_DELAY =
  "The parcel was reported lost or damaged and will not arrive as planned.";

const MILESTONE_WORDS: Readonly<Record<Milestone, string>> = {
  collection: "collection",
  depot_dwell: "at the depot",
  linehaul: "on the road",
  border_presentation: "on the way to the border",
  customs_clearance: "customs clearance",
  customs_documents: "customs clearance",
  delivery_attempt: "delivery",
  redelivery: "next delivery attempt",
  promise: "delivery",
};

/**
 * spec: courier 2.11: whether the parcel is still on its way to the customer. Delivered, cancelled
 * or returned it is not; neither is one going back to the sender (`returning`), nor one reported
 * lost or damaged, which no date can be promised for (its delay says so).
 */
function toCustomer(s: Shipment): boolean {
  return s.delivered_at === null && s.closed_at === null && s.status !== "returning" &&
    s.status !== "lost_or_damaged";
}

/**
 * spec: courier 2.11: plain-language delay, or null when on time or not coming. Lost or damaged
 * reads as such, never the reason recorded (an internal note, maybe a value or a claim).
 */
function delayOf(s: Shipment, now: number): string | null {
  if (s.status === "lost_or_damaged") return LOST_OR_DAMAGED_DELAY;
  if (!toCustomer(s)) return null;
  const promised = s.pricing.promise.latest_delivery;
  if (s.estimated_delivery_on > promised) {
    return `Running late: now expected on ${s.estimated_delivery_on} instead of ${promised}.`;
  }
  const overdue = s.milestones.find((m) => m.name !== "promise" && m.due_at <= now);
  if (overdue) return `Slightly delayed at the ${MILESTONE_WORDS[overdue.name]} stage.`;
  return null;
}

/**
 * spec: courier 2.11 "last verified place and scan time", read as one pair: the place last
 * verified and when it was verified there. A physical scan with no place (a driver's scan, a
 * return set off) verifies no place, so the last one that did stands, with its own time; before
 * any scan at a place, the last physical scan's time with no place. Derived from the trail, so
 * shipments stored before read the same.
 */
function lastVerified(s: Shipment): { at: number; place: string | null } | null {
  const placed = s.trail.findLast((e) => isPhysical(e.event) && e.facility_id !== null);
  if (placed) return { at: placed.at, place: placed.facility_id };
  return s.last_scan && { at: s.last_scan.at, place: null };
}

/** The view a customer may see; built field by field so nothing else can leak into it. */
export function trackingView(s: Shipment, now: number) {
  const verified = lastVerified(s);
  return {
    waybill: s.waybill,
    status: s.status,
    current_milestone: toCustomer(s) && s.next_milestone ? MILESTONE_WORDS[s.next_milestone] : null,
    last_verified: verified
      ? {
        // A facility code at most, never a holder's name or a note.
        place: verified.place,
        scanned_at: new Date(verified.at).toISOString(),
      }
      : null,
    // spec: courier 2.11: when the parcel is expected; once closed (delivered, cancelled,
    // returned), going back to the sender or reported lost or damaged it is expected on no day.
    expected_by: toCustomer(s) ? s.estimated_delivery_on : null,
    delay: delayOf(s, now),
    delivery_attempts: s.attempts,
    next_step: NEXT_STEP[s.status] ?? null,
    pod: s.delivered_at !== null
      ? {
        delivered_at: new Date(s.delivered_at).toISOString(),
        received_by: s.pod?.received_by ?? null,
      }
      : null,
  };
}

/** Proof of delivery as the customer and the client see it: when, and who received it. */
export const ProofOfDeliveryAnswer = z.object({
  delivered_at: UtcInstant,
  received_by: z.string().nullable(),
}).openapi("ProofOfDelivery");

/**
 * spec: courier 2.11: the customer tracking view (trackingView): no customs notes, declared
 * values, specimen data or money, and no person's name but the one who received the parcel.
 */
export const TrackingAnswer = z.object({
  waybill: z.string(),
  status: z.enum(HEADLINES),
  current_milestone: z.enum([...new Set(Object.values(MILESTONE_WORDS))] as [string, ...string[]])
    .nullable().openapi({ description: "The stage the shipment is in, in plain words" }),
  last_verified: orNull(
    z.object({
      place: z.string().nullable().openapi({
        description: "The facility code of the last scan at a facility; null before any",
      }),
      scanned_at: UtcInstant.openapi({
        description: "When that place was verified (before any, the last physical scan)",
      }),
    }).openapi("TrackingLastVerified"),
  ).openapi({
    description: "The last verified place and its scan time: a later scan at no place changes " +
      "neither; null before any physical scan",
  }),
  expected_by: CalendarDay.nullable().openapi({
    description: "null once delivered, cancelled or returned, while returning to the sender, " +
      "and once reported lost or damaged",
  }),
  delay: z.string().nullable().openapi({
    description: "Plain-language delay; null when on time or not coming; says so once the " +
      "parcel was reported lost or damaged",
  }),
  delivery_attempts: z.number().int(),
  next_step: z.string().nullable().openapi({ description: "What happens next, in plain words" }),
  pod: orNull(ProofOfDeliveryAnswer).openapi({ description: "After delivery only" }),
}).openapi("Tracking");
