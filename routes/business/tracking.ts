/**
 * Business API 2.4 and 4.1, live tracking: the public view by tracking token (or, reduced, by
 * reference), and the business's control of its trip's link (rotate, revoke). The public view
 * answers errors as `{success: false, error, message}` (spec: business 7).
 */
import {
  revokeTrackingLink,
  rotateTrackingLink,
  tracking,
} from "../../src/business/flows/tracking.ts";
import { livePositionsOf } from "../../src/business/reactors/live_positions.ts";
import { type Api, ok } from "../../src/http/app.ts";
import { anonymous } from "../../src/http/guards.ts";
import { define, z } from "../../src/http/route.ts";
import { business } from "../../src/platform/auth/auth.ts";
import { businessCall } from "../../src/platform/auth/caller.ts";
import { BOOKING_IN_PROGRESS_REFUSAL, TripAnswer, tripView } from "./answers/trips.ts";
import { BOOKING_RETRY_AFTER_SECONDS } from "../../src/business/rules/booking.ts";
import { retryAfter } from "../../src/http/errors.ts";
import { TripTrackAnswer, tripTrackView } from "./answers/tracking.ts";

const tag = "Live tracking";
// spec: business 7: a trip whose booking is still in progress answers Retry-After (5 seconds).
const inProgress = retryAfter(["booking_in_progress"], BOOKING_RETRY_AFTER_SECONDS);

const LINK_GONE = {
  tracking_link_revoked: "the business turned the link off (or issued a new one)",
  tracking_link_expired: "the link expired: some days after the delivery was due, or shortly " +
    "after the trip ended",
};

export function trackingRoutes(api: Api): void {
  define(api, {
    method: "get",
    path: "/trip-track/{token}",
    summary: "Public tracking view of a trip (2.4), by tracking token or, reduced, by reference",
    description: "A token (the last segment of the trip's tracking_url) shows the pickup, the " +
      "ordered stops and the destination (scope token); a reference shows neither pickup nor " +
      "stops (scope reference). Poll every poll_after_seconds while is_active; it is null once " +
      "the trip ended, and the driver's position with it. A stale position is still shown, " +
      "with location_is_fresh false.",
    tag,
    security: "public",
    middleware: [anonymous],
    params: z.object({
      token: z.string().min(1).max(200).openapi({ description: "Tracking token or reference" }),
    }),
    response: TripTrackAnswer,
    errorField: "error",
    refusals: { not_found: "no trip has this tracking link", ...LINK_GONE },
  }, async (c, { params }) => {
    const env = c.get("env");
    const view = await tracking({ ...env, positions: livePositionsOf(env) }, params.token);
    return ok(c, tripTrackView(view));
  });

  referenceLinkRoute(api);

  for (const action of ["rotate", "revoke"] as const) {
    define(api, {
      method: "post",
      path: `/business/trips/{trip}/tracking-link/${action}`,
      summary: action === "rotate"
        ? "Issue a new tracking link; the old one answers 410 tracking_link_revoked"
        : "Turn the tracking link off until rotated (its holders get 410)",
      description: "The trip answered: `tracking_url` and `tracking_link_status` (active, " +
        "revoked or expired); a revoked link reads `tracking_url: null`. Calling it twice is " +
        "harmless for revoke; each rotate issues a new link.",
      tag,
      security: "business",
      middleware: [business({ scope: "deliveries" })],
      params: z.object({
        trip: z.string().min(1).max(40).openapi({ description: "The integer id or the reference" }),
      }),
      response: TripAnswer,
      refusals: { booking_in_progress: BOOKING_IN_PROGRESS_REFUSAL },
    }, async (c, { params }) => {
      const { env, tenant } = businessCall(c);
      const trip = await (action === "rotate"
        ? rotateTrackingLink(env, tenant, params.trip)
        : revokeTrackingLink(env, tenant, params.trip)).catch(inProgress);
      return ok(c, tripView(c, trip));
    });
  }
}

/** spec: business 2.4 rule 5: reference links keep working with the reduced view. */
function referenceLinkRoute(api: Api): void {
  define(api, {
    method: "get",
    path: "/track/{reference}",
    summary: "Public tracking view by reference link (2.4 rule 5): reduced, to be switched off",
    description: "The view of GET /trip-track/{token} with scope reference: no pickup and no " +
      "stops. Integrations use tracking_url instead; a tracking token here is not found.",
    tag,
    security: "public",
    middleware: [anonymous],
    params: z.object({
      reference: z.string().min(1).max(200).openapi({ description: "The trip's reference" }),
    }),
    response: TripTrackAnswer,
    errorField: "error",
    refusals: { not_found: "no trip has this reference", ...LINK_GONE },
  }, async (c, { params }) => {
    const env = c.get("env");
    const positions = livePositionsOf(env);
    const view = await tracking({ ...env, positions }, params.reference, "reference");
    return ok(c, tripTrackView(view));
  });
}
