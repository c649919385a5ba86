/**
 * What the booking and trip routes answer (Business API 2.2, 3.1, 7): the trip with its declared
 * and resolved vehicle fields, amounts as decimals in the zone's currency, times in UTC.
 */
import type { Context } from "hono";
import {
  cancellerOf,
  shownEtaMinutes,
  TRIP_STATUS_FLAGS,
  TRIP_STATUSES,
} from "../../../src/business/rules/trip_status.ts";
import { iso } from "../../../src/domain/iso.ts";
import { decimal } from "../../../src/domain/money.ts";
import type { AppEnv } from "../../../src/http/context.ts";
import { publicBaseUrl } from "../../../src/http/context.ts";
import { z } from "../../../src/http/route.ts";
import { orNull } from "../../../src/http/schemas.ts";
import { VehicleFieldsAnswer } from "./reference_data.ts";
import { trackingLinkStatus, type Trip } from "../../../actors/business/trip/mod.ts";
import { tripTrackingUrl } from "../../../src/business/rules/tracking.ts";

/**
 * spec: business 7: what a business's action on a trip whose booking is still in progress
 * answers (it carries Retry-After).
 */
export const BOOKING_IN_PROGRESS_REFUSAL = "the trip's booking is still being processed (its " +
  "charge may be taken, the trip made moments later): nothing changed, retry after " +
  "`Retry-After` (5) seconds";

export const PlaceAnswer = z.object({ address: z.string(), lat: z.number(), lng: z.number() });

export const TripAnswer = VehicleFieldsAnswer.extend({
  id: z.number().int().openapi({ description: "Numbered per business from 1, in booking order" }),
  reference: z.string().openapi({ example: "BK-7Q2M9X4K1C0D" }),
  tracking_url: orNull(z.string()).openapi({
    description: "The public tracking link (2.4); null while the link is revoked or expired",
  }),
  tracking_link_status: z.enum(["active", "revoked", "expired"]).openapi({
    description: "revoked until rotated (POST /business/trips/{trip}/tracking-link/rotate)",
  }),
  status: z.enum(TRIP_STATUSES),
  cancellable: z.boolean(),
  final: z.boolean(),
  type: z.enum(["ride", "parcel"]),
  segment: orNull(z.enum(["parcel", "cargo"])),
  billing_amount: z.number(),
  billing_currency: z.string(),
  eta_minutes: z.number().int().nullable().openapi({
    description: "Minutes to the destination estimated at booking; null once the trip ended " +
      "(the tracking view gives the live estimate from the driver's position)",
  }),
  chat_token: z.string(),
  is_test: z.boolean(),
  test: z.boolean(),
  external_reference: orNull(z.string()),
  passenger_name: orNull(z.string()),
  passenger_phone: orNull(z.string()),
  pickup_address: z.string(),
  pickup_lat: z.number(),
  pickup_lng: z.number(),
  dest_address: z.string(),
  dest_lat: z.number(),
  dest_lng: z.number(),
  stops: z.array(PlaceAnswer),
  scheduled_at: orNull(z.string()),
  prep_minutes: orNull(z.number().int()),
  handover_required: z.boolean(),
  ready_at: orNull(z.string()),
  order_payload: orNull(z.record(z.string(), z.unknown())),
  cod_amount: orNull(z.number()),
  delivery_code: orNull(z.string()),
  age_verification_required: z.boolean(),
  expense_code: orNull(z.string()),
  note: orNull(z.string()).openapi({ description: "The booking's note, as sent" }),
  shop_deliver: z.boolean(),
  parcel_weight_kg: orNull(z.number()),
  distance_km: z.number(),
  returning: z.boolean(),
  return_reason: orNull(z.string()).openapi({
    description: "Why the goods are going or went back: the failed delivery's reason, or " +
      "age_verification_refused; null unless a return started (as trip.completed says)",
  }),
  return_due_at: orNull(z.string()).openapi({
    description: "When a return started is due back at the pickup",
  }),
  delivery_outcome: orNull(z.enum(["delivered", "returned"])),
  created_at: z.string(),
  accepted_at: orNull(z.string()).openapi({ description: "When a driver accepted it" }),
  completed_at: orNull(z.string()).openapi({
    description: "When it completed (delivered, or returned); the export's column too",
  }),
  cancelled_at: orNull(z.string()),
  cancelled_by: orNull(z.enum(["business", "driver", "system"])).openapi({
    description: "business (its own cancel), driver, or system (no driver answered)",
  }),
  cancel_reason: orNull(z.string()),
  refund_status: z.enum(["not_charged", "charged", "pending", "refunded"]).openapi({
    description: "pending: cancelled, its charge not credited back yet (trip.cancelled is sent " +
      "again, refunded, once it is)",
  }),
  replayed: z.boolean().optional().openapi({
    description: "A retry of the same booking: the first trip",
  }),
  original_status: z.enum(TRIP_STATUSES).optional().openapi({
    description: "On a replay of a cancelled booking: cancelled",
  }),
  replay_terminal: z.boolean().optional().openapi({
    description: "On a replay of a cancelled booking: true; book again with a new reference",
  }),
  already_cancelled: z.boolean().optional(),
  scan_code: z.string().optional().openapi({
    description: "Custody scanning add-on only: the custody token (the driver's scanner takes " +
      "it with or without the hyphen, in any case)",
    example: "K7QM-2XPA",
  }),
  scanned_at: orNull(z.string()).optional().openapi({
    description: "Custody scanning add-on only: null until the driver's scan matches; stays " +
      "null on a forced collection",
  }),
  scan_label_url: z.string().optional().openapi({
    description: "Custody scanning add-on only: the A6 PDF label (X-Business-API-Key)",
  }),
  batch: z.object({
    id: z.string(),
    position: z.number().int(),
    stops: z.number().int(),
  }).optional().openapi({
    description: "A stop of a batch (POST /business/batches): the batch's id and the stop's " +
      "place in the driving order (1 first) of its stops",
  }),
}).openapi("Trip");

const when = (ms: number | null) => (ms === null ? null : iso(ms));

export function tripView(
  c: Context<AppEnv>,
  t: Trip,
  o: { replayed?: boolean; already_cancelled?: boolean } = {},
): z.infer<typeof TripAnswer> {
  const money = (minor: number) => decimal(minor, t.billing_currency);
  const flags = TRIP_STATUS_FLAGS[t.status];
  const link = trackingLinkStatus(t, c.get("env").clock.now());
  return {
    ...t.vehicle,
    id: t.id,
    reference: t.reference,
    // spec: business 2.4 rule 6: reads answer tracking_url null while the link is off.
    tracking_url: link === "active" ? tripTrackingUrl(publicBaseUrl(c), t.tracking_token) : null,
    tracking_link_status: link,
    status: t.status,
    cancellable: flags.cancellable,
    final: flags.final,
    type: t.type,
    segment: t.segment,
    billing_amount: money(t.billing_amount_minor),
    billing_currency: t.billing_currency,
    eta_minutes: shownEtaMinutes(t),
    chat_token: t.chat_token,
    is_test: t.is_test,
    test: t.is_test,
    external_reference: t.external_reference,
    passenger_name: t.passenger_name,
    passenger_phone: t.passenger_phone,
    pickup_address: t.pickup.address,
    pickup_lat: t.pickup.lat,
    pickup_lng: t.pickup.lng,
    dest_address: t.dest.address,
    dest_lat: t.dest.lat,
    dest_lng: t.dest.lng,
    stops: [...t.stops],
    scheduled_at: when(t.scheduled_at),
    prep_minutes: t.prep_minutes,
    handover_required: t.handover_required,
    ready_at: when(t.ready_at),
    order_payload: t.order_payload,
    cod_amount: t.cod_amount_minor === null ? null : money(t.cod_amount_minor),
    delivery_code: t.delivery_code,
    age_verification_required: t.age_verification_required,
    expense_code: t.expense_code,
    note: t.note ?? null,
    shop_deliver: t.shop_deliver,
    parcel_weight_kg: t.parcel_weight_kg,
    distance_km: t.distance_m / 1_000,
    returning: t.returning,
    return_reason: t.return_reason,
    return_due_at: t.return_due_at === null ? null : iso(t.return_due_at),
    delivery_outcome: t.delivery_outcome,
    created_at: iso(t.created_at),
    accepted_at: when(t.accepted_at),
    completed_at: when(t.completed_at),
    cancelled_at: when(t.cancelled_at),
    cancelled_by: cancellerOf(t.cancelled_by),
    cancel_reason: t.cancel_reason,
    // spec: business 3.1, 6: refunded once the wallet credited it, pending until then.
    refund_status: t.refund
      ? "refunded"
      : t.charge && t.status === "cancelled"
      ? "pending"
      : t.charge
      ? "charged"
      : "not_charged",
    ...(o.replayed ? { replayed: true } : {}),
    // spec: business 7: the replay of a cancelled delivery says so.
    ...(o.replayed && t.status === "cancelled"
      ? { original_status: "cancelled" as const, replay_terminal: true }
      : {}),
    ...(o.already_cancelled ? { already_cancelled: true } : {}),
    ...(t.batch === undefined
      ? {}
      : { batch: { id: t.batch.id, position: t.batch.position, stops: t.batch.stops } }),
    // spec: business 2.2: the custody fields only when the add-on is on.
    ...(t.scan_code === null ? {} : {
      scan_code: t.scan_code,
      scanned_at: when(t.scanned_at),
      scan_label_url: `${publicBaseUrl(c)}/api/business/trips/${t.reference}/label`,
    }),
  };
}
