/**
 * Courier 4.4, the operations board: scans and custody moves recorded by operations (runs and
 * drivers record theirs in 4.5), the board's rows with every filter, one shipment's obligations,
 * custody, trail, alerts and frozen terms, saved views, and the report. Lists and the report read
 * the Postgres projection; single shipments and every decision read the actor.
 */
import type { Context } from "hono";
import { courierCatalogueActor } from "../../actors/courier/courier_catalogue.ts";
import { operationsViewsActor } from "../../actors/courier/operations_views.ts";
import { asShipment, type Shipment, shipmentActor } from "../../actors/courier/shipment/mod.ts";
import { recordScan } from "../../src/courier/flows/scans.ts";
import { isValidTimeZone } from "../../src/domain/calendar.ts";
import {
  HEALTHS,
  OWNER_ROLES,
  SCAN_EVENTS,
  type ScanEvent,
} from "../../src/courier/rules/lifecycle.ts";
import { operationsBoard } from "../../src/courier/queries/operations_board.ts";
import {
  alertCounts,
  deliveredSince,
  openShipmentCounts,
} from "../../src/courier/queries/operations_report.ts";
import { alertsOfShipment } from "../../src/courier/queries/alerts.ts";
import { shipmentByExternalReference } from "../../src/courier/queries/shipments.ts";
import { waybillSpellings } from "../../src/courier/rules/waybill.ts";
import { type Api, ok } from "../../src/http/app.ts";
import { business } from "../../src/platform/auth/auth.ts";
import { businessCall } from "../../src/platform/auth/caller.ts";
import { businessPrincipalOf, requireScope } from "../../src/platform/auth/principal.ts";
import type { Scope } from "../../src/platform/rules/scopes.ts";
import { courierPlatform } from "../../src/courier/auth.ts";
import type { AppEnv } from "../../src/http/context.ts";
import { ApiError, fromRejection } from "../../src/http/errors.ts";
import { define, OffsetPageMeta, z } from "../../src/http/route.ts";
import { Waybill, wholeNumber } from "../../src/http/schemas.ts";
import { ask, read } from "../../src/http/ask.ts";
import { FrozenPricingAnswer, pricingView } from "./answers/shipments.ts";
import { frozenServiceTermsView, ServiceTermsAnswer } from "./answers/service_levels.ts";
import {
  AGEING_BUCKET_DAYS_MAX,
  AGEING_BUCKETS,
  OperationsReportAnswer,
  OperationsRowAnswer,
  SavedViewAnswer,
  SavedViewDeletedAnswer,
  savedViewView,
  shipmentOperationsFields,
  shipmentOperationsView,
} from "./answers/operations.ts";

const tag = "Operations board";
const view = [business({ scope: "shipments:view-own" }), courierPlatform];
const operate = [business({ scope: "runs:operate" }), courierPlatform];
const ROWS_MAX = 500;

const Text = (max: number) => z.string().trim().min(1).max(max);

const BoardQuery = z.object({
  health: z.enum(HEALTHS).optional(),
  next_owner: z.enum(OWNER_ROLES).optional(),
  client_id: Text(64).optional(),
  facility_id: Text(120).optional(),
  q: Text(120).openapi({
    description: "Shipments whose waybill, external reference, consignee's or client's name " +
      "starts with this, in any case",
  }).optional(),
  overdue: z.enum(["0", "1"]).optional(),
  open_alerts: z.enum(["0", "1"]).optional(),
  include_closed: z.enum(["0", "1"]).optional(),
  view: Text(60).optional(),
  limit: wholeNumber(1, ROWS_MAX).default(100),
  offset: wholeNumber(0, 1_000_000).default(0),
});
type BoardFilters = Omit<z.infer<typeof BoardQuery>, "view" | "limit" | "offset">;

/** The board's `meta`: the page asked, counts by health over every page, the filters applied. */
const BoardMeta = OffsetPageMeta.extend({
  by_health: z.object(Object.fromEntries(HEALTHS.map((h) => [h, z.number().int()]))),
  filters: BoardQuery.omit({ view: true, limit: true, offset: true }).openapi({
    description: "The filters applied: a saved `view`'s, with the query's own over them",
  }),
}).openapi("BoardMeta");
const FILTER_KEYS = [
  "health",
  "next_owner",
  "client_id",
  "facility_id",
  "q",
  "overdue",
  "open_alerts",
  "include_closed",
] as const;

/** spec: courier 4.4: one shipment as operations read it (detailView). */
export const ShipmentOperationsAnswer = z.object({
  ...shipmentOperationsFields,
  frozen_terms: z.object({
    service_terms: ServiceTermsAnswer,
    pricing: FrozenPricingAnswer,
  }).openapi({ description: "The service terms and pricing frozen at booking (courier 2.3)" }),
  live_position: z.null().openapi({
    description: "Shown only while a road leg is moving (courier 4.4): null here",
  }),
}).openapi("ShipmentOperations");

const ScanBody = z.object({
  event: z.enum(SCAN_EVENTS),
  facility_id: Text(120).nullable().optional(),
  holder: Text(120).nullable().optional(),
  pieces: z.array(Text(80)).max(500).nullable().optional(),
  note: z.string().max(500).nullable().optional(),
  reason: z.string().max(500).nullable().optional(),
  received_by: Text(120).nullable().optional(),
}).openapi({
  // A scan as operations records one (sampled, its pieces and facility are placeholders).
  example: { event: "collected", holder: "Thabo", note: "Collected at the counter" },
});

/**
 * spec: courier 1.5, 5: authority is the caller's scopes, whichever endpoint records the step:
 * customs' clearance or release needs customs:approve, as POST /business/customs/{crossing}/move
 * does, and papers supplied customs:submit-documents, as .../supply does; the rest runs:operate.
 */
const SCAN_SCOPE: Partial<Record<ScanEvent, Scope>> = {
  cleared: "customs:approve",
  released: "customs:approve",
  documents_supplied: "customs:submit-documents",
};

/** A shipment of this courier by waybill or by any external reference. */
async function findShipment(c: Context<AppEnv>, reference: string): Promise<Shipment> {
  const { env, tenant } = businessCall(c);
  // A waybill as typed (any case; src/http/schemas.ts Waybill); external references stay exact.
  for (const waybill of waybillSpellings(reference)) {
    const direct = await env.runtime.read(shipmentActor, tenant, waybill, { kind: "get" });
    if (direct.ok) return asShipment(direct.reply);
    // A refused read (a full mailbox) is answered 503, never 404 for a shipment that exists.
    if (direct.code !== "not_found") throw fromRejection(direct);
  }
  const found = await shipmentByExternalReference(env.db, tenant, reference);
  if (!found) throw new ApiError("not_found", `no shipment with waybill or reference ${reference}`);
  return asShipment(await read(c, shipmentActor, tenant, found, { kind: "get" }));
}

/** One shipment as operations read it: obligations, custody, trail, alerts, frozen terms. */
async function detailView(c: Context<AppEnv>, s: Shipment) {
  const env = c.get("env");
  const alertList = await alertsOfShipment(env.db, s.courier_id, s.waybill, 100);
  return {
    ...shipmentOperationsView(s, env.clock.now(), alertList),
    frozen_terms: {
      service_terms: frozenServiceTermsView(s.service_terms),
      pricing: pricingView(s.pricing),
    },
    // spec: courier 4.4: a live position appears only while a road leg is moving (runs, 4.5).
    live_position: null,
  };
}

export function operationRoutes(api: Api): void {
  define(api, {
    method: "post",
    path: "/business/courier/shipments/{waybill}/scans",
    summary: "Record a scan or custody move on a shipment (operations; runs and drivers record " +
      "theirs through 4.5). `event` moves the headline and milestones of 3.2; `pieces` limits " +
      "a custody move to some pieces (default: all); exceptions, lost or damaged, customs holds " +
      "(`customs_hold`, waiting on customs; `documents_requested`, customs holds for papers the " +
      "courier must supply) and cancellations need a `reason`",
    tag,
    security: "business",
    middleware: operate,
    params: z.object({ waybill: Waybill }),
    body: ScanBody,
    status: 201,
    response: ShipmentOperationsAnswer,
    refusals: {
      validation_failed: "an exception, lost or damaged, customs hold, document request or " +
        "cancellation without a reason",
      shipment_closed: "the shipment is delivered, returned or cancelled: nothing more is recorded",
      run_step_under_way: "delivered, returned or cancelled while a run's delivery, attempt or " +
        "collection it recorded still moves the shipment: sent again once that is recorded",
      not_cancellable: "a cancellation of a shipment already in the courier's hands",
      unknown_piece: "`pieces` names a piece the shipment does not have",
      scope_denied: "`cleared` or `released` without the scope `customs:approve`, " +
        "`documents_supplied` without `customs:submit-documents`",
      held_by_customs: "`out_for_delivery`, `delivery_attempted` or `delivered` while customs " +
        "holds the shipment (its headline customs_hold, or its crossing held, asked for papers " +
        "or refused)",
      scan_out_of_order: "a scan that cannot follow the headline and would owe a later charge: " +
        "`delivery_attempted` not out for delivery, `returned` on a shipment never collected, " +
        "`documents_supplied`, `cleared` or `released` on a shipment with no customs crossing",
      pieces_incomplete: "delivered or returned with `pieces` naming only some of the shipment's " +
        "pieces: a scan that closes the shipment names every piece or none",
    },
  }, async (c, { params, body }) => {
    const { env, tenant, by } = businessCall(c);
    const needs = SCAN_SCOPE[body.event];
    if (needs) requireScope(businessPrincipalOf(c), needs);
    const s = await recordScan(env.runtime, tenant, params.waybill, {
      event: body.event,
      facility_id: body.facility_id ?? null,
      holder: body.holder ?? null,
      pieces: body.pieces ?? null,
      note: body.note ?? null,
      reason: body.reason ?? null,
      received_by: body.received_by ?? null,
      by,
    }, env.requestId);
    return ok(c, await detailView(c, s), 201);
  });

  define(api, {
    method: "get",
    path: "/business/courier/operations",
    summary: "The operations board: one row per shipment, with `meta.by_health` counts",
    tag,
    security: "business",
    middleware: view,
    query: BoardQuery,
    response: z.array(OperationsRowAnswer),
    paged: BoardMeta,
    refusals: { not_found: "no saved view by the name `view`" },
  }, async (c, { query }) => {
    const { env, tenant } = businessCall(c);
    const now = env.clock.now();
    // The page asked is meta's own `limit` and `offset`, never a filter (BoardMeta).
    let filters = definedFilters(query) as BoardFilters;
    if (query.view) {
      const saved = (await read(c, operationsViewsActor, tenant, tenant, { kind: "get" })).views
        .find((v) => v.name === query.view);
      if (!saved) throw new ApiError("not_found", `no saved view named ${query.view}`);
      filters = { ...saved.filters, ...definedFilters(query) } as BoardFilters;
    }
    const board = await operationsBoard(env.db, tenant, filters, {
      now,
      limit: query.limit,
      offset: query.offset,
    }, HEALTHS);
    return ok(c, board.rows, 200, {
      by_health: board.by_health,
      limit: query.limit,
      offset: query.offset,
      filters,
    });
  });

  define(api, {
    method: "get",
    path: "/business/courier/operations/views",
    summary: "Saved board filters",
    tag,
    security: "business",
    middleware: view,
    response: z.array(SavedViewAnswer),
  }, async (c) => {
    const { tenant } = businessCall(c);
    const { views } = await read(c, operationsViewsActor, tenant, tenant, { kind: "get" });
    return ok(c, views.map(savedViewView));
  });

  define(api, {
    method: "post",
    path: "/business/courier/operations/views",
    summary: "Save (or replace) a named board filter",
    tag,
    security: "business",
    middleware: view,
    body: z.object({
      name: z.string().trim().regex(/^[A-Za-z0-9 _.-]{1,60}$/, "letters, digits, space, _ . -"),
      filters: BoardQuery.omit({ view: true, limit: true, offset: true }),
    }),
    status: 201,
    response: SavedViewAnswer,
    refusals: {
      views_full: "the courier already keeps as many saved views as it may; replace or delete one",
    },
  }, async (c, { body }) => {
    const { tenant, by } = businessCall(c);
    const state = await ask(c, operationsViewsActor, tenant, tenant, {
      kind: "save",
      view: { name: body.name, filters: definedFilters(body.filters), by },
    });
    const saved = state.views.find((v) => v.name === body.name);
    if (!saved) throw new Error("save answers the saved view");
    return ok(c, savedViewView(saved), 201);
  });

  define(api, {
    method: "delete",
    path: "/business/courier/operations/views/{name}",
    summary: "Delete a saved board filter",
    tag,
    security: "business",
    middleware: view,
    params: z.object({ name: Text(60) }),
    response: SavedViewDeletedAnswer,
  }, async (c, { params }) => {
    const { tenant } = businessCall(c);
    await ask(c, operationsViewsActor, tenant, tenant, { kind: "delete", name: params.name });
    return ok(c, { deleted: params.name });
  });

  define(api, {
    method: "get",
    path: "/business/courier/operations/report",
    summary: "Open shipments by health and next owner, ageing, open alerts by kind, and today's " +
      "deliveries and alerts raised and resolved",
    tag,
    security: "business",
    middleware: view,
    query: z.object({
      timezone: z.string().max(64).refine(isValidTimeZone, { message: "not an IANA time zone" })
        .optional().openapi({
          description: "Whose day is today (IANA name); default: the courier's first calendar's",
        }),
    }),
    response: OperationsReportAnswer,
  }, async (c, { query }) => {
    const { env, tenant } = businessCall(c);
    const now = env.clock.now();
    // spec: courier 4.4: today is the courier's day, not UTC's: at 01:50 in Gaborone it is
    // already tomorrow there.
    const catalogue = await read(c, courierCatalogueActor, tenant, tenant, { kind: "get" });
    const timezone = query.timezone ?? catalogue.calendars[0]?.timezone ?? "UTC";
    const today = Temporal.Instant.fromEpochMilliseconds(now).toZonedDateTimeISO(timezone);
    const dayStart = today.startOfDay().epochMilliseconds;
    const db = env.db;
    const [open, alerts, deliveries] = await Promise.all([
      openShipmentCounts(db, tenant, now, AGEING_BUCKET_DAYS_MAX),
      alertCounts(db, tenant, now, dayStart),
      deliveredSince(db, tenant, dayStart),
    ]);
    const ageing = Object.fromEntries(AGEING_BUCKETS.map((b, i) => [b, open.ageing[i] ?? 0]));
    return ok(c, {
      open_shipments: {
        total: open.total,
        by_health: open.by_health,
        by_next_owner: open.by_next_owner,
      },
      ageing_days: ageing,
      open_alerts: { by_kind: alerts.open_by_kind },
      today: {
        date: today.toPlainDate().toString(),
        timezone,
        deliveries,
        alerts_raised: alerts.raised_since,
        alerts_resolved: alerts.resolved_since,
      },
    });
  });

  define(api, {
    method: "get",
    path: "/business/courier/operations/{reference}",
    summary: "One shipment by waybill or external reference: obligations, each piece's custody, " +
      "the full trail, alerts and the frozen service terms",
    tag,
    security: "business",
    middleware: view,
    params: z.object({ reference: Text(120) }),
    response: ShipmentOperationsAnswer,
  }, async (c, { params }) => ok(c, await detailView(c, await findShipment(c, params.reference))));
}

function definedFilters(f: Partial<Record<string, unknown>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of FILTER_KEYS) {
    const v = f[key];
    if (typeof v === "string" && v !== "") out[key] = v;
  }
  return out;
}
