/**
 * Courier 2.11, the customer tracking view: GET /s/{token}, public, by the unguessable token
 * issued at booking (only its hash is indexed). It shows where the shipment is and what happens
 * next, never customs notes, declared values, specimen data or anything about money.
 */
import type { Context } from "hono";
import { shipmentActor } from "../../actors/courier/shipment/mod.ts";
import { hashSecret } from "../../src/domain/secrets.ts";
import { type Api, envelope, ok } from "../../src/http/app.ts";
import { anonymous } from "../../src/http/guards.ts";
import { courierPlatformEnabled } from "../../src/courier/auth.ts";
import type { AppEnv } from "../../src/http/context.ts";
import { define, storableText, z } from "../../src/http/route.ts";
import { PLATFORM_DISABLED } from "../../src/http/refusals.ts";
import { TRACKING_TOKEN_CHARS_MAX, TRACKING_TOKEN_CHARS_MIN } from "../../src/limits.ts";
import { TrackingAnswer, trackingView } from "./answers/tracking.ts";

const tag = "Customer tracking";

/** Tracking answers errors as `{success: false, error, message}` (CONTRACT "Errors"). */
function trackingError(
  c: Context<AppEnv>,
  status: 403 | 404 | 503,
  error: string,
  message: string,
) {
  // The request's log line names the refusal, as for every other (request_log.ts).
  c.set("refusal", error);
  return c.json(envelope(c, { success: false, error, message }), status);
}

export function trackingRoutes(api: Api): void {
  define(api, {
    method: "get",
    path: "/s/{token}",
    summary: "Customer tracking view (public secure link): milestone, last verified place and " +
      "scan time, expected_by, delay, attempts, next step, POD after delivery",
    tag,
    security: "public",
    middleware: [anonymous],
    // Any text: a segment that cannot be a token is answered as an unknown one, in the tracking
    // error shape (CONTRACT "Errors"), not as a validation failure.
    // Text that could never be kept (a NUL) is no token either: emptied, it is answered 404 below
    // rather than refused by the request check in the `code` shape.
    params: z.object({ token: z.string().transform((t) => storableText(t) ? t : "") }),
    response: TrackingAnswer,
    errorField: "error",
    notFound: false,
    refusals: {
      not_found: "no shipment has this tracking link",
      ...PLATFORM_DISABLED,
    },
  }, async (c, { params }) => {
    const env = c.get("env");
    const notFound = () => trackingError(c, 404, "not_found", "no shipment has this tracking link");
    const { token } = params;
    if (token.length < TRACKING_TOKEN_CHARS_MIN || token.length > TRACKING_TOKEN_CHARS_MAX) {
      return notFound();
    }
    const target = await env.runtime.lookup("tracking", await hashSecret(token));
    if (!target) return notFound();
    // spec: courier 1.2: every endpoint of the courier platform answers 403 while it is off.
    if (!(await courierPlatformEnabled(c, target.tenant))) {
      return trackingError(
        c,
        403,
        "courier_platform_disabled",
        "the courier platform is not enabled for this courier",
      );
    }
    const got = await env.runtime.read(shipmentActor, target.tenant, target.id, { kind: "get" });
    // A refused read (a full mailbox) is answered 503, never 404 for a link that works.
    if (!got.ok && got.code !== "not_found") return trackingError(c, 503, got.code, got.message);
    if (!got.ok || !("waybill" in got.reply)) return notFound();
    return ok(c, trackingView(got.reply, env.clock.now()));
  });
}
