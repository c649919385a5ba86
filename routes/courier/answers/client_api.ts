/** Courier 4.6 (client API, sign-in rows) and 5: sessions, who is signed in, keys and webhook. */
import { z } from "../../../src/http/route.ts";
import { Currency, orNull, UtcInstant } from "../../../src/http/schemas.ts";
import { ClientRole } from "./client_people.ts";
import { Settlement } from "./schemas.ts";
import { DeliveryId, WebhookTimestamp } from "../../../src/http/openapi_webhooks.ts";

/** A session opened by sign-in or a password change (openSession). */
export const ClientSessionAnswer = z.object({
  token: z.string().openapi({ description: "Send it as the X-Client-API-Key header" }),
  expires_at: UtcInstant.openapi({ description: "When the session ends by itself" }),
}).openapi("ClientSession");

export const SignedOutAnswer = z.object({ signed_out: z.literal(true) }).openapi("ClientSignedOut");

export const ClientMeAnswer = z.object({
  user: orNull(
    z.object({
      id: z.string(),
      email: z.email(),
      name: z.string(),
      role: ClientRole,
    }).openapi("ClientMeUser"),
  ).openapi({ description: "The signed-in person; null when the client's API key was used" }),
  client: z.object({
    id: z.string(),
    name: z.string(),
    code: z.string(),
    settlement_mode: Settlement,
    billing_currency: Currency,
  }).openapi("ClientMeAccount"),
}).openapi("ClientMe");

export const ClientApiKeyAnswer = z.object({
  api_key: z.string().openapi({ description: "The new key, shown once" }),
}).openapi("ClientApiKey");

export const ClientWebhookAnswer = z.object({
  url: z.string(),
  webhook_secret: z.string().openapi({
    description: "The client's signing secret, shown once",
  }),
  key_id: z.string().openapi({ description: "Names this secret in the signature header" }),
}).openapi("ClientWebhookSet");

/** A client webhook as sent (courier 2.12, 6.2): the OpenAPI document's `webhooks`. */
export const ClientWebhookSent = z.object({
  api_version: z.string(),
  id: DeliveryId(),
  event_id: DeliveryId("The same as `id`"),
  event: z.string().openapi({ description: "`shipment.<stage>` (booked, collected, ...)" }),
  client: z.string().openapi({ description: "The client's code" }),
  timestamp: WebhookTimestamp,
  data: z.object({
    waybill: z.string(),
    client_order_reference: z.string().nullable(),
    stage: z.string(),
    status: z.string(),
    condition: z.string(),
    at: WebhookTimestamp,
    estimated_delivery_on: z.string().optional().openapi({
      description: "shipment.estimate_changed only: the new estimate (YYYY-MM-DD)",
    }),
  }),
}).openapi("ClientWebhookSent");
