/**
 * Business API 4.2 recurring deliveries (2.3): POST and GET /business/subscriptions, one
 * subscription, and its pause, resume and cancel (`POST /business/subscriptions/{id}/{action}`:
 * the spec names the actions, not the verb). Not in the `deliveries` partner scope (5's table).
 */
import type { Context } from "hono";
import { askSubscription, createSubscription } from "../../src/business/flows/subscriptions.ts";
import { subscriptionPage } from "../../src/business/queries/subscriptions.ts";
import { IDEMPOTENCY_KEY_CHARS_MAX } from "../../src/business/rules/booking.ts";
import { subscriptionTimeZone, validTimeZone } from "../../src/business/rules/subscription.ts";
import { BODY_TYPES, CAPACITY_CLASSES } from "../../src/business/rules/catalogue.ts";
import { type Api, ok } from "../../src/http/app.ts";
import type { AppEnv } from "../../src/http/context.ts";
import { afterCursor, nextCursor } from "../../src/http/cursor.ts";
import { ApiError } from "../../src/http/errors.ts";
import { idempotencyHeader } from "../../src/http/idempotency.ts";
import { define, z } from "../../src/http/route.ts";
import { EXAMPLE_ROUTE, RouteFields, Text } from "../../src/business/booking_schema.ts";
import { PlainText, TEST_FLAGS, wholeNumber } from "../../src/http/schemas.ts";
import { SUBSCRIPTION_START_DAYS_MAX } from "../../src/limits.ts";
import { business } from "../../src/platform/auth/auth.ts";
import { businessCall } from "../../src/platform/auth/caller.ts";
import { SubscriptionAnswer, subscriptionView } from "./answers/subscriptions.ts";

const tag = "Recurring deliveries";
const security = "business" as const;
// spec: business 5: no partner scope lists subscriptions: a partner key is refused.
const guard = [business()];

/** Leaves room for `-YYYY-MM-DD` within external_reference's 80 characters (business 8). */
const SUBSCRIPTION_REFERENCE_CHARS_MAX = 69;

const SubscriptionRequest = z.object({
  segment: z.enum(["parcel", "cargo"]).default("parcel"),
  days_of_week: z.array(z.number().int().min(1).max(7)).min(1).max(7).openapi({
    description: "ISO weekdays: 1 Monday to 7 Sunday",
    example: [2, 4],
  }),
  pickup_time: z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, "HH:MM, 00:00 to 23:59").openapi({
    example: "09:30",
  }),
  timezone: Text(64).refine(validTimeZone, "an IANA time zone name").transform(
    subscriptionTimeZone,
  ).optional().openapi({
    description: "IANA name, in any case, kept and answered in the zone database's spelling " +
      "(africa/gaborone is Africa/Gaborone); default the business's country's zone (required " +
      "when the country has several)",
    example: "Africa/Gaborone",
  }),
  starts_on: z.iso.date().optional().openapi({
    description: "YYYY-MM-DD, local: no occurrence before it. Default today; a date before " +
      "today in the subscription's time zone, or more than " +
      `${SUBSCRIPTION_START_DAYS_MAX} days ahead, is refused (422 validation_failed)`,
  }),
  external_reference: Text(SUBSCRIPTION_REFERENCE_CHARS_MAX).optional().openapi({
    description: "Each occurrence's trip carries `<external_reference>-<YYYY-MM-DD>`",
  }),
  passenger_name: Text(200).optional(),
  passenger_phone: Text(40).optional(),
  ...RouteFields,
  expense_code: Text(100).optional(),
  vehicle_type_id: z.number().int().min(1).max(1_000_000).optional(),
  parcel_weight_kg: z.number().positive().max(100_000).optional(),
  parcel_size: Text(32).optional(),
  cargo_body_type: z.enum(BODY_TYPES).optional(),
  cargo_capacity_class: z.enum(CAPACITY_CLASSES).optional(),
  delivery_code: Text(32).optional(),
  note: PlainText(1_000, { lines: true }).optional(),
  // spec: business 7, 9.3: as on POST /business/book.
  ...TEST_FLAGS,
}).openapi({
  // A weekly delivery as an integrator sets it up (the sampled one starts on a day long gone).
  example: {
    days_of_week: [2, 4],
    pickup_time: "09:30",
    ...EXAMPLE_ROUTE,
    parcel_size: "small",
    external_reference: "WEEKLY-1",
  },
});

type SubscriptionBody = z.infer<typeof SubscriptionRequest>;

/** The booking (2.1) each occurrence sends, from the checked body. */
function deliveryOf(b: SubscriptionBody) {
  const {
    segment,
    days_of_week: _d,
    pickup_time: _p,
    timezone: _t,
    starts_on: _s,
    external_reference: _e,
    test: _x,
    dry_run: _y,
    pickup_address,
    pickup_lat,
    pickup_lng,
    dest_address,
    dest_lat,
    dest_lng,
    ...rest
  } = b;
  return {
    ...rest,
    type: "parcel" as const,
    segment,
    pickup: { address: pickup_address, lat: pickup_lat, lng: pickup_lng },
    dest: { address: dest_address, lat: dest_lat, lng: dest_lng },
  };
}

/** spec: business 8: Idempotency-Key up to 64 characters (the generic header takes 120). */
function idempotencyKeyOf(c: Context<AppEnv>): string | null {
  const key = idempotencyHeader(c);
  if (key !== null && key.length > IDEMPOTENCY_KEY_CHARS_MAX) {
    const message = `1 to ${IDEMPOTENCY_KEY_CHARS_MAX} characters`;
    throw new ApiError("validation_failed", `invalid request: Idempotency-Key: ${message}`, {
      errors: [{ path: "Idempotency-Key", message }],
    });
  }
  return key;
}

function createRoute(api: Api): void {
  define(api, {
    method: "post",
    path: "/business/subscriptions",
    summary: "Create a recurring delivery",
    description: "A parcel or cargo delivery repeated on the days of the week listed, picked up " +
      "at pickup_time in the subscription's time zone (the business's country's unless named). " +
      "Each occurrence is booked once, an hour before pickup, as a scheduled trip priced and " +
      "charged like POST /business/book; a day missed while the service was down is booked on " +
      "its return, as now, once. A time the clocks skip is read as the same wall time after the " +
      "change; a time that happens twice as its first. A refused occurrence (the wallet) is " +
      "shown in occurrences with its refusal and not tried again; one whose booking keeps " +
      "failing for a passing reason is tried again a bounded number of times, then shown " +
      "failed (booking_failed) and not tried again.",
    tag,
    security,
    middleware: guard,
    body: SubscriptionRequest,
    status: 201,
    replay: "The same external_reference (else Idempotency-Key) with the same body",
    idempotencyKey: "Up to 64 characters; a body external_reference wins over it; the same " +
      "key with another body is refused",
    response: SubscriptionAnswer,
    refusals: {
      reference_conflict: "the external_reference (else the Idempotency-Key) was used with " +
        "another body",
      vehicle_upgrade_refused: "vehicle_type_id is too small and the account refuses the upgrade",
      no_vehicle_fits: "no vehicle type can carry the parcel or cargo declared",
      outside_service_area: "no zone serves the pickup (GET /business/zones)",
      test_mode_moved_to_sandbox: "test, dry_run or X-Service-Test on live: nothing is created",
      test_booking_refused: "on live, a name, address or note starting with __TEST, [TEST], " +
        "TEST ORDER or DO NOT DELIVER: nothing is created; operations is alerted",
    },
  }, async (c, { body }) => {
    const { env, tenant } = businessCall(c);
    const r = await createSubscription(env, tenant, {
      segment: body.segment,
      delivery: deliveryOf(body),
      days_of_week: body.days_of_week,
      pickup_time: body.pickup_time,
      timezone: body.timezone,
      starts_on: body.starts_on,
      external_reference: body.external_reference,
      test: body.test,
      dry_run: body.dry_run,
      body,
      idempotencyKey: idempotencyKeyOf(c),
    });
    const view = subscriptionView(r.subscription, { replayed: r.replayed });
    return ok(c, view, r.replayed ? 200 : 201);
  });
}

/** Subscriptions per page, at most. */
const SUBSCRIPTIONS_PAGE_MAX = 100;

const ListQuery = z.object({
  status: z.enum(["active", "paused", "cancelled"]).optional(),
  per_page: wholeNumber(1, SUBSCRIPTIONS_PAGE_MAX).default(25),
  cursor: z.string().max(200).optional(),
});

const SubscriptionId = z.object({ id: z.string().min(1).max(40) });

function readRoutes(api: Api): void {
  define(api, {
    method: "get",
    path: "/business/subscriptions",
    summary: "Recurring deliveries, newest first",
    description: "From the subscriptions' read table, which trails a change by the projection " +
      "lag; `meta.next_cursor` asks the next page. One subscription reads it itself.",
    tag,
    security,
    middleware: guard,
    query: ListQuery,
    paged: "cursor",
    response: z.array(SubscriptionAnswer),
  }, async (c, { query }) => {
    const { env, tenant } = businessCall(c);
    const page = await subscriptionPage(env.db, tenant, query.status, {
      limit: query.per_page,
      after: afterCursor(query.cursor),
    });
    return ok(c, page.rows.map((s) => subscriptionView(s)), 200, {
      limit: query.per_page,
      next_cursor: nextCursor(page.next),
    });
  });

  define(api, {
    method: "get",
    path: "/business/subscriptions/{id}",
    summary: "One recurring delivery, with its last occurrences",
    tag,
    security,
    middleware: guard,
    params: SubscriptionId,
    response: SubscriptionAnswer,
  }, async (c, { params }) => {
    const { env, tenant } = businessCall(c);
    const r = await askSubscription(env, tenant, params.id, { kind: "get" });
    return ok(c, subscriptionView(r.subscription));
  });
}

const ACTIONS = {
  pause: "Pause: no occurrence falls due until resumed (active only)",
  resume: "Resume: the next pickup still ahead falls due; the paused days are not delivered " +
    "(paused only)",
  cancel: "Cancel for good: nothing more falls due; trips already booked stay booked (cancel " +
    "them with POST /business/trips/{id}/cancel), and an occurrence already due is still booked. " +
    "A second cancel answers 200 with already_cancelled: true",
} as const;

function actionRoutes(api: Api): void {
  for (const [action, summary] of Object.entries(ACTIONS)) {
    const kind = action as keyof typeof ACTIONS;
    define(api, {
      method: "post",
      path: `/business/subscriptions/{id}/${action}`,
      summary,
      tag,
      security,
      middleware: guard,
      params: SubscriptionId,
      response: SubscriptionAnswer,
      refusals: {
        invalid_transition: "the subscription's status does not allow it (status named): " +
          "pause an active one, resume a paused one; a cancelled one is neither paused nor " +
          "resumed",
      },
    }, async (c, { params }) => {
      const { env, tenant } = businessCall(c);
      const r = await askSubscription(env, tenant, params.id, { kind });
      const extra = r.already_cancelled ? { already_cancelled: true } : {};
      return ok(c, subscriptionView(r.subscription, extra));
    });
  }
}

export function subscriptionRoutes(api: Api): void {
  createRoute(api);
  readRoutes(api);
  actionRoutes(api);
}
