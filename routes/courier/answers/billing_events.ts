/**
 * Billing events in answers (courier 2.7, 3.1, 4.3, 6.1): an event in the outbox with its
 * delivery and what the courier's system reported back, its body as sent, and where events go.
 * Documentation: tests/http/answers_operations_test.ts holds answers to them.
 */
import {
  OUTBOUND_STATUSES,
  type OutboundEvent,
  type OutboundEventSummary,
  summaryOf,
} from "../../../actors/platform/outbound_event/mod.ts";
import { REPORTED_STATES } from "../../../src/platform/rules/export_state.ts";
import { ENTRY_KINDS, ENTRY_STATUSES } from "../../../src/courier/rules/ledger.ts";
import { COMPLETION_EVENTS } from "../../../src/courier/rules/billing_events.ts";
import { API_VERSION } from "../../../src/domain/signatures.ts";
import { iso } from "../../../src/domain/iso.ts";
import { z } from "../../../src/http/route.ts";
import { CalendarDay, Currency, orNull, UtcInstant } from "../../../src/http/schemas.ts";
import { DeliveryId, WebhookData, WebhookTimestamp } from "../../../src/http/openapi_webhooks.ts";

/**
 * One attempt to send an event: its outcome spread beside its id and time. An attempt that finds
 * no endpoint sends nothing and is no attempt: it sets `endpoint_missing_at` (courier 3.1).
 */
const attemptFields = { attempt_id: z.string(), at: UtcInstant };
const AttemptAnswer = z.discriminatedUnion("result", [
  z.object({
    ...attemptFields,
    result: z.literal("delivered"),
    http_status: z.number().int(),
  }).openapi("BillingEventAttemptDelivered"),
  z.object({
    ...attemptFields,
    result: z.literal("failed"),
    http_status: z.number().int().nullable().openapi({
      description: "null: no answer (a network error, a time-out, a refused address)",
    }),
    error: z.string().nullable(),
  }).openapi("BillingEventAttemptFailed"),
]).openapi("BillingEventAttempt");

/** spec: courier 4.3: what the courier's system reported back (acknowledgementView). */
const acknowledgementFields = {
  external_references: z.object(
    Object.fromEntries(REPORTED_STATES.map((s) => [s, z.string().optional()])),
  ).openapi({ description: "The first reference reported for each state (courier 3.1 rule 3)" }),
  reported_state: z.enum(REPORTED_STATES).nullable().openapi({
    description: "The furthest state reported; null before any",
  }),
  external_reference: z.string().nullable().openapi({
    description: "The reference of the furthest state reported",
  }),
};

/** spec: courier 3.1, 4.3: a billing event in the outbox (eventView). */
const eventFields = {
  event_id: z.string(),
  event_type: z.string().openapi({ example: "shipment.booked" }),
  status: z.enum(OUTBOUND_STATUSES),
  attempts: z.number().int().openapi({ description: "Attempts ever made" }),
  next_attempt_at: UtcInstant.nullable(),
  last_attempt: orNull(AttemptAnswer),
  endpoint_missing_at: UtcInstant.nullable().openapi({
    description: "When an attempt last found no endpoint set (nothing sent; retried hourly)",
  }),
  client_id: z.string().nullable().openapi({
    description: "The client of the ledger entry or of the completed shipment it reports " +
      "(null on a completion event made before this was kept)",
  }),
  entry_reference: z.string().nullable().openapi({
    description: "The reference of the ledger entry it reports; null for a completion event",
  }),
  ...acknowledgementFields,
  acknowledged_at: UtcInstant.nullable().openapi({ description: "When last reported back" }),
  requeues: z.array(
    z.object({ reason: z.string(), by: z.string(), at: UtcInstant }).openapi("BillingEventRequeue"),
  ),
  created_at: UtcInstant,
};

export const BillingEventAnswer = z.object(eventFields).openapi("BillingEvent");

/**
 * An amount in a billing event body: decimal text in its currency, as the event was sent and
 * signed (courier 2.7), not a JSON number.
 */
const DecimalText = z.string().regex(/^-?\d+(\.\d+)?$/).openapi({
  description: "Decimal amount as text, in the body's currency, as sent (courier 2.7)",
  example: "88.92",
});

/** spec: courier 2.7 "Common fields" (commonFields). */
const commonBodyFields = {
  api_version: z.literal(API_VERSION),
  event_type: z.string(),
  type: z.string().openapi({ description: "The event type again" }),
  event_id: z.string(),
  occurred_at: UtcInstant,
  client: z.object({ id: z.string(), code: z.string(), name: z.string() })
    .openapi("BilledClient"),
};

/** spec: courier 2.7: a charge event: the ledger entry of 2.6 and the shipment's references. */
const ChargeEventBody = z.object({
  ...commonBodyFields,
  entry: z.object({
    reference: z.string(),
    kind: z.enum(ENTRY_KINDS),
    amount: DecimalText,
    currency: Currency,
    status: z.enum(ENTRY_STATUSES),
    payer: z.literal("client"),
    recoverable: z.boolean(),
    reason: z.string().nullable(),
    evidence_path: z.string().nullable(),
    source_event: z.string().nullable(),
    original_amount: DecimalText.nullable().openapi({
      description: "A converted charge: its amount in original_currency, as text",
    }),
    original_currency: Currency.nullable(),
    fx_rate: z.string().nullable(),
    fx_source: z.string().nullable(),
    corrects: z.string().nullable(),
    shipment: z.string().nullable(),
    created_at: UtcInstant,
    charged_at: UtcInstant.nullable(),
  }).openapi("BillingEventEntry"),
  shipment: orNull(
    z.object({
      waybill: z.string(),
      external_customer_code: z.string().nullable(),
      external_billing_reference: z.string().nullable(),
      client_order_reference: z.string().nullable(),
    }).openapi("BillingEventShipmentReferences"),
  ),
}).openapi("ChargeEventBody");

/** spec: courier 2.7: a completion event (`shipment.delivered`, `.returned`, `.cancelled`). */
const CompletionEventBody = z.object({
  ...commonBodyFields,
  shipment: z.object({
    waybill: z.string(),
    external_customer_code: z.string().nullable(),
    external_billing_reference: z.string().nullable(),
    booked_on: CalendarDay,
    service: z.string().openapi({ description: "The service level's code" }),
    base_charge: DecimalText.openapi({ description: "The booked price before tax, as text" }),
    currency: Currency,
    tax: DecimalText,
    price_lines: z.array(z.object({
      code: z.string(),
      label: z.string(),
      amount: DecimalText,
      included: z.boolean().optional().openapi({ description: "The tax line only" }),
      tax: DecimalText.optional().openapi({ description: "The tax line only" }),
    })),
    adjustments: z.array(z.object({
      reference: z.string(),
      kind: z.enum(ENTRY_KINDS),
      amount: DecimalText,
      currency: Currency,
      reason: z.string().nullable(),
      recoverable: z.boolean(),
      correction: z.string().nullable().openapi({
        description: "A debit or credit note: the entry it corrects",
      }),
      status: z.enum(ENTRY_STATUSES).optional().openapi({
        description: "The entry's status; `unresolved_fx`: awaiting its rate, in the currency it " +
          "arose in and not owed yet (its `charge.resolved` event follows). Absent on events " +
          "made before it was sent",
      }),
    })).openapi({ description: "The later charges and notes booked on the shipment" }),
    status: z.enum(Object.keys(COMPLETION_EVENTS) as (keyof typeof COMPLETION_EVENTS)[]),
    delivered_at: UtcInstant.nullable(),
    pod: z.boolean().openapi({ description: "Delivered with a proof (who received it)" }),
  }).openapi("CompletionEventShipment"),
}).openapi("CompletionEventBody");

/** One billing event with the body it sends and its latest attempts. */
export const BillingEventDetailAnswer = z.object({
  ...eventFields,
  body: z.union([ChargeEventBody, CompletionEventBody]).openapi({
    description: "The body as sent, byte for byte (courier 2.7); amounts are decimal text",
  }),
  attempts: z.array(AttemptAnswer).openapi({
    description: "The latest attempts, oldest first (here a list; the outbox list's `attempts` " +
      "counts every attempt ever made)",
  }),
}).openapi("BillingEventDetail");

/** Where billing events go, as set (courier 6.1). */
export const BillingEndpointSetAnswer = z.object({
  billing_endpoint_url: z.string().nullable().openapi({ description: "null: cleared" }),
}).openapi("BillingEndpointSet");

/** Where billing events go now (courier 6.1). */
export const BillingEndpointAnswer = z.object({
  billing_endpoint_url: z.string().nullable().openapi({
    description: "The billing endpoint; null: none set",
  }),
  webhook_url: z.string().nullable().openapi({ description: "The business webhook URL" }),
  sends_to: z.string().nullable().openapi({
    description: "Where events go: the billing endpoint, else the webhook URL; null: " +
      "nowhere yet, events wait and are retried hourly (courier 3.1)",
  }),
}).openapi("BillingEndpoint");

/** spec: courier 4.3: what an acknowledgement answers. */
export const BillingEventAcknowledgedAnswer = z.object({
  event_id: z.string(),
  event_type: z.string(),
  status: eventFields.status,
  ...acknowledgementFields,
}).openapi("BillingEventAcknowledged");

/** What the outbox shows of an event: delivery state, attempts, what was reported back. */
export function eventView(s: OutboundEventSummary) {
  const ack = s.acknowledgement;
  return {
    event_id: s.event_id,
    event_type: s.event_type,
    status: s.status,
    attempts: s.attempts_total,
    next_attempt_at: iso(s.next_attempt_at),
    last_attempt: s.last_attempt
      ? {
        attempt_id: s.last_attempt.attempt_id,
        at: iso(s.last_attempt.at),
        ...s.last_attempt.outcome,
      }
      : null,
    endpoint_missing_at: iso(s.endpoint_missing_at),
    // Summaries projected before client_id was kept name it in their entry only.
    client_id: s.client_id ?? s.entry?.client_id ?? null,
    entry_reference: s.entry?.reference ?? null,
    ...acknowledgementView(s),
    acknowledged_at: iso(ack?.at ?? null),
    requeues: s.requeues.map((r) => ({ reason: r.reason, by: r.by, at: iso(r.at) })),
    created_at: iso(s.created_at),
  };
}

/** spec: courier 4.3: `external_references` by state, the furthest state, and its reference. */
export function acknowledgementView(s: Pick<OutboundEventSummary, "acknowledgement">) {
  const ack = s.acknowledgement;
  return {
    external_references: ack?.external_references ?? {},
    reported_state: ack?.reported_state ?? null,
    external_reference: ack ? ack.external_references[ack.reported_state] ?? null : null,
  };
}

/** One billing event with the body it sends and its latest attempts. */
export function eventDetailView(event: OutboundEvent) {
  return {
    ...eventView(summaryOf(event)),
    body: JSON.parse(event.raw_body),
    attempts: event.attempts.map((a) => ({
      attempt_id: a.attempt_id,
      at: iso(a.at),
      ...a.outcome,
    })),
  };
}

/** spec: courier 4.3: what an acknowledgement answers. */
export function acknowledgedView(event: OutboundEvent) {
  return {
    event_id: event.event_id,
    event_type: event.event_type,
    status: event.status,
    ...acknowledgementView(summaryOf(event)),
  };
}

/** A billing event as sent (courier 2.7, 6.1): the OpenAPI document's `webhooks`. */
export const BillingEventSent = z.object({
  api_version: z.string(),
  event_type: z.string().openapi({
    description: "shipment.booked, shipment.delivered, charge.resolved, customs.cleared:<id>, ...",
  }),
  type: z.string().openapi({ description: "The same as `event_type`" }),
  event_id: DeliveryId(),
  occurred_at: WebhookTimestamp,
  client: WebhookData("The billed client: id, code, external ids"),
}).loose().openapi("BillingEventSent", {
  description: "A charge event carries `entry` (the ledger entry) and `shipment`; a completion " +
    "event the shipment and its adjustments (courier 2.7)",
});
