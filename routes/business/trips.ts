/**
 * Business API 4.1 bookings and trips: POST /business/book (2.1, 7, appendix), the trip (2.2),
 * its cancellation and ready mark (3.1). `{id}` is the integer id or the reference everywhere.
 */
import { bookTrip } from "../../src/business/flows/book.ts";
import { problemsBesideTheSchema } from "../../src/business/flows/booking_checks.ts";
import { bookCheckout } from "../../src/business/flows/checkouts.ts";
import { dispatcherOf } from "../../src/business/reactors/dispatcher.ts";
import { tripNumbersOf } from "../../src/business/flows/trip_numbers.ts";
import { askTrip, markTripReady } from "../../src/business/flows/trips.ts";
import {
  BOOKING_RETRY_AFTER_SECONDS,
  DEFAULT_OFFSET,
  EXTERNAL_REFERENCE_CHARS_MAX,
  IDEMPOTENCY_KEY_CHARS_MAX,
  IN_PROGRESS_CODES,
} from "../../src/business/rules/booking.ts";
import { type Api, ok } from "../../src/http/app.ts";
import { retryAfter, validationFailed } from "../../src/http/errors.ts";
import { idempotencyHeader } from "../../src/http/idempotency.ts";
import { define, z } from "../../src/http/route.ts";
import { afterCursor, nextCursor } from "../../src/http/cursor.ts";
import { PlainText, wholeNumber } from "../../src/http/schemas.ts";
import { tripPage } from "../../src/business/queries/trips.ts";
import { tripsCsvStream } from "../../src/business/queries/trips_export.ts";
import { TRIP_STATUSES } from "../../src/business/rules/trip_status.ts";
import { rangeBound } from "../../src/domain/range_bound.ts";
import { business } from "../../src/platform/auth/auth.ts";
import { businessCall } from "../../src/platform/auth/caller.ts";
import { BookRequest, toBookingRequest } from "../../src/business/booking_schema.ts";
import { BOOKING_IN_PROGRESS_REFUSAL, TripAnswer, tripView } from "./answers/trips.ts";
import { TripDetailAnswer, tripDetailView } from "./answers/trip_detail.ts";
import { tripDetail } from "../../src/business/flows/trip_detail.ts";

const tag = "Bookings and trips";
const security = "business" as const;
// spec: business 5: the deliveries scope books, reads, cancels and marks ready.
const deliveries = [business({ scope: "deliveries" })];
const TripId = z.object({
  id: z.string().min(1).max(40).openapi({ description: "The integer id or the reference" }),
});
const TripReference = z.object({ reference: z.string().min(1).max(40) });

// spec: business 7: in progress answers carry Retry-After (5 seconds).
const withRetryAfter = retryAfter(IN_PROGRESS_CODES, BOOKING_RETRY_AFTER_SECONDS);

function bookRoute(api: Api): void {
  define(api, {
    method: "post",
    path: "/business/book",
    summary: "Book a ride or a delivery",
    description: "Types ride and parcel (cargo: parcel with segment cargo). The trip is priced " +
      "by the fare estimate's calculator and charged to the wallet in the same step; the same " +
      `external_reference (at most ${EXTERNAL_REFERENCE_CHARS_MAX} characters), or without one ` +
      "the same Idempotency-Key, with the same body answers the first trip (200, replayed). A " +
      "refused booking leaves the reference free. With checkout_reference the order books a " +
      "checkout: its route, goods and held price (billed exactly as held), the trip named by the " +
      "checkout unless an external_reference or Idempotency-Key names it; a refused booking " +
      "gives the checkout's hold back.",
    tag,
    security,
    middleware: deliveries,
    body: BookRequest,
    alsoCheck: (c, sent) => problemsBesideTheSchema(businessCall(c).env, sent),
    status: 201,
    replay: "The same external_reference (else Idempotency-Key) with the same body: field order " +
      "aside, and a field sent at the value leaving it out means (stops [], handover_required, " +
      "age_verification_required and shop_deliver false, a parcel's segment parcel, " +
      "order_payload.external_reference the booking's own; in the sandbox test and dry_run) as " +
      "if left out",
    idempotencyKey: "Up to 64 characters; a body external_reference wins over it, and it never " +
      "becomes the order's external_reference",
    response: TripAnswer,
    refusals: {
      external_reference_conflict: "the external_reference was booked with other details: the " +
        "original's reference is named, nothing changed",
      booking_in_progress: "the first booking of this external_reference is still being " +
        "processed: retry after `Retry-After` (5) seconds",
      reference_conflict: "the Idempotency-Key was used with another body",
      request_in_progress: "the first request with this Idempotency-Key is still running: retry " +
        "after `Retry-After` seconds",
      test_mode_moved_to_sandbox: "test, dry_run, X-Service-Test or sandbox_scenario on live",
      test_booking_refused: "on live, a name, item, address or note starting with __TEST, " +
        "[TEST], TEST ORDER or DO NOT DELIVER; operations is alerted",
      insufficient_balance: "the wallet cannot pay the fare: nothing charged, the reference " +
        "stays free",
      vehicle_upgrade_refused: "vehicle_type_id is too small for the goods and the account " +
        "refuses the upgrade (or caps it at one size): the reason is given",
      no_vehicle_fits: "no vehicle type can carry the goods declared",
      outside_service_area: "no zone serves the pickup (GET /business/zones)",
      not_found: "checkout_reference names no checkout of this business",
      checkout_expired: "checkout_reference names a checkout whose hold expired: open another",
      checkout_cancelled: "checkout_reference names a cancelled checkout: open another",
      checkout_booked: "checkout_reference names a checkout another booking (other details, or " +
        "another Idempotency-Key) booked or is booking: its trip_reference is given when booked",
      address_not_found: "a place sent without coordinates has no candidate confident enough " +
        "(0.6, POST /business/geocode): `errors` names its address field, nothing is booked",
      checkout_released: "this booking stopped before its charge and the checkout's sweep gave " +
        "its hold back: nothing charged, book it again",
    },
  }, async (c, { body }) => {
    const { env, tenant, by } = businessCall(c);
    const idempotencyKey = idempotencyHeader(c, IDEMPOTENCY_KEY_CHARS_MAX);
    // spec: business 3.1: the dispatcher may offer the trip in its creation's commit.
    const input = { request: toBookingRequest(body), body, idempotencyKey, by };
    const deps = { ...env, offers: dispatcherOf(env), numbers: tripNumbersOf(env) };
    const booked = await (body.checkout_reference === undefined
      ? bookTrip(deps, tenant, input)
      : bookCheckout(deps, tenant, body.checkout_reference, input)).catch(withRetryAfter);
    return ok(
      c,
      tripView(c, booked.trip, { replayed: booked.replayed }),
      booked.replayed ? 200 : 201,
    );
  });
}

/** spec: business 4.1: trips per page, at most. */
const TRIPS_PAGE_MAX = 100;

const TripsQuery = z.object({
  month: z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/, "YYYY-MM").optional().openapi({
    description: "YYYY-MM: trips created in that month in the market's time (UTC+2)",
  }),
  reference: z.string().trim().min(1).max(80).optional().openapi({
    description: "The trip's reference or your external_reference, exactly",
  }),
  // No control characters: one (the search text's field separator) matched every trip.
  search: PlainText(100).min(1).optional().openapi({
    description: "Part of the reference, passenger, an address or the external_reference",
  }),
  test: z.enum(["0", "1"]).optional(),
  per_page: wholeNumber(1, TRIPS_PAGE_MAX).default(25),
  cursor: z.string().max(200).optional(),
});

/** A number past every trip's: the whole millisecond of a cursor given before numbers. */
const ALL_OF_ITS_MILLISECOND = "999999999999999";

/**
 * The page a trips cursor asks after: its id is a trip number (the list's tie-break). A cursor
 * this list gave before it broke ties by number names a reference: it goes on from its
 * millisecond whole (a trip of that millisecond may repeat, none is skipped), so a client paging
 * across the upgrade is not refused.
 */
function tripsAfter(cursor: string | undefined) {
  const after = afterCursor(cursor);
  if (after === null || /^\d{1,15}$/.test(after.id)) return after;
  if (/^[A-Za-z0-9_-]{1,64}$/.test(after.id)) return { ...after, id: ALL_OF_ITS_MILLISECOND };
  throw validationFailed([{ path: "cursor", message: "not a cursor this list gave" }]);
}

function listRoutes(api: Api): void {
  for (const active of [false, true]) {
    define(api, {
      method: "get",
      path: active ? "/business/trips/active" : "/business/trips",
      summary: active ? "Trips in progress, newest first" : "Trips, newest first",
      description: "From the trips' read table, which trails a booking by the projection lag; " +
        "`meta.next_cursor` asks the next page. One trip reads the trip itself.",
      tag,
      security,
      middleware: deliveries,
      query: TripsQuery,
      paged: "cursor",
      response: z.array(TripAnswer),
    }, async (c, { query }) => {
      const { env, tenant } = businessCall(c);
      const page = await tripPage(env.db, tenant, {
        month: query.month,
        reference: query.reference,
        search: query.search,
        test: query.test === undefined ? undefined : query.test === "1",
        active,
      }, { limit: query.per_page, after: tripsAfter(query.cursor) });
      return ok(c, page.rows.map((t) => tripView(c, t)), 200, {
        limit: query.per_page,
        next_cursor: nextCursor(page.next),
      });
    });
  }
}

/**
 * spec: business 4.1: `from` and `to`, a day or an instant with its offset; a day is the
 * market's (UTC+2, as a scheduled_at without an offset and the list's month are read).
 */
function Bound(edge: "start" | "end") {
  return z.string().max(40).superRefine((text, ctx) => {
    const bound = rangeBound(text, edge, DEFAULT_OFFSET);
    if (!bound.ok) ctx.addIssue({ code: "custom", message: bound.message });
  }).openapi({ example: edge === "start" ? "2026-11-01" : "2026-11-30T18:00:00+02:00" });
}

/** A bound already checked by its schema, as epoch ms. */
function boundAt(text: string | undefined, edge: "start" | "end"): number | null {
  const bound = text === undefined ? null : rangeBound(text, edge, DEFAULT_OFFSET);
  return bound?.ok ? bound.at.getTime() : null;
}

const ExportQuery = z.object({
  from: Bound("start").optional().openapi({
    description: "Created at or after: YYYY-MM-DD (from 00:00 UTC+2) or an ISO 8601 time " +
      "(read at UTC+2 without an offset)",
  }),
  to: Bound("end").optional().openapi({
    description: "Created at or before: YYYY-MM-DD (to the day's end, UTC+2) or an ISO 8601 " +
      "time (read at UTC+2 without an offset)",
  }),
  type: z.enum(["ride", "parcel"]).optional(),
  status: z.enum(TRIP_STATUSES).optional(),
}).superRefine((q, ctx) => {
  const from = boundAt(q.from, "start");
  const to = boundAt(q.to, "end");
  if (from !== null && to !== null && to < from) {
    ctx.addIssue({ code: "custom", path: ["to"], message: "must not be before from" });
  }
});

function exportRoute(api: Api): void {
  define(api, {
    method: "get",
    path: "/business/trips/export",
    summary: "The trips as CSV, oldest first, matching from, to, type and status",
    description: "Streamed from the trips' read table (which trails a booking by the projection " +
      "lag) in bounded memory. Columns, in this order: reference, id, external_reference, type, " +
      "segment, status, created_at, scheduled_at, completed_at, cancelled_at, passenger_name, " +
      "passenger_phone, pickup_address, stops (how many), dest_address, vehicle_type_id, " +
      "distance_km, billing_amount, billing_currency, refund_amount, expense_code, is_test, " +
      "delivery_outcome (delivered or returned, once completed), return_reason, cod_amount " +
      "(to collect at the door), cod_collected_amount (collected). " +
      "Times are ISO 8601 in UTC; amounts are decimals in billing_currency.",
    tag,
    security,
    // spec: business 5: the deliveries scope does not list the export: a partner key is refused.
    middleware: [business()],
    query: ExportQuery,
    produces: "text/csv",
    refusals: {
      validation_failed: "from or to is no day or instant, to is before from, or type or " +
        "status is none of the documented values: each is named",
    },
  }, async (c, { query }) => {
    const { env, tenant } = businessCall(c);
    const csv = await tripsCsvStream(env.db, tenant, {
      from: boundAt(query.from, "start"),
      to: boundAt(query.to, "end"),
      type: query.type ?? null,
      status: query.status ?? null,
    });
    return new Response(csv, {
      headers: {
        "Content-Type": "text/csv; charset=utf-8",
        "Content-Disposition": 'attachment; filename="trips.csv"',
      },
    });
  });
}

function tripRoutes(api: Api): void {
  define(api, {
    method: "get",
    path: "/business/trips/{id}",
    summary: "One trip, by integer id or reference, with its receipt (the fare's lines as " +
      "billed) and its route (the places in order, the planned line and the path driven)",
    tag,
    security,
    middleware: deliveries,
    params: TripId,
    response: TripDetailAnswer,
  }, async (c, { params }) => {
    const { env, tenant } = businessCall(c);
    // spec: business 4.1: one trip, with receipt and route.
    return ok(c, tripDetailView(c, await tripDetail(env, tenant, params.id)));
  });

  define(api, {
    method: "post",
    path: "/business/trips/{id}/cancel",
    summary: "Cancel a trip before collection; its wallet charge is refunded",
    description: "Before collection: 200 and trip.cancelled (refund status, cancelled_by, " +
      "reason). A second cancel answers 200 with already_cancelled: true.",
    tag,
    security,
    middleware: deliveries,
    params: TripId,
    body: z.object({
      reason: z.string().trim().max(500).optional().openapi({
        description: "Why; empty or only spaces is no reason (null)",
      }),
    }).optional(),
    response: TripAnswer,
    refusals: {
      not_cancellable: "the trip was collected (active) or has completed",
      booking_in_progress: BOOKING_IN_PROGRESS_REFUSAL,
    },
  }, async (c, { params, body }) => {
    const { env, tenant, by } = businessCall(c);
    const r = await askTrip(env, tenant, params.id, {
      kind: "cancel",
      by,
      // An empty reason is none: kept and sent as null, not "".
      reason: body?.reason || null,
    }).catch(withRetryAfter);
    return ok(c, tripView(c, r.trip, r.already_cancelled ? { already_cancelled: true } : {}));
  });

  define(api, {
    method: "post",
    path: "/business/trip/{reference}/ready",
    summary: "The order is packed and ready: releases the waiting driver",
    description:
      "Calling it twice is harmless while the trip runs. A shopping order's trip is marked ready by its " +
      "basket's collection (every store finished); until then this answers 409.",
    tag,
    security,
    middleware: deliveries,
    params: TripReference,
    response: TripAnswer,
    refusals: {
      basket_not_collected: "a shopping order's trip whose basket is not collected yet (the " +
        "stores finished are named)",
      booking_in_progress: BOOKING_IN_PROGRESS_REFUSAL,
      invalid_transition: "the trip is finished (completed or cancelled): it changes no more",
    },
  }, async (c, { params }) => {
    const { env, tenant } = businessCall(c);
    const r = await markTripReady(env, tenant, params.reference).catch(withRetryAfter);
    return ok(c, tripView(c, r.trip));
  });
}

export function tripsRoutes(api: Api): void {
  bookRoute(api);
  // Before /business/trips/{id}: `active` is no trip.
  listRoutes(api);
  exportRoute(api);
  tripRoutes(api);
}
