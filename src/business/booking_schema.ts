/**
 * The booking body of Business API 2.1 as a schema: every field's shape and range, each bad field
 * named in one 422 validation_failed before anything is stored. What spans fields beyond the
 * destination (scheduled_at against the clock, test markers, the vehicle) is the flow's.
 */
import { z } from "../http/route.ts";
import type { BookingRequest } from "./flows/book.ts";
import { EXTERNAL_REFERENCE_CHARS_MAX } from "./rules/booking.ts";
import { BODY_TYPES, CAPACITY_CLASSES } from "./rules/catalogue.ts";
import { BOOKING_STOPS_MAX } from "./rules/fare.ts";
import { AUTOPILOT_SCENARIOS } from "./rules/sandbox_steps.ts";

const Text = (max: number) => z.string().trim().min(1).max(max);
const Latitude = z.number().min(-90).max(90);
const Longitude = z.number().min(-180).max(180);
const Stop = z.object({ address: Text(300), lat: Latitude, lng: Longitude });

const Item = z.object({
  name: Text(200),
  qty: z.number().int().min(1).max(10_000),
  qty_packed: z.number().int().min(0).max(10_000).optional(),
  substitute: z.union([z.string().max(200), z.boolean()]).optional().openapi({
    description: "Once packed: the product packed instead (text); before: true or false, whether " +
      "a substitute is welcome",
  }),
  // spec: business 4.1: what the pick list and the packing slip print of an item.
  store: Text(200).optional().openapi({ description: "The item's store on a multi-store order" }),
  aisle: z.union([Text(40), z.number().int().min(0).max(100_000)]).optional(),
  barcode: Text(64).optional(),
  sku: Text(64).optional(),
  substitution_preference: Text(200).optional(),
  unit_price: z.number().min(0).max(1_000_000).optional().openapi({
    description: "In the billing currency; printed on packing slips only with show_prices",
  }),
}).loose();

const OrderPayload = z.object({
  store_name: Text(200).optional(),
  items: z.array(Item).max(200).optional(),
  pieces: z.number().int().min(1).max(1_000).optional(),
  external_reference: z.string().max(EXTERNAL_REFERENCE_CHARS_MAX).optional(),
}).loose();

const Goods = z.object({
  description: Text(200).optional(),
  weight_kg: z.number().positive().max(100_000).optional(),
  length_cm: z.number().positive().max(5_000),
  width_cm: z.number().positive().max(5_000),
  height_cm: z.number().positive().max(5_000),
  upright: z.boolean().optional(),
});

export const BookRequest = z.object({
  type: z.enum(["ride", "parcel"], {
    message: "ride or parcel; for cargo send type parcel with segment cargo",
  }),
  segment: z.enum(["parcel", "cargo"]).optional(),
  passenger_name: Text(200).optional(),
  passenger_phone: Text(40).optional(),
  pickup_address: Text(300),
  pickup_lat: Latitude,
  pickup_lng: Longitude,
  dropoff_address: Text(300).optional(),
  dropoff_lat: Latitude.optional(),
  dropoff_lng: Longitude.optional(),
  dest_address: Text(300).optional(),
  dest_lat: Latitude.optional(),
  dest_lng: Longitude.optional(),
  stops: z.array(Stop).max(BOOKING_STOPS_MAX).optional().openapi({
    description: `Up to ${BOOKING_STOPS_MAX} stops between pickup and destination, in order`,
  }),
  expense_code: Text(100).optional(),
  vehicle_type_id: z.number().int().min(1).max(1_000_000).optional(),
  external_reference: Text(EXTERNAL_REFERENCE_CHARS_MAX).optional(),
  scheduled_at: Text(40).optional().openapi({
    description: "ISO 8601; without an offset read as UTC+2. Past: refused; within 10 minutes: now",
  }),
  prep_minutes: z.number().int().min(0).max(24 * 60).optional(),
  handover_required: z.boolean().optional(),
  order_payload: OrderPayload.optional(),
  note: z.string().max(1_000).optional(),
  cod_amount: z.number().min(0).max(1_000_000).optional(),
  shop_deliver: z.boolean().optional(),
  delivery_code: Text(32).optional(),
  age_verification_required: z.boolean().optional(),
  parcel_weight_kg: z.number().positive().max(100_000).optional(),
  parcel_size: Text(32).optional(),
  cargo_body_type: z.enum(BODY_TYPES).optional(),
  cargo_capacity_class: z.enum(CAPACITY_CLASSES).optional(),
  goods: z.array(Goods).max(100).optional(),
  sandbox_scenario: z.enum(AUTOPILOT_SCENARIOS).optional().openapi({
    description: "Sandbox only (refused on live): the autopilot scenario this booking runs " +
      "(section 4.4), whatever PUT /business/sandbox/autopilot set; off runs none",
  }),
  test: z.boolean().optional().openapi({ description: "Refused on live; ignored in the sandbox" }),
  dry_run: z.boolean().optional().openapi({
    description: "Refused on live; ignored in the sandbox",
  }),
}).superRefine((b, ctx) => {
  // spec: business 2.1: dropoff_* for a ride, dest_* for a delivery: one whole set.
  const dest = b.dest_address ?? b.dropoff_address;
  const lat = b.dest_lat ?? b.dropoff_lat, lng = b.dest_lng ?? b.dropoff_lng;
  const prefix = b.type === "ride" ? "dropoff" : "dest";
  if (dest === undefined) {
    ctx.addIssue({ code: "custom", path: [`${prefix}_address`], message: "required" });
  }
  if (lat === undefined) {
    ctx.addIssue({ code: "custom", path: [`${prefix}_lat`], message: "required" });
  }
  if (lng === undefined) {
    ctx.addIssue({ code: "custom", path: [`${prefix}_lng`], message: "required" });
  }
});

export type BookBody = z.infer<typeof BookRequest>;

/** The flow's request from the checked body (the destination set chosen, item names listed). */
export function toBookingRequest(b: BookBody): BookingRequest {
  const { pickup_address, pickup_lat, pickup_lng, order_payload, ...rest } = b;
  return {
    ...rest,
    pickup: { address: pickup_address, lat: pickup_lat, lng: pickup_lng },
    dest: {
      address: (b.dest_address ?? b.dropoff_address)!,
      lat: (b.dest_lat ?? b.dropoff_lat)!,
      lng: (b.dest_lng ?? b.dropoff_lng)!,
    },
    ...(order_payload ? { order_payload } : {}),
    item_names: (order_payload?.items ?? []).map((i) => i.name),
  };
}
