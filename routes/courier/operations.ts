/**
 * Courier 4.4, the operations board: scans and custody moves recorded by operations (runs and
 * drivers record theirs in 4.5), the board's rows with every filter, one shipment's obligations,
 * custody, trail, alerts and frozen terms, saved views, and the report. Lists and the report read
 * the Postgres projection; single shipments and every decision read the actor.
 */
import type { Context } from "hono";
import { ALERT_KINDS } from "../../actors/courier/alert.ts";
import { courierCatalogueActor } from "../../actors/courier/courier_catalogue.ts";
import { operationsViewsActor, type SavedView } from "../../actors/courier/operations_views.ts";
import { asShipment, type Shipment, shipmentActor } from "../../actors/courier/shipment.ts";
import { bookScanCharge } from "../../src/courier/flows/later_charges.ts";
import { isValidTimeZone } from "../../src/domain/calendar.ts";
import {
  HEADLINES,
  HEALTHS,
  MILESTONES,
  OWNER_ROLES,
  SCAN_EVENTS,
} from "../../src/courier/rules/lifecycle.ts";
import { operationsRow } from "../../src/courier/queries/operations_row.ts";
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
import { businessPrincipalOf, principalName } from "../../src/platform/auth/principal.ts";
import { courierPlatform } from "../../src/courier/auth.ts";
import type { AppEnv } from "../../src/http/context.ts";
import { ApiError } from "../../src/http/errors.ts";
import { define, OffsetPageMeta, z } from "../../src/http/route.ts";
import { CalendarDay, UtcInstant, Waybill, wholeNumber } from "../../src/http/schemas.ts";
import { ask, read } from "../../src/http/ask.ts";
import { FrozenPricingAnswer, pricingView } from "./prices.ts";
import { frozenServiceTermsView, ServiceTermsAnswer } from "./service_levels.ts";
import { AlertAnswer, alertView } from "./alerts.ts";
import { iso } from "../../src/domain/iso.ts";

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
  q: Text(120).optional(),
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

// ---- Answers (documentation: tests/http/answers_operations_test.ts holds answers to them).

const Count = z.number().int().min(0);

/** spec: courier 4.4: one row of the board (operationsRow). */
const rowFields = {
  waybill: z.string(),
  client_id: z.string(),
  external_customer_code: z.string().nullable(),
  external_billing_reference: z.string().nullable(),
  client_order_reference: z.string().nullable(),
  status: z.enum(HEADLINES).openapi({ description: "The headline (courier 3.2)" }),
  health: z.enum(HEALTHS),
  health_reason: z.string(),
  custody: z.object({
    holder: z.string().nullable(),
    facility_id: z.string().nullable(),
  }).openapi({ description: "The most recently scanned piece's holder and facility" }),
  last_scan: z.object({
    event: z.enum(SCAN_EVENTS),
    at: UtcInstant,
    facility_id: z.string().nullable(),
    note: z.string().nullable(),
  }).nullable().openapi({ description: "The last physical scan; null before any" }),
  next_milestone: z.enum(MILESTONES).nullable(),
  next_due_at: UtcInstant.nullable(),
  next_owner: z.enum(OWNER_ROLES).nullable(),
  overdue: z.boolean().openapi({ description: "An open milestone is past its deadline" }),
  estimated_delivery_on: CalendarDay,
  promise: z.object({ earliest_delivery: CalendarDay, latest_delivery: CalendarDay }),
  open_alerts: Count.openapi({ description: "Alerts of the shipment not yet resolved" }),
  age_days: Count.openapi({ description: "Whole days since booking" }),
  booked_at: UtcInstant,
  closed: z.boolean().openapi({ description: "Delivered, returned or cancelled" }),
  delivered_at: UtcInstant.nullable(),
};

export const OperationsRowAnswer = z.object({
  ...rowFields,
  pieces: z.object({
    count: Count,
    places: Count.openapi({ description: "Distinct facility and holder pairs the pieces are at" }),
  }),
}).openapi("OperationsRow");

/** spec: courier 4.4: one shipment as operations read it (detailView). */
export const ShipmentOperationsAnswer = z.object({
  ...rowFields,
  obligations: z.array(
    z.object({
      milestone: z.enum(MILESTONES),
      owner: z.enum(OWNER_ROLES),
      opened_at: UtcInstant,
      due_at: UtcInstant,
      at_risk_at: UtcInstant,
      overdue: z.boolean(),
      supplied_at: UtcInstant.nullable().openapi({
        description: "customs_documents: when the courier supplied the papers",
      }),
    }).openapi("Obligation"),
  ).openapi({ description: "The open milestones, each with its deadline and owner" }),
  pieces: z.array(
    z.object({
      id: z.string(),
      holder: z.string().nullable(),
      facility_id: z.string().nullable(),
      last_scan_at: UtcInstant.nullable(),
    }).openapi("PieceCustody"),
  ).openapi({ description: "Each piece's custody (a count on the board's rows)" }),
  trail: z.array(
    z.object({
      at: UtcInstant,
      event: z.enum(SCAN_EVENTS),
      facility_id: z.string().nullable(),
      holder: z.string().nullable(),
      note: z.string().nullable(),
      reason: z.string().nullable(),
      pieces: z.array(z.string()).nullable().openapi({ description: "null: every piece" }),
      by: z.string(),
    }).openapi("TrailEntry"),
  ).openapi({ description: "Every scan, custody move and status change, oldest first" }),
  trail_total: Count.openapi({ description: "Trail lines ever recorded, beyond those kept" }),
  exception: z.object({ reason: z.string(), at: UtcInstant }).nullable().openapi({
    description: "The open exception, if any",
  }),
  attempts: Count.openapi({ description: "Delivery attempts made" }),
  pod: z.object({ received_by: z.string().nullable(), note: z.string().nullable() })
    .nullable().openapi({ description: "The proof of delivery; null before delivery" }),
  alerts: z.array(AlertAnswer).openapi({ description: "The shipment's alerts, newest first" }),
  frozen_terms: z.object({
    service_terms: ServiceTermsAnswer,
    pricing: FrozenPricingAnswer,
  }).openapi({ description: "The service terms and pricing frozen at booking (courier 2.3)" }),
  live_position: z.null().openapi({
    description: "Shown only while a road leg is moving (courier 4.4): null here",
  }),
}).openapi("ShipmentOperations");

/** A saved board filter (savedViewView). */
export const SavedViewAnswer = z.object({
  name: z.string(),
  filters: z.record(z.string(), z.string()).openapi({
    description: "The board's query filters it applies",
  }),
  by: z.string(),
  saved_at: UtcInstant,
}).openapi("SavedBoardView");

export const SavedViewDeletedAnswer = z.object({
  deleted: z.string().openapi({ description: "The view's name" }),
}).openapi("SavedBoardViewDeleted");

const AGEING_BUCKETS = ["0-2", "3-5", "6-9", "10-14", "15+"] as const;
/** The most whole days each bucket but the last holds. */
const AGEING_BUCKET_DAYS_MAX = [2, 5, 9, 14] as const;

/** spec: courier 4.4: the operations report. */
export const OperationsReportAnswer = z.object({
  open_shipments: z.object({
    total: Count,
    by_health: z.partialRecord(z.enum(HEALTHS), Count).openapi({
      description: "Only the health values that have open shipments",
    }),
    by_next_owner: z.partialRecord(z.enum([...OWNER_ROLES, "none"]), Count),
  }),
  ageing_days: z.object(Object.fromEntries(AGEING_BUCKETS.map((b) => [b, Count]))).openapi({
    description: "Open shipments by whole days since booking",
  }),
  open_alerts: z.object({
    by_kind: z.partialRecord(
      z.enum(ALERT_KINDS),
      z.object({
        open: Count,
        unacknowledged: Count,
        older_than_24h: Count,
      }),
    ).openapi({ description: "Only the kinds that have open alerts" }),
  }),
  today: z.object({
    date: CalendarDay,
    timezone: z.string().openapi({ description: "Whose day is today (IANA name)" }),
    deliveries: Count,
    alerts_raised: Count,
    alerts_resolved: Count,
  }),
}).openapi("OperationsReport");

const ScanBody = z.object({
  event: z.enum(SCAN_EVENTS),
  facility_id: Text(120).nullable().optional(),
  holder: Text(120).nullable().optional(),
  pieces: z.array(Text(80)).max(500).nullable().optional(),
  note: z.string().max(500).nullable().optional(),
  reason: z.string().max(500).nullable().optional(),
  received_by: Text(120).nullable().optional(),
});

/** A saved board filter as answered: its time in ISO 8601. */
function savedViewView(v: SavedView) {
  return { name: v.name, filters: v.filters, by: v.by, saved_at: iso(v.saved_at) };
}

/** A shipment of this courier by waybill or by any external reference. */
async function findShipment(c: Context<AppEnv>, reference: string): Promise<Shipment> {
  const env = c.get("env");
  const courier = businessPrincipalOf(c).business.id;
  // A waybill as typed (any case; src/http/schemas.ts Waybill); external references stay exact.
  for (const waybill of waybillSpellings(reference)) {
    const direct = await env.runtime.read(shipmentActor, courier, waybill, { kind: "get" });
    if (direct.ok) return asShipment(direct.reply);
  }
  const found = await shipmentByExternalReference(env.db, courier, reference);
  if (!found) throw new ApiError("not_found", `no shipment with waybill or reference ${reference}`);
  return asShipment(await read(c, shipmentActor, courier, found, { kind: "get" }));
}

/** One shipment as operations read it: obligations, custody, trail, alerts, frozen terms. */
async function detailView(c: Context<AppEnv>, s: Shipment) {
  const env = c.get("env");
  const now = env.clock.now();
  const { tracking_token: _t, tracking_token_hash: _h, ...snapshot } = s;
  const alertList = await alertsOfShipment(env.db, s.courier_id, s.waybill, 100);
  return {
    ...operationsRow(snapshot, now, alertList.filter((a) => a.status !== "resolved").length),
    obligations: s.milestones.map((m) => ({
      milestone: m.name,
      owner: m.owner,
      opened_at: iso(m.opened_at),
      due_at: iso(m.due_at),
      at_risk_at: iso(m.at_risk_at),
      overdue: m.due_at <= now,
      supplied_at: iso(m.supplied_at),
    })),
    pieces: s.pieces.map((p) => ({ ...p, last_scan_at: iso(p.last_scan_at) })),
    trail: s.trail.map((e) => ({ ...e, at: iso(e.at) })),
    trail_total: s.trail_total,
    exception: s.exception ? { reason: s.exception.reason, at: iso(s.exception.at) } : null,
    attempts: s.attempts,
    pod: s.pod,
    // As the alert list and the live board show them: times in ISO 8601, not epoch milliseconds.
    alerts: alertList.map(alertView),
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
      not_cancellable: "a cancellation of a shipment already in the courier's hands",
      unknown_piece: "`pieces` names a piece the shipment does not have",
    },
  }, async (c, { params, body }) => {
    const p = businessPrincipalOf(c);
    const s = await ask(c, shipmentActor, p.business.id, params.waybill, {
      kind: "record",
      scan: {
        event: body.event,
        facility_id: body.facility_id ?? null,
        holder: body.holder ?? null,
        pieces: body.pieces ?? null,
        note: body.note ?? null,
        reason: body.reason ?? null,
        received_by: body.received_by ?? null,
        by: principalName(p),
      },
    });
    // spec: courier 2.6 rule 3: a redelivery or a return is a later charge of its own, booked
    // here before answering. The scan is recorded with its charge due (scan_charges.ts books it
    // again until the ledger confirms), so a failed booking here is not the caller's to retry:
    // this scan has no idempotency key, and sending it again would record it twice.
    try {
      await bookScanCharge(c.get("env").runtime, asShipment(s), body.event, principalName(p));
    } catch (e) {
      console.error(`scan charge of ${params.waybill} left to its retry:`, e);
    }
    return ok(c, await detailView(c, asShipment(s)), 201);
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
    const env = c.get("env");
    const tenant = businessPrincipalOf(c).business.id;
    const now = env.clock.now();
    let filters: BoardFilters = query;
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
    const tenant = businessPrincipalOf(c).business.id;
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
    const p = businessPrincipalOf(c);
    const state = await ask(c, operationsViewsActor, p.business.id, p.business.id, {
      kind: "save",
      view: { name: body.name, filters: definedFilters(body.filters), by: principalName(p) },
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
    const tenant = businessPrincipalOf(c).business.id;
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
    const env = c.get("env");
    const tenant = businessPrincipalOf(c).business.id;
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
