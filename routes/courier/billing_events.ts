/**
 * Courier 4.3, billing events and export (3.1, 6.1): the outbox of billing events and its
 * requeue, the acknowledgements the courier's system reports back, the CSV export and its
 * preview, and where billing events go (the billing endpoint, a setting the spec does not show).
 * Each action is a flow of src/courier/flows/billing/; answers are ./answers/billing_events.ts.
 */
import type { Context } from "hono";
import { OUTBOUND_STATUSES, summaryOf } from "../../actors/platform/outbound_event/mod.ts";
import type { BillingCaller } from "../../src/courier/flows/billing/account.ts";
import {
  acknowledgeEvent,
  billingEndpointOf,
  billingEventOf,
  requeueEvent,
  setBillingEndpoint,
} from "../../src/courier/flows/billing/events.ts";
import {
  exportEntries,
  type ExportFile,
  previewExport,
} from "../../src/courier/flows/billing/exports.ts";
import { billingEventPage } from "../../src/courier/queries/billing_events.ts";
import { afterPlainCursor, nextPlainCursor } from "../../src/http/cursor.ts";
import { REPORTED_STATES } from "../../src/platform/rules/export_state.ts";
import { type Api, ok } from "../../src/http/app.ts";
import { business } from "../../src/platform/auth/auth.ts";
import { businessCall } from "../../src/platform/auth/caller.ts";
import { courierPlatform } from "../../src/courier/auth.ts";
import type { AppEnv } from "../../src/http/context.ts";
import { define, z } from "../../src/http/route.ts";
import { EXAMPLE_URL, wholeNumber } from "../../src/http/schemas.ts";
import {
  acknowledgedView,
  BillingEndpointAnswer,
  BillingEndpointSetAnswer,
  BillingEventAcknowledgedAnswer,
  BillingEventAnswer,
  BillingEventDetailAnswer,
  BillingEventSent,
  eventDetailView,
  eventView,
} from "./answers/billing_events.ts";
import { documentWebhook } from "../../src/http/openapi_webhooks.ts";

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
).openapi({ example: "2026-01-01" });
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

export function billingEventRoutes(api: Api): void {
  documentWebhook(api, {
    name: "billingEvent",
    summary: "Billing event to the courier's endpoint (courier 6.1)",
    body: BillingEventSent,
    headers: "v3",
  });
  define(api, {
    method: "put",
    path: "/business/courier/billing/endpoint",
    summary: "Set (or clear, with null) the billing endpoint; without one, events go to the " +
      "business webhook URL (courier 6.1)",
    tag,
    security: "business",
    middleware: admin,
    body: z.object({ url: z.string().max(2_000).nullable().openapi({ example: EXAMPLE_URL }) }),
    response: BillingEndpointSetAnswer,
    refusals: { validation_failed: "the URL is not public HTTPS" },
  }, async (c, { body }) => {
    const url = await setBillingEndpoint(c.get("env"), callerOf(c), body.url);
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
    const { env, tenant } = businessCall(c);
    return ok(c, await billingEndpointOf(env.runtime, tenant));
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
    const { env, tenant } = businessCall(c);
    const page = await billingEventPage(env.db, tenant, query, {
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
    const { env, tenant } = businessCall(c);
    const event = await billingEventOf(env.runtime, tenant, params.event_id);
    return ok(c, eventDetailView(event));
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
    const event = await requeueEvent(c.get("env"), callerOf(c), params.event_id, body.reason);
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
    const event = await acknowledgeEvent(c.get("env"), callerOf(c), params.event_id, {
      state: body.state,
      external_reference: body.external_reference ?? null,
    });
    return ok(c, acknowledgedView(event));
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
    const { env, tenant } = businessCall(c);
    return csvResponse(await previewExport(env, tenant, query));
  });

  define(api, {
    method: "post",
    path: "/business/courier/billing/export",
    summary: "The billing export file (CSV), one row per entry; marks pending entries exported",
    description: "Marks the range's pending entries exported, and also any pending entry dated " +
      "before `from` that an earlier export's range covered (it reached the ledger after that " +
      "export): every entry goes out in exactly one export. The file is the range in stored " +
      "states with those carried-over entries, less any entry that reached the ledger after " +
      "this export marked (the next export takes it).",
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
    const file = await exportEntries(c.get("env"), callerOf(c), { ...query, ...definedOf(body) });
    const response = csvResponse(file);
    response.headers.set("X-Export-Id", file.export_id);
    response.headers.set("X-Entries-Marked", String(file.marked));
    return response;
  });
}

/** The fields sent (an absent field never hides the same field of the query). */
function definedOf<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** The courier calling and the name its acts record. */
function callerOf(c: Context<AppEnv>): BillingCaller {
  const { tenant, by } = businessCall(c);
  return { courier: tenant, by };
}

function csvResponse({ csv, range }: ExportFile): Response {
  const name = `billing-${range.client_id ?? "all"}-${range.as_of.toISOString().slice(0, 10)}.csv`;
  return new Response(csv, {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="${name}"`,
    },
  });
}
