/**
 * What the shopping fulfilment settings routes answer (shopping 2.1, 4): the settings, the secret
 * shown once, and the delivery history of the capability's events.
 */
import type { ShoppingCapability } from "../../../actors/shopping/capability.ts";
import type { OutboundEventSummary } from "../../../actors/platform/outbound_event/mod.ts";
import { OUTBOUND_STATUSES } from "../../../actors/platform/outbound_event/mod.ts";
import { iso } from "../../../src/domain/iso.ts";
import { z } from "../../../src/http/route.ts";
import { UtcInstant } from "../../../src/http/schemas.ts";
import { DeliveryId } from "../../../src/http/openapi_webhooks.ts";
import {
  BASKET_COLLECTED,
  DECISION_REQUIRED,
  STORE_COLLECTED,
} from "../../../src/shopping/rules/event_bodies.ts";

export const ShoppingSettingsAnswer = z.object({
  enabled: z.boolean().openapi({ description: "Whether the operator enabled the capability" }),
  webhook_url: z.string().nullable(),
  webhook_secret_set: z.boolean().openapi({
    description: "Whether a `shf_` secret was issued (POST .../secret/rotate shows it once)",
  }),
  sending: z.boolean().openapi({
    description: "Whether events go out now: enabled, a webhook_url set and a secret issued",
  }),
  ask_timeout_minutes: z.number().int(),
  receipt_url_ttl_minutes: z.number().int(),
  updated_at: UtcInstant.nullable(),
}).openapi("ShoppingFulfilmentSettings");

export function settingsView(s: ShoppingCapability, enabled: boolean) {
  const secretSet = s.webhook_secret !== null;
  return {
    enabled,
    webhook_url: s.webhook_url,
    webhook_secret_set: secretSet,
    sending: enabled && secretSet && s.webhook_url !== null,
    ask_timeout_minutes: s.ask_timeout_minutes,
    receipt_url_ttl_minutes: s.receipt_url_ttl_minutes,
    updated_at: iso(s.updated_at),
  };
}

export const SecretAnswer = z.object({
  webhook_secret: z.string().openapi({
    description: "`shf_...`: shown this once; signs every attempt from now on, retries of " +
      "older events too",
    example: "shf_q3Jx9Z0bVw1L7c2R8mT4nY6pK5sD0aFh",
  }),
}).openapi("ShoppingWebhookSecret");

export const ShoppingDeliveryAnswer = z.object({
  event_id: z.string().openapi({ description: "Also the X-Service-Delivery header" }),
  event: z.string(),
  state: z.enum(OUTBOUND_STATUSES),
  attempts: z.number().int(),
  last_error: z.string().nullable().openapi({
    description: "Why the last attempt failed (the receiver's status or the reason); null " +
      "when it was delivered or none was made",
  }),
  last_attempt_at: UtcInstant.nullable(),
  next_attempt_at: UtcInstant.nullable(),
  created_at: UtcInstant,
}).openapi("ShoppingDelivery");

function lastError(s: OutboundEventSummary): string | null {
  const o = s.last_attempt?.outcome;
  if (!o || o.result === "delivered") return null;
  if (o.result === "no_endpoint") return "no webhook_url set";
  return o.error ?? (o.http_status === null ? "no answer" : `HTTP ${o.http_status}`);
}

export function deliveryView(s: OutboundEventSummary) {
  return {
    event_id: s.event_id,
    event: s.event_type,
    state: s.status,
    attempts: s.attempts_total,
    last_error: lastError(s),
    last_attempt_at: iso(s.last_attempt?.at ?? null),
    next_attempt_at: iso(s.next_attempt_at),
    created_at: iso(s.created_at),
  };
}

/** A shopping event as sent (shopping 2.3, 6): the OpenAPI document's `webhooks`. */
export const ShoppingEventSent = z.object({
  event: z.enum([STORE_COLLECTED, DECISION_REQUIRED, BASKET_COLLECTED]),
  event_id: DeliveryId(),
}).loose().openapi("ShoppingEventSent", {
  description: "The event's fields beside its name and id (shopping 2.3, 2.4)",
});
