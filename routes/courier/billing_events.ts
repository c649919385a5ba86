/**
 * Courier 4.3, billing events and export (3.1, 6.1): the outbox of billing events and its
 * requeue, the acknowledgements the courier's system reports back, the CSV export and its
 * preview, and where billing events go (the billing endpoint, a setting the spec does not show).
 */
import { businessActor } from "../../actors/platform/business.ts";
import { courierClientActor } from "../../actors/courier/courier_client.ts";
import {
  OUTBOUND_STATUSES,
  type OutboundEvent,
  outboundEventActor,
  type OutboundEventSummary,
  summaryOf,
} from "../../actors/platform/outbound_event.ts";
import {
  billingCsvStream,
  type ExportRange,
  markExported,
} from "../../src/courier/queries/billing_export.ts";
import { REPORTED_STATES } from "../../src/platform/rules/export_state.ts";
import { type Api, ok } from "../../src/http/app.ts";
import { business } from "../../src/platform/auth/auth.ts";
import { businessPrincipalOf, principalName } from "../../src/platform/auth/principal.ts";
import { courierPlatform } from "../../src/courier/auth.ts";
import { billingEventPage } from "../../src/courier/queries/billing_events.ts";
import { afterPlainCursor, nextPlainCursor } from "../../src/http/cursor.ts";
import { ApiError, validationFailed } from "../../src/http/errors.ts";
import { define, z } from "../../src/http/route.ts";
import { attemptWaitingEvents } from "../../src/courier/reactors/delivery_targets.ts";
import { checkWebhookUrl } from "../../src/outbound/url_guard.ts";
import { EXPORT_BOUND_YEAR_MAX, EXPORT_BOUND_YEAR_MIN } from "../../src/limits.ts";
import { newId } from "../../src/runtime/ids.ts";
import { ask, read } from "../../src/http/ask.ts";
import { iso } from "../../src/domain/iso.ts";
import { CalendarDay, Currency, orNull, UtcInstant, wholeNumber } from "../../src/http/schemas.ts";
import { ENTRY_KINDS, ENTRY_STATUSES } from "../../src/courier/rules/ledger.ts";
import { COMPLETION_EVENTS } from "../../src/courier/rules/billing_events.ts";
import { API_VERSION } from "../../src/domain/signatures.ts";

const tag = "Billing events and export";
const admin = [business({ scope: "billing:administer" }), courierPlatform];
const viewer = [business({ scope: "billing:view-own" }), courierPlatform];
/** Events listed per page, newest first. */
const EVENTS_PAGE_MAX = 500;

const EventParam = z.object({ event_id: z.string().min(1).max(64) });
/** `YYYY-MM-DD` (the whole day, UTC) or an ISO 8601 timestamp. */
const Bound = z.string().regex(
  /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:\d{2}))?$/,
  "a date YYYY-MM-DD or an ISO 8601 timestamp",
);
const ExportQuery = z.object({
  client_id: z.string().min(1).max(64).optional(),
  from: Bound.optional(),
  to: Bound.optional(),
});

/** What choosing an export's range can refuse (rangeOf). */
const EXPORT_REFUSALS = {
  not_found: "client_id is none of the courier's clients",
  validation_failed: "from or to is no day or time, or to is before from",
};

// ---- Answers (documentation: tests/http/answers_operations_test.ts holds answers to them).

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
function eventView(s: OutboundEventSummary) {
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
function acknowledgementView(s: Pick<OutboundEventSummary, "acknowledgement">) {
  const ack = s.acknowledgement;
  return {
    external_references: ack?.external_references ?? {},
    reported_state: ack?.reported_state ?? null,
    external_reference: ack ? ack.external_references[ack.reported_state] ?? null : null,
  };
}

/** A billing event of this courier; another courier's, or a client webhook, is not found. */
async function billingEvent(
  c: Parameters<typeof ask>[0],
  tenant: string,
  eventId: string,
): Promise<OutboundEvent> {
  // One answer for every event that is not this courier's billing event: a missing id, a client
  // webhook, another courier's (courier 1.1: it tells nothing of what exists elsewhere).
  const got = await c.get("env").runtime.read(outboundEventActor, tenant, eventId, { kind: "get" });
  const event = got.ok ? got.reply as OutboundEvent | null : null;
  if (!event || event.stream !== "billing") {
    throw new ApiError("not_found", `billing event not found: ${eventId}`);
  }
  return event;
}

export function billingEventRoutes(api: Api): void {
  define(api, {
    method: "put",
    path: "/business/courier/billing/endpoint",
    summary: "Set (or clear, with null) the billing endpoint; without one, events go to the " +
      "business webhook URL (courier 6.1)",
    tag,
    security: "business",
    middleware: admin,
    body: z.object({ url: z.string().max(2_000).nullable() }),
    response: BillingEndpointSetAnswer,
    refusals: { validation_failed: "the URL is not public HTTPS" },
  }, async (c, { body }) => {
    const p = businessPrincipalOf(c);
    const env = c.get("env");
    const url = body.url?.trim() || null;
    if (url !== null) {
      // Checked again, after DNS, at every attempt (url_guard.ts).
      const verdict = checkWebhookUrl(url, { allowLoopback: env.allowLoopbackWebhooks });
      if (!verdict.ok) throw validationFailed([{ path: "url", message: verdict.message }]);
    }
    await ask(c, businessActor, p.business.id, p.business.id, {
      kind: "change_profile",
      changes: { billing_endpoint_url: url },
      by: principalName(p),
    });
    // spec: courier 3.1: what waited for an endpoint goes now, not at its next hourly try.
    if (url !== null) {
      await attemptWaitingEvents(env, p.business.id, { kind: "courier" });
    }
    return ok(c, { billing_endpoint_url: url });
  });

  define(api, {
    method: "get",
    path: "/business/courier/billing/endpoint",
    summary: "Where billing events go now",
    tag,
    security: "business",
    middleware: viewer,
    response: BillingEndpointAnswer,
  }, async (c) => {
    const p = businessPrincipalOf(c);
    const b = await read(c, businessActor, p.business.id, p.business.id, { kind: "get" });
    if (!b || !("profile" in b)) throw new Error("expected the business");
    const endpoint = b.profile.billing_endpoint_url ?? null;
    return ok(c, {
      billing_endpoint_url: endpoint,
      webhook_url: b.profile.webhook_url,
      sends_to: endpoint ?? b.profile.webhook_url,
    });
  });

  define(api, {
    method: "get",
    path: "/business/courier/billing/events",
    summary: "The billing event outbox and each event's state (courier 4.3)",
    tag,
    security: "business",
    middleware: viewer,
    query: z.object({
      status: z.enum(OUTBOUND_STATUSES).optional(),
      event_type: z.string().max(120).optional(),
      client_id: z.string().max(64).optional(),
      limit: wholeNumber(1, EVENTS_PAGE_MAX).default(100),
      /** The `created_at` and `event_id` of the last row of the previous page. */
      cursor: z.string().max(200).optional(),
    }),
    response: z.array(BillingEventAnswer),
    paged: "cursor",
  }, async (c, { query }) => {
    const p = businessPrincipalOf(c);
    const env = c.get("env");
    const page = await billingEventPage(env.db, p.business.id, query, {
      limit: query.limit,
      after: afterPlainCursor(query.cursor),
    });
    return ok(c, page.rows.map(eventView), 200, {
      limit: query.limit,
      next_cursor: nextPlainCursor(page.next),
    });
  });

  define(api, {
    method: "get",
    path: "/business/courier/billing/events/{event_id}",
    summary: "One billing event with its body and attempts",
    tag,
    security: "business",
    middleware: viewer,
    params: EventParam,
    response: BillingEventDetailAnswer,
  }, async (c, { params }) => {
    const p = businessPrincipalOf(c);
    const event = await billingEvent(c, p.business.id, params.event_id);
    return ok(c, {
      ...eventView(summaryOf(event)),
      body: JSON.parse(event.raw_body),
      attempts: event.attempts.map((a) => ({
        attempt_id: a.attempt_id,
        at: iso(a.at),
        ...a.outcome,
      })),
    });
  });

  define(api, {
    method: "post",
    path: "/business/courier/billing/events/{event_id}/requeue",
    summary: "Send a failed or pending event again from the first attempt; the reason is recorded",
    tag,
    security: "business",
    middleware: admin,
    params: EventParam,
    body: z.object({ reason: z.string().trim().min(1).max(200) }),
    response: BillingEventAnswer,
    refusals: {
      not_requeueable: "the event was delivered: only a failed or pending one is sent again",
    },
  }, async (c, { params, body }) => {
    const p = businessPrincipalOf(c);
    await billingEvent(c, p.business.id, params.event_id);
    const event = await ask(c, outboundEventActor, p.business.id, params.event_id, {
      kind: "requeue",
      reason: body.reason,
      by: principalName(p),
    });
    if (!event) throw new Error("requeue answers the event");
    return ok(c, eventView(summaryOf(event)));
  });

  define(api, {
    method: "post",
    path: "/business/courier/billing/events/{event_id}/acknowledge",
    summary: "Report the state of an event in the courier's system: acknowledged, " +
      "invoiced_externally or reconciled (forward only; `paid` is refused)",
    tag,
    security: "business",
    middleware: admin,
    params: EventParam,
    body: z.object({
      // Checked below, so that `paid` gets its own code (courier 3.1 rule 2).
      state: z.string().min(1).max(40).openapi({ enum: [...REPORTED_STATES] }),
      // A blank reference is no reference: refused, as for the billing actions (courier 3.1 rule 3).
      external_reference: z.string().trim().min(1).max(200).nullable().optional(),
    }),
    response: BillingEventAcknowledgedAnswer,
    refusals: {
      state_paid_refused: "state `paid`: there is no paid state; exported never means paid",
      validation_failed: "state is none of acknowledged, invoiced_externally, reconciled",
    },
  }, async (c, { params, body }) => {
    const p = businessPrincipalOf(c);
    if (body.state === "paid") {
      // spec: courier 3.1 rule 2: there is no paid state; exported never means paid.
      throw new ApiError(
        "state_paid_refused",
        "there is no paid state: report acknowledged, invoiced_externally or reconciled",
      );
    }
    const state = REPORTED_STATES.find((s) => s === body.state);
    if (!state) {
      throw validationFailed([{
        path: "state",
        message: `one of ${REPORTED_STATES.join(", ")}: ${body.state}`,
      }]);
    }
    await billingEvent(c, p.business.id, params.event_id);
    const event = await ask(c, outboundEventActor, p.business.id, params.event_id, {
      kind: "acknowledge",
      state,
      external_reference: body.external_reference ?? null,
      by: principalName(p),
    });
    if (!event) throw new Error("acknowledge answers the event");
    return ok(c, {
      event_id: event.event_id,
      event_type: event.event_type,
      status: event.status,
      ...acknowledgementView(summaryOf(event)),
    });
  });

  define(api, {
    method: "get",
    path: "/business/courier/billing/export",
    summary: "Preview of the billing export file (CSV): stored states, changes nothing",
    tag,
    security: "business",
    middleware: viewer,
    query: ExportQuery,
    produces: "text/csv",
    refusals: EXPORT_REFUSALS,
  }, async (c, { query }) => {
    const env = c.get("env");
    const range = await rangeOf(c, query, env.clock.now());
    return csvResponse(await billingCsvStream(env.db, range), range);
  });

  define(api, {
    method: "post",
    path: "/business/courier/billing/export",
    summary: "The billing export file (CSV), one row per entry; marks pending entries exported",
    tag,
    security: "business",
    middleware: admin,
    // The range as the preview takes it, in the query, or in the body (which wins): a POST that
    // put it in its address marked every entry of every client.
    query: ExportQuery,
    body: ExportQuery,
    produces: "text/csv",
    refusals: EXPORT_REFUSALS,
  }, async (c, { query, body }) => {
    const p = businessPrincipalOf(c);
    const env = c.get("env");
    const range = await rangeOf(c, { ...query, ...definedOf(body) }, env.clock.now());
    const exportId = newId("exp");
    // Marked first, then streamed from the same range: an entry is never marked without being
    // in the file, and the file shows it exported (courier 3.1). Should the file be lost, the
    // same POST (or the preview) gives it again.
    const marked = await markExported(env.db, range, exportId, principalName(p));
    const response = csvResponse(await billingCsvStream(env.db, range), range);
    response.headers.set("X-Export-Id", exportId);
    response.headers.set("X-Entries-Marked", String(marked));
    return response;
  });
}

/** The fields sent (an absent field never hides the same field of the query). */
function definedOf<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** The export range, after the query side has caught up with every committed entry. */
async function rangeOf(
  c: Parameters<typeof ask>[0],
  input: z.infer<typeof ExportQuery>,
  now: number,
): Promise<ExportRange> {
  const p = businessPrincipalOf(c);
  const env = c.get("env");
  if (input.client_id !== undefined) {
    // Another courier's client is not found, never exported.
    await read(c, courierClientActor, p.business.id, input.client_id, { kind: "get" });
  }
  const from = input.from === undefined ? null : boundOf(input.from, "start", "from");
  const to = input.to === undefined ? null : boundOf(input.to, "end", "to");
  if (from !== null && to !== null && from > to) {
    throw validationFailed([{ path: "to", message: "must not be before from" }]);
  }
  // Everything committed before the file was asked for is in it.
  await env.settle();
  return {
    tenant: p.business.id,
    client_id: input.client_id ?? null,
    from,
    to,
    as_of: new Date(now),
  };
}

function boundOf(text: string, edge: "start" | "end", path: string): Date {
  const date = /^\d{4}-\d{2}-\d{2}$/.test(text)
    ? new Date(`${text}T${edge === "start" ? "00:00:00.000" : "23:59:59.999"}Z`)
    : new Date(text);
  if (Number.isNaN(date.getTime())) throw validationFailed([{ path, message: "not a date" }]);
  // spec: courier 4.3: the range names calendar days; Date rolls 2026-11-31 into December, so a
  // "November" file would take (and a POST mark) December's entries.
  const [y, m, d] = text.slice(0, 10).split("-").map(Number) as [number, number, number];
  const day = new Date(Date.UTC(y, m - 1, d));
  if (day.getUTCMonth() !== m - 1 || day.getUTCDate() !== d) {
    throw validationFailed([{ path, message: `no such day: ${text.slice(0, 10)}` }]);
  }
  // Checked here, so that the query never meets a time Postgres cannot hold (a 500 on POST, a
  // cut-off file on GET).
  const year = date.getUTCFullYear();
  if (year < EXPORT_BOUND_YEAR_MIN || year > EXPORT_BOUND_YEAR_MAX) {
    throw validationFailed([{
      path,
      message: `a date from ${EXPORT_BOUND_YEAR_MIN} to ${EXPORT_BOUND_YEAR_MAX}: ${text}`,
    }]);
  }
  return date;
}

function csvResponse(body: ReadableStream<Uint8Array>, range: ExportRange): Response {
  const name = `billing-${range.client_id ?? "all"}-${range.as_of.toISOString().slice(0, 10)}.csv`;
  return new Response(body, {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="${name}"`,
    },
  });
}
