/**
 * The OpenAPI document's `webhooks` (3.1): what the service sends, so a client generated from the
 * document has the bodies it receives and the headers that sign them. Each feature's routes
 * enter their streams (documentWebhook) with their bodies: business webhooks (Business API 6), a
 * courier client's webhooks (courier 6.2), a courier's billing events (courier 6.1), shopping
 * events (shopping 6). The header lists are typed against the headers the deliveries are built
 * with (delivery_headers.ts): one added there and not here fails the type check.
 */
import { z } from "@hono/zod-openapi";
import type { Api } from "./app.ts";
import type {
  BillingDeliveryHeaders,
  ShoppingDeliveryHeaders,
  WebhookDeliveryHeaders,
} from "../domain/delivery_headers.ts";

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

/** A time in a webhook's body: ISO 8601. */
export const WebhookTimestamp = z.string().openapi({ format: "date-time" });

/** An event's id as a body names it: the same on every retry. */
export const DeliveryId = (description = DELIVERY) => z.string().openapi({ description });

/** A body's part whose fields vary with the event. */
export const WebhookData = (description: string) => z.object({}).loose().openapi({ description });

const HEADERS = { v2: V2_HEADERS, v3: V3_HEADERS, shopping: SHOPPING_HEADERS } as const;

const ANSWER = {
  200: {
    description: "Any 2xx acknowledges the delivery; another answer, or none within the " +
      "timeout, is retried after 1, 5, 30, 120 and 720 minutes",
  },
};

/**
 * Enters one stream in the document's `webhooks`: `body` as it is sent, with the headers its
 * deliveries carry (`headers`: which signing family).
 */
export function documentWebhook(
  api: Api,
  w: {
    readonly name: string;
    readonly summary: string;
    readonly body: z.ZodType;
    readonly headers: keyof typeof HEADERS;
  },
): void {
  api.openAPIRegistry.registerWebhook({
    method: "post",
    path: w.name,
    summary: w.summary,
    operationId: w.name,
    request: {
      headers: headersOf(HEADERS[w.headers]),
      body: { required: true, content: { "application/json": { schema: w.body } } },
    },
    responses: ANSWER,
  });
}
