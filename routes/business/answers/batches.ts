/**
 * What the batch routes answer (Business API 2.3, 4.2): the batch, its one vehicle, and its stops
 * in the driving order, each with its trip's id, reference and status (per-stop status).
 */
import type { Batch, BatchStop } from "../../../actors/business/batch.ts";
import type { StopTrips } from "../../../src/business/flows/batches.ts";
import { iso } from "../../../src/domain/iso.ts";
import { decimal } from "../../../src/domain/money.ts";
import { z } from "../../../src/http/route.ts";
import { orNull } from "../../../src/http/schemas.ts";
import { TRIP_STATUSES } from "../../../src/business/rules/trip_status.ts";
import { VehicleClassAnswer } from "./reference_data.ts";

const BatchStopAnswer = z.object({
  position: z.number().int().openapi({ description: "1 for the first stop the driver calls at" }),
  index: z.number().int().openapi({ description: "The stop's place in the request's stops[]" }),
  trip_id: orNull(z.number().int()).openapi({
    description: "The stop's trip (GET /business/trips/{id}); null while it is being booked",
  }),
  trip_reference: z.string(),
  status: z.enum([...TRIP_STATUSES, "booking"]).openapi({
    description: "The stop's trip status; booking until its trip exists",
  }),
  recipient_name: orNull(z.string()),
  recipient_phone: orNull(z.string()),
  pickup_address: z.string(),
  pickup_lat: z.number(),
  pickup_lng: z.number(),
  dest_address: z.string(),
  dest_lat: z.number(),
  dest_lng: z.number(),
  size: z.string().openapi({ description: "As sent (s, m, l, xl or in full)" }),
  parcel_size: z.string().openapi({ description: "The parcel size the stop is priced on" }),
  weight_kg: orNull(z.number()),
  billing_amount: z.number(),
});

export const BatchAnswer = z.object({
  id: z.string().openapi({ example: "BT-7Q2M9X4K1C0D" }),
  status: z.enum(["booking", "booked"]).openapi({
    description: "The batch's booking: booked once every stop's trip exists (a retry of the " +
      "same body completes one left booking). What became of each delivery, cancelled ones " +
      "included, is its stop's status",
  }),
  segment: z.enum(["parcel", "cargo"]),
  external_reference: orNull(z.string()),
  batch_reference: orNull(z.string()),
  vehicle_class: VehicleClassAnswer.openapi({
    description: "The batch's one vehicle, fitted to its largest stop",
  }),
  cargo_body_type: orNull(z.string()),
  cargo_capacity_class: orNull(z.string()),
  billing_amount: z.number().openapi({
    description: "The stops' billing amounts added up, as charged at booking; a cancelled " +
      "stop's charge is refunded to the wallet (its trip's refund_status, GET /business/wallet)",
  }),
  billing_currency: z.string(),
  stop_count: z.number().int(),
  stops: z.array(BatchStopAnswer),
  created_at: z.string(),
  replayed: z.boolean().optional().openapi({
    description: "A retry with the same reference and body: the first batch",
  }),
}).openapi("Batch");

function stopView(b: Batch, s: BatchStop, trips: StopTrips): z.infer<typeof BatchStopAnswer> {
  const trip = trips.get(s.trip_reference);
  return {
    position: s.position,
    index: s.index,
    trip_id: trip?.id ?? null,
    trip_reference: s.trip_reference,
    status: (trip?.status ?? "booking") as z.infer<typeof BatchStopAnswer>["status"],
    recipient_name: s.recipient_name,
    recipient_phone: s.recipient_phone,
    pickup_address: s.pickup.address,
    pickup_lat: s.pickup.lat,
    pickup_lng: s.pickup.lng,
    dest_address: s.dest.address,
    dest_lat: s.dest.lat,
    dest_lng: s.dest.lng,
    size: s.size,
    parcel_size: s.parcel_size,
    weight_kg: s.weight_kg,
    billing_amount: decimal(s.billing_amount_minor, b.billing_currency),
  };
}

export function batchView(
  b: Batch,
  trips: StopTrips,
  o: { replayed?: boolean } = {},
): z.infer<typeof BatchAnswer> {
  return {
    id: b.id,
    status: b.booked_at === null ? "booking" : "booked",
    segment: b.segment,
    external_reference: b.external_reference,
    batch_reference: b.batch_reference,
    vehicle_class: b.vehicle.vehicle_class,
    cargo_body_type: b.vehicle.cargo_body_type,
    cargo_capacity_class: b.vehicle.cargo_capacity_class,
    billing_amount: decimal(b.billing_amount_minor, b.billing_currency),
    billing_currency: b.billing_currency,
    stop_count: b.stops.length,
    stops: b.stops.map((s) => stopView(b, s, trips)),
    created_at: iso(b.created_at),
    ...(o.replayed ? { replayed: true } : {}),
  };
}
