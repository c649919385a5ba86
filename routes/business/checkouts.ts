/**
 * Business API 4.1 checkouts: a delivery option for a shop's cart, priced by the fare calculator
 * and held until `expires_at`; the order's booking (POST /business/book with
 * `checkout_reference`) is billed the price held; cancel or expiry releases it.
 */
import {
  cancelCheckout,
  type CheckoutRequest,
  getCheckout,
  openCheckout,
} from "../../src/business/flows/checkouts.ts";
import {
  DestLatitude,
  DestLongitude,
  GEOCODED,
  Latitude,
  Longitude,
  requirePair,
  Stop,
  Text,
} from "../../src/business/booking_schema.ts";
import { boundedArray, EVEN_WITH_BAD_FIELDS } from "../../src/http/schemas.ts";
import { IDEMPOTENCY_KEY_CHARS_MAX } from "../../src/business/rules/booking.ts";
import { BODY_TYPES, CAPACITY_CLASSES } from "../../src/business/rules/catalogue.ts";
import {
  CHECKOUT_CART_BYTES_MAX,
  CHECKOUT_HOLD_MINUTES_DEFAULT,
  CHECKOUT_HOLD_MINUTES_MAX,
  CHECKOUT_STATUSES,
} from "../../src/business/rules/checkout.ts";
import { checkoutPage } from "../../src/business/queries/checkouts.ts";
import { afterCursor, nextCursor } from "../../src/http/cursor.ts";
import { wholeNumber } from "../../src/http/schemas.ts";
import { BOOKING_STOPS_MAX } from "../../src/business/rules/fare.ts";
import { type Api, ok } from "../../src/http/app.ts";
import { idempotencyHeader } from "../../src/http/idempotency.ts";
import { define, z } from "../../src/http/route.ts";
import { business } from "../../src/platform/auth/auth.ts";
import { businessCall } from "../../src/platform/auth/caller.ts";
import { problemsBesideTheSchema } from "../../src/business/flows/booking_checks.ts";
import { CheckoutAnswer, checkoutView } from "./answers/checkouts.ts";

// spec: business 4.1 lists checkouts among bookings and trips (the Postman folder follows it).
const tag = "Bookings and trips";
const security = "business" as const;
// spec: business 5: the deliveries scope reaches checkouts (POST, GET, GET /{reference}, cancel).
const deliveries = [business({ scope: "deliveries" })];
const CheckoutReference = z.object({ reference: z.string().min(1).max(40) });

const OpenCheckoutRequest = z.object({
  cart_reference: Text(80).optional().openapi({
    description: "Your cart or order id: the same one with the same body answers the first " +
      "checkout (200, replayed); with other details 409 reference_conflict",
  }),
  cart: z.object({}).loose().optional().openapi({
    description: "The cart as you describe it (items, totals): kept and answered, not priced; " +
      `up to ${CHECKOUT_CART_BYTES_MAX} bytes of JSON (UTF-8), a larger one is refused ` +
      "422 `too_large` naming the cart",
  }),
  pickup_address: Text(300),
  pickup_lat: Latitude.optional().openapi({ description: GEOCODED }),
  pickup_lng: Longitude.optional(),
  dest_address: Text(300),
  dest_lat: DestLatitude.optional().openapi({ description: GEOCODED }),
  dest_lng: DestLongitude.optional(),
  stops: boundedArray(Stop, BOOKING_STOPS_MAX).optional(),
  segment: z.enum(["parcel", "cargo"]).optional(),
  vehicle_type_id: z.number().int().min(1).max(1_000_000).optional(),
  parcel_size: Text(32).optional().openapi({ example: "small" }),
  parcel_weight_kg: z.number().positive().max(100_000).optional(),
  cargo_body_type: z.enum(BODY_TYPES).optional(),
  cargo_capacity_class: z.enum(CAPACITY_CLASSES).optional(),
  hold_minutes: z.number().int().min(1).max(CHECKOUT_HOLD_MINUTES_MAX).optional().openapi({
    description: `How long the price is held; default ${CHECKOUT_HOLD_MINUTES_DEFAULT}`,
  }),
}).superRefine((b, ctx) => {
  requirePair(b.pickup_lat, b.pickup_lng, ["pickup_lat", "pickup_lng"], ctx);
  requirePair(b.dest_lat, b.dest_lng, ["dest_lat", "dest_lng"], ctx);
}, EVEN_WITH_BAD_FIELDS);

type OpenBody = z.infer<typeof OpenCheckoutRequest>;

function checkoutRequestOf(b: OpenBody): CheckoutRequest {
  return {
    cart_reference: b.cart_reference,
    cart: b.cart,
    pickup: {
      path: "pickup_address",
      address: b.pickup_address,
      lat: b.pickup_lat,
      lng: b.pickup_lng,
    },
    dest: { path: "dest_address", address: b.dest_address, lat: b.dest_lat, lng: b.dest_lng },
    stops: (b.stops ?? []).map((s, i) => ({ path: `stops.${i}.address`, ...s })),
    goods: {
      segment: b.segment ?? null,
      vehicle_type_id: b.vehicle_type_id ?? null,
      parcel_size: b.parcel_size ?? null,
      parcel_weight_kg: b.parcel_weight_kg ?? null,
      cargo_body_type: b.cargo_body_type ?? null,
      cargo_capacity_class: b.cargo_capacity_class ?? null,
    },
    hold_minutes: b.hold_minutes,
  };
}

function openRoute(api: Api): void {
  define(api, {
    method: "post",
    path: "/business/checkouts",
    summary: "Hold a priced delivery option for a cart",
    description: "Prices the delivery of a cart with the fare estimate's calculator (the " +
      "account's vehicle_upgrade_policy included; places without coordinates are geocoded as " +
      "POST /business/geocode does) and holds that price until `expires_at` (`hold_minutes`, " +
      `default ${CHECKOUT_HOLD_MINUTES_DEFAULT}). Nothing is charged: the order's booking, POST ` +
      "/business/book with `checkout_reference`, is billed exactly the price held, with the " +
      "checkout's route and goods. Cancel (POST /business/checkouts/{reference}/cancel) or " +
      "expiry releases it; a released checkout cannot be booked (409).",
    tag,
    security,
    middleware: deliveries,
    body: OpenCheckoutRequest,
    alsoCheck: (c, sent) => problemsBesideTheSchema(businessCall(c).env, sent, "goods"),
    status: 201,
    replay: "The same cart_reference (else Idempotency-Key) with the same body",
    idempotencyKey: "Up to 64 characters; cart_reference wins over it",
    response: CheckoutAnswer,
    refusals: {
      reference_conflict: "the cart_reference (else Idempotency-Key) opened a checkout with " +
        "other details: nothing changed",
      address_not_found: "a place sent without coordinates has no candidate confident enough",
      vehicle_upgrade_refused: "vehicle_type_id is too small for the goods and the account " +
        "refuses the upgrade",
      no_vehicle_fits: "no vehicle type can carry the goods declared",
      outside_service_area: "no zone serves the pickup (GET /business/zones)",
    },
  }, async (c, { body }) => {
    const { env, tenant } = businessCall(c);
    const r = await openCheckout(env, tenant, {
      request: checkoutRequestOf(body),
      body,
      idempotencyKey: idempotencyHeader(c, IDEMPOTENCY_KEY_CHARS_MAX),
    });
    return ok(c, checkoutView(r.checkout, r), r.replayed ? 200 : 201);
  });
}

function readRoutes(api: Api): void {
  define(api, {
    method: "get",
    path: "/business/checkouts/{reference}",
    summary: "One checkout: its price, hold and outcome",
    description: "Read from the checkout itself: one past `expires_at` reads expired at once; " +
      "another business's reference is not found.",
    tag,
    security,
    middleware: deliveries,
    params: CheckoutReference,
    response: CheckoutAnswer,
  }, async (c, { params }) => {
    const { env, tenant } = businessCall(c);
    return ok(c, checkoutView(await getCheckout(env, tenant, params.reference)));
  });
  define(api, {
    method: "post",
    path: "/business/checkouts/{reference}/cancel",
    summary: "Release a checkout's held price",
    description: "An open checkout is cancelled; one already cancelled or expired answers as " +
      "it is (replayed). A booked checkout is refused: cancel its trip.",
    tag,
    security,
    middleware: deliveries,
    params: CheckoutReference,
    body: z.object({ reason: Text(500).optional() }).optional(),
    response: CheckoutAnswer,
    refusals: {
      checkout_booked: "the checkout is booked (or being booked): cancel its trip instead",
    },
  }, async (c, { params, body }) => {
    const { env, tenant } = businessCall(c);
    const r = await cancelCheckout(env, tenant, params.reference, body?.reason ?? null);
    return ok(c, checkoutView(r.checkout, r));
  });
}

/** Checkouts per page, at most (as trips). */
const CHECKOUTS_PAGE_MAX = 100;

const ListQuery = z.object({
  status: z.enum(CHECKOUT_STATUSES).optional(),
  cart_reference: z.string().trim().min(1).max(80).optional(),
  per_page: wholeNumber(1, CHECKOUTS_PAGE_MAX).default(25),
  cursor: z.string().max(200).optional(),
});

function listRoute(api: Api): void {
  define(api, {
    method: "get",
    path: "/business/checkouts",
    summary: "Checkouts, newest first",
    description: "From the checkouts' read table, which trails a change by the projection lag " +
      "(a checkout expires on its timer: its status here follows once projected); " +
      "`meta.next_cursor` asks the next page. One checkout reads the checkout itself.",
    tag,
    security,
    middleware: deliveries,
    query: ListQuery,
    paged: "cursor",
    response: z.array(CheckoutAnswer),
  }, async (c, { query }) => {
    const { env, tenant } = businessCall(c);
    const page = await checkoutPage(env.db, tenant, {
      status: query.status,
      cart_reference: query.cart_reference,
    }, { limit: query.per_page, after: afterCursor(query.cursor) });
    return ok(c, page.rows.map((r) => checkoutView(r)), 200, {
      limit: query.per_page,
      next_cursor: nextCursor(page.next),
    });
  });
}

export function checkoutRoutes(api: Api): void {
  openRoute(api);
  listRoute(api);
  readRoutes(api);
}
