/**
 * What the business webhook routes answer (Business API 4.3 webhook-test, 6): a delivery of the
 * log with its attempts and requeues, and what the signed sample's attempt did.
 */
import {
  type AttemptOutcome,
  OUTBOUND_STATUSES,
  type OutboundEventSummary,
} from "../../../actors/platform/outbound_event/mod.ts";
import { BUSINESS_WEBHOOK_EVENTS } from "../../../src/business/rules/webhook_events.ts";
import { iso } from "../../../src/domain/iso.ts";
import { z } from "../../../src/http/route.ts";
import { orNull, UtcInstant } from "../../../src/http/schemas.ts";
import { DeliveryId, WebhookData, WebhookTimestamp } from "../../../src/http/openapi_webhooks.ts";

/** One attempt's outcome: sent and answered 2xx, or failed (with the status or the reason). */
const OutcomeAnswer = z.object({
  result: z.enum(["delivered", "failed"]),
  http_status: z.number().int().nullable().openapi({
    description: "The receiver's status; null: no answer (a network error, a time-out, a " +
      "refused address)",
  }),
  error: z.string().nullable().openapi({ description: "Why no answer came, when none came" }),
}).openapi("WebhookAttemptOutcome");

const AttemptAnswer = z.object({ at: UtcInstant, ...OutcomeAnswer.shape })
  .openapi("WebhookAttempt");

export const WebhookDeliveryAnswer = z.object({
  id: z.string().openapi({
    description: "The webhook's `id` and `event_id`, and its X-Service-Delivery header: the " +
      "same on every retry and requeue (receivers dedupe on it)",
    example: "evt_3f1c0a9b27d84e6f5a1b2c3d4e",
  }),
  event: z.string().openapi({ enum: [...BUSINESS_WEBHOOK_EVENTS], example: "trip.created" }),
  status: z.enum(OUTBOUND_STATUSES).openapi({
    description: "pending: not delivered yet, retried after 1, 5, 30, 120 and 720 minutes; " +
      "delivered: a 2xx answered; failed: every attempt failed (requeue sends it again)",
  }),
  attempts: z.number().int().openapi({ description: "Attempts ever made" }),
  next_attempt_at: UtcInstant.nullable(),
  last_attempt: orNull(AttemptAnswer),
  endpoint_missing_at: UtcInstant.nullable().openapi({
    description: "When an attempt last found no webhook URL set (nothing sent; retried hourly)",
  }),
  requeues: z.array(
    z.object({ reason: z.string(), by: z.string(), at: UtcInstant }).openapi("WebhookRequeue"),
  ),
  created_at: UtcInstant,
}).openapi("WebhookDelivery");

export const WebhookTestAnswer = z.object({
  delivery: WebhookDeliveryAnswer,
  outcome: orNull(OutcomeAnswer).openapi({
    description: "What the attempt made now did; null: another sender's attempt was under way",
  }),
}).openapi("WebhookTest");

/** A delivery as the log shows it. */
export function webhookDeliveryView(s: OutboundEventSummary) {
  const last = s.last_attempt;
  return {
    id: s.event_id,
    event: s.event_type,
    status: s.status,
    attempts: s.attempts_total,
    next_attempt_at: iso(s.next_attempt_at),
    last_attempt: last ? { at: iso(last.at), ...outcomeView(last.outcome) } : null,
    endpoint_missing_at: iso(s.endpoint_missing_at),
    requeues: s.requeues.map((r) => ({ reason: r.reason, by: r.by, at: iso(r.at) })),
    created_at: iso(s.created_at),
  };
}

/** An outcome with every field present (an attempt that found no URL sent nothing). */
export function outcomeView(o: AttemptOutcome) {
  switch (o.result) {
    case "delivered":
      return { result: "delivered" as const, http_status: o.http_status, error: null };
    case "failed":
      return { result: "failed" as const, http_status: o.http_status, error: o.error };
    case "no_endpoint":
      return { result: "failed" as const, http_status: null, error: "no webhook URL is set" };
  }
}

/** A business webhook as sent (Business API 2.7, 6): the OpenAPI document's `webhooks`. */
export const BusinessWebhookSent = z.object({
  id: DeliveryId(),
  event: z.enum(BUSINESS_WEBHOOK_EVENTS),
  event_id: DeliveryId("The same as `id`"),
  timestamp: WebhookTimestamp,
  external_reference: z.string().nullable().openapi({
    description: "The booking's external_reference (Business API 2.7)",
  }),
  test: z.boolean().openapi({
    description: "True only on the sample POST /business/webhook-test sends, which a receiver " +
      "applies to nothing. A sandbox trip's events are real events of the sandbox (false here); " +
      "the trip in `data` says is_test and test",
  }),
  data: WebhookData(
    "A trip's events: the trip of Business API 2.2 (reference, tracking_url, status, ...) " +
      "and the event's own fields; wallet.low_balance and invoice.issued: their facts",
  ),
}).openapi("BusinessWebhookSent");
