/**
 * Business API 5.9, 6 last line: POST /channel/{source}/events on the sandbox base, where a
 * partner sales channel posts its events, authenticated only by its storefront channel token.
 * Answers are ./answers/sandbox_channels.ts.
 */
import type { MiddlewareHandler } from "hono";
import { ChannelEvent, channelOrderBooking } from "../../src/business/channel_schema.ts";
import { bookChannelOrder, channelBusiness } from "../../src/business/flows/sandbox_channels.ts";
import { tripNumbersOf } from "../../src/business/flows/trip_numbers.ts";
import { type Api, ok } from "../../src/http/app.ts";
import type { AppEnv } from "../../src/http/context.ts";
import { anonymous, bearerToken } from "../../src/http/guards.ts";
import { refusing } from "../../src/http/refusals.ts";
import { define, z } from "../../src/http/route.ts";
import { CHANNEL_AUDIENCE } from "../../src/business/rules/sandbox.ts";
import { ChannelEventAnswer } from "./answers/sandbox_channels.ts";

const SourceParam = z.object({ source: z.string().min(1).max(120) });

/** The channel token, checked before the body: its business is the caller's. */
const channelToken: MiddlewareHandler<AppEnv> = refusing({
  not_found: "called on the live base: channels post to the sandbox base",
  channel_token_invalid: "no bearer token, an unknown channel, a token not signed with the " +
    "channel's key, or an iss or sub other than the channel's",
  channel_token_expired: "the token's exp has passed",
  channel_token_wrong_audience: `the token's aud is not ${CHANNEL_AUDIENCE}`,
}, async (c, next) => {
  const env = c.get("env");
  const business = await channelBusiness(
    env,
    c.req.param("source") ?? "",
    bearerToken(c.req.header("Authorization")) || null,
  );
  c.set("principal", { kind: "channel", business: { id: business } });
  await next();
});

export function sandboxChannelRoutes(api: Api): void {
  define(api, {
    method: "post",
    path: "/channel/{source}/events",
    summary: "A partner sales channel's event (sandbox base; channel token)",
    description: "Authenticated only by `Authorization: Bearer <channel token>`: a JWT signed " +
      `HS256 with the channel's sandbox signing key, \`aud\` ${CHANNEL_AUDIENCE}, \`iss\` the ` +
      "source, `sub` the business id, `exp` required (see StorefrontGrant). `order.created` " +
      "books a parcel trip for the channel's business through POST /business/book's flow, " +
      "with the order's external_reference: the same order again answers its first trip " +
      "(`replayed`), other details under it 409 external_reference_conflict. The trip's " +
      "webhooks follow as for any booking.",
    tag: "Sandbox",
    security: "channel",
    middleware: [anonymous, channelToken],
    params: SourceParam,
    body: ChannelEvent,
    status: 202,
    response: ChannelEventAnswer,
    refusals: {
      unknown_event_type: "the event's type is not order.created",
      external_reference_conflict: "the order's external_reference was booked with other details",
      booking_in_progress: "the first booking of this order is still being processed",
      insufficient_balance: "the business's sandbox wallet cannot pay the fare",
      no_vehicle_fits: "no vehicle type can carry the order",
      outside_service_area: "no zone serves the pickup",
    },
  }, async (c, { params, body }) => {
    const env = c.get("env");
    const business = c.get("principal")!.business!.id;
    const booked = await bookChannelOrder({ ...env, numbers: tripNumbersOf(env) }, business, {
      source: params.source,
      type: body.type,
      request: body.order ? channelOrderBooking(params.source, body.order) : null,
      order: body.order ?? null,
    });
    const t = booked.trip;
    return ok(c, {
      event_id: body.id,
      trip: {
        reference: t.reference,
        id: t.id,
        status: t.status,
        external_reference: t.external_reference,
      },
      replayed: booked.replayed,
    }, 202);
  });
}
