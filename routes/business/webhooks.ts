/**
 * Business API 4.3 and 6, webhooks: the signed sample (POST /business/webhook-test), the delivery
 * log newest first, and a delivery sent again. The URL is PATCH /business/profile's, the secret
 * POST /business/webhook-secret/regenerate's (account.ts). Answers are ./answers/webhooks.ts.
 */
import { OUTBOUND_STATUSES, summaryOf } from "../../actors/platform/outbound_event/mod.ts";
import {
  requeueWebhookDelivery,
  sendWebhookTest,
  webhookDeliveryOf,
} from "../../src/business/flows/webhooks.ts";
import { webhookDeliveryPage } from "../../src/business/queries/webhook_deliveries.ts";
import { BUSINESS_WEBHOOK_EVENTS } from "../../src/business/rules/webhook_events.ts";
import { type Api, ok } from "../../src/http/app.ts";
import { afterPlainCursor, nextPlainCursor } from "../../src/http/cursor.ts";
import { define, z } from "../../src/http/route.ts";
import { wholeNumber } from "../../src/http/schemas.ts";
import { business, portalAdmin } from "../../src/platform/auth/auth.ts";
import { businessCall } from "../../src/platform/auth/caller.ts";
import {
  BusinessWebhookSent,
  outcomeView,
  WebhookDeliveryAnswer,
  webhookDeliveryView,
  WebhookTestAnswer,
} from "./answers/webhooks.ts";
import { documentWebhook } from "../../src/http/openapi_webhooks.ts";

const tag = "Webhooks";
const security = "business" as const;
// spec: business 5.6: an integration key manages the webhook; a coordinator does not.
const middleware = [business(), portalAdmin];
/** Deliveries listed per page, newest first. */
const DELIVERIES_PAGE_MAX = 500;
const DeliveryParam = z.object({ id: z.string().min(1).max(64) });

export function webhookRoutes(api: Api): void {
  documentWebhook(api, {
    name: "businessEvent",
    summary: "Business webhook (Business API 6)",
    body: BusinessWebhookSent,
    headers: "v2",
  });
  define(api, {
    method: "post",
    path: "/business/webhook-test",
    summary: "Send a signed sample (trip.created of a sample trip, marked test) to the webhook URL",
    description: "The sample is a webhook like any other: signed with X-Service-Signature and " +
      "X-Service-Signature-V2, its body `{id, event, event_id, timestamp, external_reference, " +
      "test: true, data}`, its first attempt made now and answered here, later ones on the " +
      "schedule, and listed in GET /business/webhook-deliveries.",
    tag,
    security,
    middleware,
    response: WebhookTestAnswer,
    refusals: { validation_failed: "webhook_url: no webhook URL is set" },
  }, async (c) => {
    const { env, tenant } = businessCall(c);
    const sent = await sendWebhookTest(env, tenant);
    return ok(c, {
      delivery: webhookDeliveryView(summaryOf(sent.event)),
      outcome: sent.outcome ? outcomeView(sent.outcome) : null,
    });
  });

  define(api, {
    method: "get",
    path: "/business/webhook-deliveries",
    summary: "The webhook delivery log, newest first: each webhook's status and attempts",
    description: "Follows the service's changes within the projection lag (GET /api/metrics).",
    tag,
    security,
    middleware,
    query: z.object({
      status: z.enum(OUTBOUND_STATUSES).optional(),
      event: z.enum(BUSINESS_WEBHOOK_EVENTS).optional(),
      limit: wholeNumber(1, DELIVERIES_PAGE_MAX).default(100),
      /** The `created_at` and id of the last row of the previous page. */
      cursor: z.string().max(200).optional(),
    }),
    response: z.array(WebhookDeliveryAnswer),
    paged: "cursor",
  }, async (c, { query }) => {
    const { env, tenant } = businessCall(c);
    const page = await webhookDeliveryPage(env.db, tenant, query, {
      limit: query.limit,
      after: afterPlainCursor(query.cursor),
    });
    return ok(c, page.rows.map(webhookDeliveryView), 200, {
      limit: query.limit,
      next_cursor: nextPlainCursor(page.next),
    });
  });

  define(api, {
    method: "get",
    path: "/business/webhook-deliveries/{id}",
    summary: "One webhook delivery with its status and attempts",
    tag,
    security,
    middleware,
    params: DeliveryParam,
    response: WebhookDeliveryAnswer,
  }, async (c, { params }) => {
    const { env, tenant } = businessCall(c);
    return ok(
      c,
      webhookDeliveryView(summaryOf(await webhookDeliveryOf(env.runtime, tenant, params.id))),
    );
  });

  define(api, {
    method: "post",
    path: "/business/webhook-deliveries/{id}/requeue",
    summary: "Send a failed or pending webhook again from its first attempt; the reason is kept",
    description: "The same body, id and X-Service-Delivery as before: a receiver that had it " +
      "dedupes it.",
    tag,
    security,
    middleware,
    params: DeliveryParam,
    body: z.object({ reason: z.string().trim().min(1).max(200) }),
    response: WebhookDeliveryAnswer,
    refusals: {
      not_requeueable: "the webhook was delivered: only a failed or pending one is sent again",
    },
  }, async (c, { params, body }) => {
    const { env, tenant, by } = businessCall(c);
    const event = await requeueWebhookDelivery(env, tenant, {
      id: params.id,
      reason: body.reason,
      by,
    });
    return ok(c, webhookDeliveryView(summaryOf(event)));
  });
}
