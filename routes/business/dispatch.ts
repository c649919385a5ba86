/**
 * The driver app's offers (CONTRACT "Driver app"; Business API 3.1): the offer waiting for the
 * driver, and its acceptance or decline. An offer of another driver answers 404 as one that does
 * not exist.
 */
import { poolDriver, poolDriverOf } from "../../src/business/driver_auth.ts";
import { acceptOffer, declineOffer, waitingOffer } from "../../src/business/flows/dispatch.ts";
import { livePositionsOf } from "../../src/business/reactors/live_positions.ts";
import { type Api, ok } from "../../src/http/app.ts";
import { define, z } from "../../src/http/route.ts";
import { OfferOutcomeAnswer, offerView, OfferWaitingAnswer } from "./answers/dispatch.ts";

const tag = "Driver app";
const OfferParam = z.object({ offer: z.string().min(1).max(200) });
const Answer = z.object({ idempotency_key: z.string().trim().min(1).max(120) });

export function dispatchRoutes(api: Api): void {
  define(api, {
    method: "get",
    path: "/driver/offers",
    summary: "The offer waiting for this driver, if any",
    description: "Poll it: an offer reaches the driver the moment it is made, and expires after " +
      "the operator's dispatch_offer_seconds.",
    tag,
    security: "driver",
    middleware: [poolDriver],
    response: OfferWaitingAnswer,
  }, async (c) => {
    const env = c.get("env");
    const driver = poolDriverOf(c);
    const t = await waitingOffer(env, driver);
    return ok(c, { offer: t && offerView(t, livePositionsOf(env).latest(driver)) });
  });

  for (const outcome of ["accept", "decline"] as const) {
    define(api, {
      method: "post",
      path: `/driver/offers/{offer}/${outcome}`,
      summary: outcome === "accept"
        ? "Accept the offer: the trip is the driver's (queued behind a trip under way)"
        : "Decline the offer: the driver is not asked again for this trip",
      description: "A replay (lost signal) with the same idempotency_key from the same driver " +
        "answers the first answer, whatever happened to the trip since.",
      tag,
      security: "driver",
      middleware: [poolDriver],
      params: OfferParam,
      body: Answer,
      replay: "The same idempotency_key from the same driver",
      response: OfferOutcomeAnswer,
      refusals: outcome === "accept"
        ? {
          offer_expired: "the offer ended unanswered (declined or expired)",
          already_accepted: "another driver accepted the trip",
          driver_busy: "the driver holds a trip and one queued",
          invalid_transition: "the trip ended (cancelled) while the acceptance was on its way: " +
            "the driver holds nothing of it",
        }
        : { already_accepted: "the driver accepted this offer" },
    }, async (c, { params, body }) => {
      const env = c.get("env");
      const driver = poolDriverOf(c);
      const a = outcome === "accept"
        ? await acceptOffer(env, driver, params.offer, body)
        : await declineOffer(env, driver, params.offer, body);
      return ok(c, {
        offer_id: a.offer_id,
        outcome: a.outcome,
        reference: a.trip.reference,
        status: a.trip.status,
      });
    });
  }
}
