/**
 * The booking body of Business API 2.1 as a schema: every field's shape and range, each bad field
 * named in one 422 validation_failed before anything is stored. What spans fields beyond the
 * destination (scheduled_at against the clock, test markers, the vehicle) is the flow's.
 */
import { z } from "../http/route.ts";
import { boundedArray, EVEN_WITH_BAD_FIELDS, PlainText, TEST_FLAGS } from "../http/schemas.ts";
import type { BookingRequest } from "./flows/book.ts";
import { EXTERNAL_REFERENCE_CHARS_MAX, parseScheduledAt } from "./rules/booking.ts";
import { BODY_TYPES, CAPACITY_CLASSES } from "./rules/catalogue.ts";
import { BOOKING_STOPS_MAX } from "./rules/fare.ts";
import { AUTOPILOT_SCENARIOS } from "./rules/sandbox_steps.ts";

/**
 * Required text of one line: a control character (an escape sequence, a bell, a line break) is
 * refused naming its field, as the driver routes refuse it: names, addresses and items reach the
 * driver app, labels and packing slips, where it would print as it was sent.
 */
export const Text = (max: number) => PlainText(max).min(1);
/** A route the examples of the documents (and the Postman collection) book: a served zone's. */
export const EXAMPLE_ROUTE = {
  pickup_address: "Main Mall, Gaborone",
  pickup_lat: -24.6545,
  pickup_lng: 25.9086,
  dest_address: "Plot 9, Block 8, Gaborone",
  dest_lat: -24.6019,
  dest_lng: 25.935,
} as const;
export const Latitude = z.number().min(-90).max(90).openapi({ example: EXAMPLE_ROUTE.pickup_lat });
export const Longitude = z.number().min(-180).max(180).openapi({
  example: EXAMPLE_ROUTE.pickup_lng,
});
export const DestLatitude = Latitude.openapi({ example: EXAMPLE_ROUTE.dest_lat });
export const DestLongitude = Longitude.openapi({ example: EXAMPLE_ROUTE.dest_lng });
/** A pickup and a destination with their coordinates, as batches, orders and subscriptions take. */
export const RouteFields = {
  pickup_address: Text(300),
  pickup_lat: Latitude,
  pickup_lng: Longitude,
  dest_address: Text(300),
  dest_lat: DestLatitude,
  dest_lng: DestLongitude,
};
export const Stop = z.object({
  address: Text(300),
  lat: Latitude.optional(),
  lng: Longitude.optional(),
}).superRefine((s, ctx) => requirePair(s.lat, s.lng, ["lat", "lng"], ctx), EVEN_WITH_BAD_FIELDS);

export const GEOCODED =
  "Optional: without the pair the address is geocoded (POST /business/geocode), " +
  "or the booking refused 422 address_not_found naming it";

/** Coordinates come as a pair or not at all: one alone is a mistake, not a request to geocode. */
export function requirePair(
  lat: number | undefined,
  lng: number | undefined,
  names: readonly [string, string],
  ctx: z.RefinementCtx,
): void {
  if ((lat === undefined) === (lng === undefined)) return;
  const missing = lat === undefined ? names[0] : names[1];
  const other = lat === undefined ? names[1] : names[0];
  ctx.addIssue({ code: "custom", path: [missing], message: `required with ${other}` });
}

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
    description: "In the billing currency, exact (more decimals than it has: 422 naming it); " +
      "printed on packing slips only with show_prices",
  }),
}).loose();

const OrderPayload = z.object({
  store_name: Text(200).optional(),
  items: boundedArray(Item, 200).optional(),
  pieces: z.number().int().min(1).max(1_000).optional(),
  external_reference: z.string().max(EXTERNAL_REFERENCE_CHARS_MAX).optional().openapi({
    description:
      "The booking's external_reference is copied here (an order_payload of its own when none " +
      "is sent): another value is refused",
  }),
}).loose();

/**
 * spec: business 2.1, 2.5: the bulky-goods block's terms (needs, service level, access, delivery
 * window) are not taken yet. Dropped unseen, an order would go out without the lift, the room or
 * the window it was booked with, so each sent is refused, named.
 */
const BULKY_TERMS = ["needs", "service_level", "access", "delivery_window"] as const;
const BULKY_REFUSED = "the bulky-goods block (Business API 2.5) is not taken yet: book without it";
const BULKY_BLOCK = Object.fromEntries(BULKY_TERMS.map((f) => [
  f,
  z.unknown().optional().openapi({
    description: "Business API 2.5, not taken yet: sent, the booking is refused 422 naming it",
  }),
])) as Record<typeof BULKY_TERMS[number], z.ZodOptional<z.ZodUnknown>>;

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
  segment: z.enum(["parcel", "cargo"]).optional().openapi({
    description: "A delivery's (type parcel): cargo for cargo; refused on a ride",
  }),
  passenger_name: Text(200).optional(),
  passenger_phone: Text(40).optional(),
  checkout_reference: Text(40).optional().openapi({
    description: "Books a checkout (POST /business/checkouts) at the price it holds: its route " +
      "and goods are the checkout's, so pickup_*, dest_*, dropoff_*, stops, vehicle_type_id, " +
      "parcel_*, cargo_* and goods are refused beside it. 409 checkout_expired, " +
      "checkout_cancelled or checkout_booked when it is no longer held",
  }),
  pickup_address: Text(300).optional().openapi({
    description: "Required unless checkout_reference",
  }),
  pickup_lat: Latitude.optional().openapi({ description: GEOCODED }),
  pickup_lng: Longitude.optional(),
  dropoff_address: Text(300).optional().openapi({
    description: "A ride's destination set (dest_* a delivery's); the other set, if sent too, " +
      "must name the same place field for field, or 422 validation_failed names each difference",
  }),
  dropoff_lat: DestLatitude.optional(),
  dropoff_lng: DestLongitude.optional(),
  dest_address: Text(300).optional(),
  dest_lat: DestLatitude.optional().openapi({ description: GEOCODED }),
  dest_lng: DestLongitude.optional(),
  stops: boundedArray(Stop, BOOKING_STOPS_MAX).optional().openapi({
    description: `Up to ${BOOKING_STOPS_MAX} stops between pickup and destination, in order`,
  }),
  expense_code: Text(100).optional(),
  vehicle_type_id: z.number().int().min(1).max(1_000_000).optional(),
  external_reference: Text(EXTERNAL_REFERENCE_CHARS_MAX).optional(),
  scheduled_at: Text(40).superRefine((text, ctx) => {
    const parsed = parseScheduledAt(text);
    if (!parsed.ok) ctx.addIssue({ code: "custom", message: parsed.message });
  }).optional().openapi({
    description: "ISO 8601 (`YYYY-MM-DDTHH:MM[:SS]` then Z, an offset or none); without an " +
      "offset read as UTC+2. Another format, or a day or time that does not exist, is refused " +
      "422 naming it. Past: refused; within 10 minutes: now",
  }),
  prep_minutes: z.number().int().min(0).max(24 * 60).optional(),
  handover_required: z.boolean().optional(),
  order_payload: OrderPayload.optional(),
  note: PlainText(1_000, { lines: true }).optional(),
  cod_amount: z.number().min(0).max(1_000_000).optional(),
  shop_deliver: z.boolean().optional(),
  delivery_code: Text(32).optional(),
  age_verification_required: z.boolean().optional(),
  parcel_weight_kg: z.number().positive().max(100_000).optional(),
  parcel_size: Text(32).optional(),
  cargo_body_type: z.enum(BODY_TYPES).optional(),
  cargo_capacity_class: z.enum(CAPACITY_CLASSES).optional(),
  goods: boundedArray(Goods, 100).optional(),
  ...BULKY_BLOCK,
  sandbox_scenario: z.enum(AUTOPILOT_SCENARIOS).optional().openapi({
    description: "Sandbox only (refused on live): the autopilot scenario this booking runs " +
      "(section 4.4), whatever PUT /business/sandbox/autopilot set; off runs none; " +
      "id_refused only with age_verification_required true (else 422 validation_failed)",
  }),
  ...TEST_FLAGS,
}).superRefine((b, ctx) => {
  refuseIdRefusedUnrestricted(b, ctx);
  refuseSent(b, BULKY_TERMS, BULKY_REFUSED, ctx);
  refuseOtherNestedReference(b, ctx);
  if (b.checkout_reference !== undefined) {
    return refuseSent(
      b,
      CHECKOUT_DECIDES,
      "the checkout named by checkout_reference decides " +
        "it: leave it out",
      ctx,
    );
  }
  // spec: business 2.1: "for cargo send type parcel with segment: cargo": a delivery's segment.
  if (b.type === "ride" && b.segment !== undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["segment"],
      message: `a ride has no segment: for a delivery send type parcel: ${b.segment}`,
    });
  }
  if (b.pickup_address === undefined) {
    ctx.addIssue({ code: "custom", path: ["pickup_address"], message: "required" });
  }
  const { prefix, place } = destinationOf(b);
  refuseDisagreeingSets(b, prefix, ctx);
  if (place.address === undefined) {
    ctx.addIssue({ code: "custom", path: [`${prefix}_address`], message: "required" });
  }
  requirePair(place.lat, place.lng, [`${prefix}_lat`, `${prefix}_lng`], ctx);
  requirePair(b.pickup_lat, b.pickup_lng, ["pickup_lat", "pickup_lng"], ctx);
}, EVEN_WITH_BAD_FIELDS).openapi({
  // One booking as an integrator sends it: the sampled one (every optional field) is refused.
  example: {
    type: "parcel",
    passenger_name: "Neo Kgosi",
    passenger_phone: "+26771234567",
    ...EXAMPLE_ROUTE,
    parcel_size: "small",
    external_reference: "ORDER-1001",
    note: "Ring at the gate",
  },
});

/** Each of `fields` that `b` sends is a field to leave out, named with `message`. */
function refuseSent(
  b: Record<string, unknown>,
  fields: readonly string[],
  message: string,
  ctx: z.RefinementCtx,
): void {
  for (const field of fields) {
    if (b[field] !== undefined) ctx.addIssue({ code: "custom", path: [field], message });
  }
}

/**
 * spec: business 4.4: `id_refused` is the scenario of age-restricted orders; on any other order
 * its id_refused step is refused every time and the trip is given up, so it is refused here.
 */
function refuseIdRefusedUnrestricted(
  b: { sandbox_scenario?: string | undefined; age_verification_required?: boolean | undefined },
  ctx: z.RefinementCtx,
): void {
  if (b.sandbox_scenario !== "id_refused" || b.age_verification_required === true) return;
  ctx.addIssue({
    code: "custom",
    path: ["sandbox_scenario"],
    message: "id_refused runs only on an age-restricted order: send age_verification_required true",
  });
}

/**
 * spec: business 2.1: external_reference "copied into order_payload.external_reference": the
 * copy overwrites the nested one, so another value there (or one without the booking's) would be
 * dropped unseen.
 */
function refuseOtherNestedReference(
  b: Pick<BookBody, "external_reference" | "order_payload">,
  ctx: z.RefinementCtx,
): void {
  const nested = b.order_payload?.external_reference;
  if (nested === undefined || nested === b.external_reference) return;
  ctx.addIssue({
    code: "custom",
    path: ["order_payload", "external_reference"],
    message: "the booking's external_reference is copied here: send it at the top level " +
      `(external_reference: ${b.external_reference ?? "none"})`,
  });
}

type DestinationSet = "dropoff" | "dest";
type DestinationFields = Pick<
  BookBody,
  `${DestinationSet}_${"address" | "lat" | "lng"}` | "type"
>;
const PLACE_FIELDS = ["address", "lat", "lng"] as const;

function setOf(b: DestinationFields, prefix: DestinationSet) {
  return {
    address: b[`${prefix}_address`],
    lat: b[`${prefix}_lat`],
    lng: b[`${prefix}_lng`],
  };
}

function sent(b: DestinationFields, prefix: DestinationSet): boolean {
  return PLACE_FIELDS.some((f) => b[`${prefix}_${f}`] !== undefined);
}

/**
 * spec: business 2.1: dropoff_* is a ride's destination, dest_* a delivery's. The type's own set
 * is taken whole; the other set whole only when the type's is absent, never a field of each (an
 * address from one beside coordinates of the other would be a place nobody sent).
 */
function destinationOf(b: DestinationFields) {
  const own: DestinationSet = b.type === "ride" ? "dropoff" : "dest";
  const other: DestinationSet = own === "dropoff" ? "dest" : "dropoff";
  const prefix = !sent(b, own) && sent(b, other) ? other : own;
  return { prefix, place: setOf(b, prefix) };
}

/** Both sets sent must name one place, field for field, or each difference is named (422). */
function refuseDisagreeingSets(b: DestinationFields, taken: DestinationSet, ctx: z.RefinementCtx) {
  const other: DestinationSet = taken === "dropoff" ? "dest" : "dropoff";
  if (!sent(b, other)) return;
  for (const f of PLACE_FIELDS) {
    if (b[`${taken}_${f}`] === b[`${other}_${f}`]) continue;
    ctx.addIssue({
      code: "custom",
      path: [`${other}_${f}`],
      message: `differs from ${taken}_${f}: send one destination set (${taken}_* for this type)`,
    });
  }
}

/** The fields a checkout decided: sent beside checkout_reference they would be dropped unseen. */
const CHECKOUT_DECIDES = [
  "pickup_address",
  "pickup_lat",
  "pickup_lng",
  "dropoff_address",
  "dropoff_lat",
  "dropoff_lng",
  "dest_address",
  "dest_lat",
  "dest_lng",
  "stops",
  "vehicle_type_id",
  "parcel_size",
  "parcel_weight_kg",
  "cargo_body_type",
  "cargo_capacity_class",
  "goods",
  "segment",
] as const;

export type BookBody = z.infer<typeof BookRequest>;

/** The flow's request from the checked body (the destination set chosen, item names listed). */
export function toBookingRequest(b: BookBody): BookingRequest {
  const { pickup_address, pickup_lat, pickup_lng, order_payload, ...rest } = b;
  const destination = destinationOf(b);
  return {
    ...rest,
    // With checkout_reference the places are the checkout's (the flow takes them from it).
    pickup: { address: pickup_address ?? "", lat: pickup_lat, lng: pickup_lng },
    dest: { ...destination.place, address: destination.place.address ?? "" },
    dest_field: `${destination.prefix}_address`,
    ...(order_payload ? { order_payload } : {}),
    item_names: (order_payload?.items ?? []).map((i) => i.name),
  };
}
