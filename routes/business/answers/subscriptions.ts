/**
 * What the recurring-delivery routes answer (Business API 2.3, 4.2): the subscription, its
 * schedule in its time zone, its next occurrence and what became of the last occurrences.
 */
import type { OccurrenceRecord, Subscription } from "../../../actors/business/subscription.ts";
import { localInstant } from "../../../src/business/rules/subscription.ts";
import { iso } from "../../../src/domain/iso.ts";
import { SUBSCRIPTION_OCCURRENCE_ATTEMPTS_MAX } from "../../../src/limits.ts";
import { z } from "../../../src/http/route.ts";
import { orNull } from "../../../src/http/schemas.ts";

const OccurrenceAnswer = z.object({
  date: z.string().openapi({ description: "The local date, YYYY-MM-DD", example: "2026-12-01" }),
  pickup_at: z.string().openapi({
    description: "The pickup time, ISO 8601 with the time zone's offset that day",
    example: "2026-12-01T09:30:00+02:00",
  }),
  status: z.enum(["booking", "booked", "refused", "failed"]).openapi({
    description: "booking: being booked; booked: its trip is trip_reference; refused: the " +
      "booking was refused (refusal says why) and is not tried again; failed: the booking " +
      "failed for a passing reason at each of " +
      `${SUBSCRIPTION_OCCURRENCE_ATTEMPTS_MAX} attempts, over about 20 minutes (refusal: ` +
      "booking_failed, naming the last reason), and is not tried again",
  }),
  trip_reference: orNull(z.string()),
  refusal: orNull(z.object({ code: z.string(), message: z.string() })),
});

const DeliveryAnswer = z.record(z.string(), z.unknown()).openapi({
  description: "The booking (section 2.1) each occurrence sends, as accepted",
});

export const SubscriptionAnswer = z.object({
  id: z.string().openapi({ example: "sub_3f9c0a7e5b1d2c4e6f8a0b1c" }),
  status: z.enum(["active", "paused", "cancelled"]),
  segment: z.enum(["parcel", "cargo"]),
  days_of_week: z.array(z.number().int()).openapi({ description: "ISO: 1 Monday to 7 Sunday" }),
  pickup_time: z.string().openapi({ example: "09:30" }),
  timezone: z.string().openapi({ example: "Africa/Johannesburg" }),
  starts_on: z.string(),
  external_reference: orNull(z.string()),
  next_occurrence: orNull(OccurrenceAnswer.pick({ date: true, pickup_at: true })).openapi({
    description:
      "The next date due; its trip is booked an hour before pickup. Null while paused or cancelled",
  }),
  occurrences: z.array(OccurrenceAnswer).openapi({
    description: "The last 30 occurrences that fell due, and any older one still being " +
      "booked, oldest first",
  }),
  delivery: DeliveryAnswer,
  created_at: z.string(),
  updated_at: z.string(),
  replayed: z.boolean().optional(),
  already_cancelled: z.boolean().optional().openapi({
    description: "On a cancel of a subscription already cancelled: nothing changed",
  }),
});

function occurrenceView(s: Subscription, o: OccurrenceRecord) {
  return {
    date: o.date,
    pickup_at: localInstant(s.schedule, o.pickup_at),
    status: o.status,
    trip_reference: o.trip_reference,
    refusal: o.refusal,
  };
}

/** The booking as the business sent it: places back in the request's flat fields. */
function deliveryView(d: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const { pickup, dest, item_names: _, ...rest } = d as {
    pickup: { address: string; lat: number; lng: number };
    dest: { address: string; lat: number; lng: number };
    item_names?: unknown;
  } & Record<string, unknown>;
  return {
    ...rest,
    pickup_address: pickup.address,
    pickup_lat: pickup.lat,
    pickup_lng: pickup.lng,
    dest_address: dest.address,
    dest_lat: dest.lat,
    dest_lng: dest.lng,
  };
}

export function subscriptionView(
  s: Subscription,
  extra: { replayed?: boolean; already_cancelled?: boolean } = {},
) {
  return {
    id: s.id,
    status: s.status,
    segment: s.segment,
    days_of_week: s.schedule.days_of_week,
    pickup_time: s.schedule.pickup_time,
    timezone: s.schedule.timezone,
    starts_on: s.schedule.starts_on,
    external_reference: s.external_reference,
    next_occurrence: s.next === null
      ? null
      : { date: s.next.date, pickup_at: localInstant(s.schedule, s.next.at) },
    occurrences: s.occurrences.map((o) => occurrenceView(s, o)),
    delivery: deliveryView(s.delivery),
    created_at: iso(s.created_at),
    updated_at: iso(s.updated_at),
    ...extra,
  };
}
