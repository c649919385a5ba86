/**
 * What the driver app's offer endpoints answer (CONTRACT "Driver app"; Business API 3.1): what a
 * driver needs to decide, and never the business's fare lines (only the COD they would collect).
 */
import type { Trip } from "../../../actors/business/trip/mod.ts";
import type { Position } from "../../../src/business/reactors/live_positions.ts";
import { decimal } from "../../../src/domain/money.ts";
import { greatCircleKm } from "../../../src/domain/geo.ts";
import { iso } from "../../../src/domain/iso.ts";
import { z } from "../../../src/http/route.ts";
import { UtcInstant } from "../../../src/http/schemas.ts";

const Place = z.object({ address: z.string(), lat: z.number(), lng: z.number() });

export const OfferAnswer = z.object({
  offer_id: z.string(),
  expires_at: UtcInstant.openapi({ description: "Unanswered by then, it goes to another driver" }),
  reference: z.string(),
  type: z.enum(["ride", "parcel"]),
  status: z.string(),
  pickup: Place,
  stops: z.array(Place),
  destination: Place,
  distance_km: z.number().openapi({ description: "The trip's road kilometres" }),
  pickup_distance_km: z.number().nullable().openapi({
    description: "Great-circle kilometres from the driver's newest position to the pickup",
  }),
  vehicle_class: z.string(),
  parcel_size: z.string(),
  scheduled_at: UtcInstant.nullable(),
  ready_at: UtcInstant.nullable(),
  handover_required: z.boolean(),
  age_verification_required: z.boolean(),
  cod_amount: z.number().nullable().openapi({ description: "Cash the driver collects" }),
  currency: z.string(),
}).openapi("DriverOffer");

export const OfferWaitingAnswer = z.object({ offer: OfferAnswer.nullable() })
  .openapi("DriverOfferWaiting");

export function offerView(t: Trip, driverAt: Position | null): z.infer<typeof OfferAnswer> {
  const place = (p: { address: string; lat: number; lng: number }) => ({
    address: p.address,
    lat: p.lat,
    lng: p.lng,
  });
  return {
    offer_id: t.offer!.offer_id,
    expires_at: iso(t.offer!.expires_at),
    reference: t.reference,
    type: t.type,
    status: t.status,
    pickup: place(t.pickup),
    stops: t.stops.map(place),
    destination: place(t.dest),
    distance_km: t.distance_m / 1_000,
    pickup_distance_km: driverAt === null
      ? null
      : Math.round(greatCircleKm(driverAt, t.pickup) * 1_000) / 1_000,
    vehicle_class: t.vehicle.vehicle_class.name,
    parcel_size: t.vehicle.parcel_size,
    scheduled_at: iso(t.scheduled_at),
    ready_at: iso(t.ready_at),
    handover_required: t.handover_required,
    age_verification_required: t.age_verification_required,
    cod_amount: t.cod_amount_minor === null
      ? null
      : decimal(t.cod_amount_minor, t.billing_currency),
    currency: t.billing_currency,
  };
}

export const OfferOutcomeAnswer = z.object({
  offer_id: z.string(),
  outcome: z.enum(["accepted", "declined"]),
  reference: z.string(),
  status: z.string().openapi({
    description: "The trip's status: accepted, or queued behind the " +
      "driver's trip under way",
  }),
}).openapi("DriverOfferOutcome");
