/**
 * The OpenAPI document's `webhooks` (3.1): what the service sends, so a client generated from the
 * document has the bodies it receives and the headers that sign them. One per stream: business
 * webhooks (Business API 6), a courier client's webhooks (courier 6.2), a courier's billing
 * events (courier 6.1) and shopping events (shopping 6). The header lists are typed against the
 * headers the deliveries are built with (delivery_headers.ts): one added there and not here
 * fails the type check, so the document cannot fall behind what is sent.
 */
import { type OpenAPIHono, z } from "@hono/zod-openapi";
import type {
  BillingDeliveryHeaders,
  ShoppingDeliveryHeaders,
  WebhookDeliveryHeaders,
} from "../domain/delivery_headers.ts";
import { BUSINESS_WEBHOOK_EVENTS } from "../business/rules/webhook_events.ts";
import {
  BASKET_COLLECTED,
  DECISION_REQUIRED,
  STORE_COLLECTED,
} from "../shopping/rules/event_bodies.ts";

type Described<H> = { readonly [K in keyof Required<H>]: string };

const V1 = "V1: hex HMAC-SHA256 of the raw body, keyed by the whole secret as shown";
const DELIVERY = "The event id, the same on every retry and requeue: deduplicate on it";

/** Client and business webhooks (CONTRACT "Signatures"): V1 and V2. */
const V2_HEADERS: Described<WebhookDeliveryHeaders> = {
  "Content-Type": "application/json",
  "X-Service-Signature": V1,
  "X-Service-Signature-V2": "V2: `t=<ts>,sha256=<hex>`, HMAC-SHA256 of `<ts>.<raw body>`",
  "X-Service-Timestamp": "Unix seconds: the V2 signature's `t`",
  "X-Service-Event": "The event's name",
  "X-Service-Delivery": DELIVERY,
  "X-Service-Api-Version": "The API version the body is written in",
  "X-Service-Signature-V2-Previous": "During a secret rotation's grace period only: the V2 " +
    "signature under the previous secret",
};

/** Billing events (courier 6.1): V1 and V3. */
const V3_HEADERS: Described<BillingDeliveryHeaders> = {
  "Content-Type": "application/json",
  "X-Service-Event-Id": DELIVERY,
  "Idempotency-Key": "The event id again, for receivers that deduplicate on this header",
  "X-Service-Signature": V1,
  "X-Service-Signature-V3": "V3: `t=<ts>,sha256=<hex>` over the API version, the delivery " +
    "timestamp, the event id, the attempt id and the raw body",
  "X-Service-Delivery-Timestamp": "Unix seconds: the V3 signature's `t`",
  "X-Service-Attempt-Id": "This attempt's id: a new one on every retry",
  "X-Service-Key-Id": "The id of the endpoint secret that signed",
  "X-Service-Api-Version": "The API version the body is written in",
  "X-Service-Signature-V3-Previous": "During a rotation's grace period only: the V3 signature " +
    "under the previous secret",
  "X-Service-Previous-Key-Id": "During a rotation's grace period only: the previous secret's id",
};

/** Shopping events (shopping 6): V2 only. */
const SHOPPING_HEADERS: Described<ShoppingDeliveryHeaders> = {
  "Content-Type": "application/json",
  "X-Service-Timestamp": V2_HEADERS["X-Service-Timestamp"],
  "X-Service-Delivery": DELIVERY,
  "X-Service-Event": "The event's name",
  "X-Service-Signature-V2": V2_HEADERS["X-Service-Signature-V2"],
};

/** Headers that are sent only some of the time (a rotation's grace period). */
const SOMETIMES = new Set([
  "X-Service-Signature-V2-Previous",
  "X-Service-Signature-V3-Previous",
  "X-Service-Previous-Key-Id",
]);

function headersOf(described: Record<string, string>) {
  return z.object(Object.fromEntries(
    Object.entries(described)
      .filter(([name]) => name !== "Content-Type")
      .map(([name, description]) => {
        const header = z.string().openapi({ description });
        return [name, SOMETIMES.has(name) ? header.optional() : header];
      }),
  ));
}

const Timestamp = z.string().openapi({ format: "date-time" });
const Data = (description: string) => z.object({}).loose().openapi({ description });

const BusinessEvent = z.object({
  id: z.string().openapi({ description: DELIVERY }),
  event: z.enum(BUSINESS_WEBHOOK_EVENTS),
  event_id: z.string().openapi({ description: "The same as `id`" }),
  timestamp: Timestamp,
  external_reference: z.string().nullable().openapi({
    description: "The booking's external_reference (Business API 2.7)",
  }),
  test: z.boolean().openapi({
    description: "True on the sample POST /business/webhook-test sends",
  }),
  data: Data(
    "A trip's events: the trip of Business API 2.2 (reference, tracking_url, status, " +
      "...) and the event's own fields; wallet.low_balance and invoice.issued: their facts",
  ),
}).openapi("BusinessWebhookSent");

const ClientEvent = z.object({
  api_version: z.string(),
  id: z.string().openapi({ description: DELIVERY }),
  event_id: z.string().openapi({ description: "The same as `id`" }),
  event: z.string().openapi({ description: "`shipment.<stage>` (booked, collected, ...)" }),
  client: z.string().openapi({ description: "The client's code" }),
  timestamp: Timestamp,
  data: z.object({
    waybill: z.string(),
    client_order_reference: z.string().nullable(),
    stage: z.string(),
    status: z.string(),
    condition: z.string(),
    at: Timestamp,
    estimated_delivery_on: z.string().optional().openapi({
      description: "shipment.estimate_changed only: the new estimate (YYYY-MM-DD)",
    }),
  }),
}).openapi("ClientWebhookSent");

const BillingEvent = z.object({
  api_version: z.string(),
  event_type: z.string().openapi({
    description: "shipment.booked, shipment.delivered, charge.resolved, customs.cleared:<id>, ...",
  }),
  type: z.string().openapi({ description: "The same as `event_type`" }),
  event_id: z.string().openapi({ description: DELIVERY }),
  occurred_at: Timestamp,
  client: Data("The billed client: id, code, external ids"),
}).loose().openapi("BillingEventSent", {
  description: "A charge event carries `entry` (the ledger entry) and `shipment`; a completion " +
    "event the shipment and its adjustments (courier 2.7)",
});

const ShoppingEvent = z.object({
  event: z.enum([STORE_COLLECTED, DECISION_REQUIRED, BASKET_COLLECTED]),
  event_id: z.string().openapi({ description: DELIVERY }),
}).loose().openapi("ShoppingEventSent", {
  description: "The event's fields beside its name and id (shopping 2.3, 2.4)",
});

const ANSWER = {
  200: {
    description: "Any 2xx acknowledges the delivery; another answer, or none within " +
      "the timeout, is retried after 1, 5, 30, 120 and 720 minutes",
  },
};

/** Adds the four streams to the document's `webhooks`. */
export function registerWebhooks(registry: OpenAPIHono["openAPIRegistry"]): void {
  const streams = [
    ["businessEvent", "Business webhook (Business API 6)", BusinessEvent, V2_HEADERS],
    ["clientShipmentEvent", "Client webhook (courier 6.2)", ClientEvent, V2_HEADERS],
    [
      "billingEvent",
      "Billing event to the courier's endpoint (courier 6.1)",
      BillingEvent,
      V3_HEADERS,
    ],
    ["shoppingEvent", "Shopping event (shopping 6)", ShoppingEvent, SHOPPING_HEADERS],
  ] as const;
  for (const [name, summary, body, headers] of streams) {
    registry.registerWebhook({
      method: "post",
      path: name,
      summary,
      operationId: name,
      request: {
        headers: headersOf(headers),
        body: { required: true, content: { "application/json": { schema: body } } },
      },
      responses: ANSWER,
    });
  }
}
