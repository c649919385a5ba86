/**
 * Business API 2.4: the public tracking view, every field of it and nothing else. Unassigned
 * values are null; a reference link (scope reference) shows no pickup and no stops.
 */
import type { Tracking } from "../../../src/business/flows/tracking.ts";
import { TRIP_STATUSES } from "../../../src/business/rules/trip_status.ts";
import { iso } from "../../../src/domain/iso.ts";
import { z } from "../../../src/http/route.ts";
import { orNull } from "../../../src/http/schemas.ts";

const StopAnswer = z.object({
  address: z.string(),
  lat: z.number(),
  lng: z.number(),
  reached: z.boolean().openapi({
    description: "The driver has passed it: came within 100 m of it after collection (and of " +
      "the stops before it), or reached the destination",
  }),
});

export const TripTrackAnswer = z.object({
  reference: z.string(),
  type: z.enum(["ride", "parcel"]),
  status: z.enum(TRIP_STATUSES),
  is_active: z.boolean(),
  is_complete: z.boolean(),
  delivery_outcome: orNull(z.enum(["delivered", "returned"])).openapi({
    description: "Once completed: delivered, or returned (the goods went back to the sender, " +
      "as trip.completed says); null before",
  }),
  pickup_address: orNull(z.string()),
  pickup_lat: orNull(z.number()),
  pickup_lng: orNull(z.number()),
  stops: z.array(StopAnswer).openapi({ description: "In order; empty on a reference link" }),
  dest_address: z.string(),
  dest_lat: z.number(),
  dest_lng: z.number(),
  driver_name: orNull(z.string()),
  driver_phone: orNull(z.string()),
  driver_plate: orNull(z.string()),
  driver_color: orNull(z.string()),
  driver_lat: orNull(z.number()).openapi({
    description: "Null while the trip is queued behind the driver's current trip, and until " +
      "the driver reports a position observed after they last gave up a trip (one observed " +
      "before may be another business's)",
  }),
  driver_lng: orNull(z.number()),
  eta_minutes: orNull(z.number().int()).openapi({
    description: "From the driver's position to the pickup (before collection, and while a " +
      "failed delivery returns there) or the destination",
  }),
  accepted_at: orNull(z.string()),
  completed_at: orNull(z.string()),
  location_observed_at: orNull(z.string()),
  location_age_seconds: orNull(z.number().int()),
  location_is_fresh: orNull(z.boolean()).openapi({
    description: "Within the dispatch freshness limit; a stale position is the last known one",
  }),
  scope: z.enum(["token", "reference"]),
  poll_after_seconds: orNull(z.number().int()).openapi({
    description: "15 while active; null once the trip ended: stop polling",
  }),
  route_polyline: orNull(z.string()).openapi({
    description: "The driver's stored breadcrumb since the trip began (its acceptance, or its " +
      "start for a trip queued behind the driver's current one; null while queued), encoded " +
      "polyline (precision 5)",
  }),
  link_expires_at: z.string(),
}).openapi("TripTracking");

export type TripTrack = z.infer<typeof TripTrackAnswer>;

const when = (ms: number | null) => (ms === null ? null : iso(ms));

export function tripTrackView(v: Tracking): TripTrack {
  const t = v.trip;
  const byToken = v.scope === "token";
  const d = t.driver;
  const p = v.position;
  return {
    reference: t.reference,
    type: t.type,
    status: t.status,
    is_active: v.is_active,
    is_complete: t.status === "completed",
    delivery_outcome: t.delivery_outcome,
    // spec: business 2.4 rule 5: a reference link shows no pickup and no stops.
    pickup_address: byToken ? t.pickup.address : null,
    pickup_lat: byToken ? t.pickup.lat : null,
    pickup_lng: byToken ? t.pickup.lng : null,
    stops: byToken ? t.stops.map((s, i) => ({ ...s, reached: v.stops_reached[i] === true })) : [],
    dest_address: t.dest.address,
    dest_lat: t.dest.lat,
    dest_lng: t.dest.lng,
    driver_name: d?.name ?? null,
    driver_phone: d?.phone ?? null,
    driver_plate: d?.plate ?? null,
    driver_color: d?.color ?? null,
    driver_lat: p?.lat ?? null,
    driver_lng: p?.lng ?? null,
    eta_minutes: v.eta_minutes,
    accepted_at: when(t.accepted_at),
    completed_at: when(t.completed_at),
    location_observed_at: when(p?.at ?? null),
    location_age_seconds: v.location_age_seconds,
    location_is_fresh: v.location_is_fresh,
    scope: v.scope,
    poll_after_seconds: v.poll_after_seconds,
    route_polyline: v.route_polyline,
    link_expires_at: iso(v.link_expires_at),
  };
}
