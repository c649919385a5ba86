/**
 * The operations board as answered (courier 4.4): its rows, one shipment as operations read it,
 * saved views and the report. Documentation: tests/http/answers_operations_test.ts holds answers
 * to these.
 */
import type { AlertSummary } from "../../../actors/courier/alert.ts";
import { ALERT_KINDS } from "../../../actors/courier/alert.ts";
import type { SavedView } from "../../../actors/courier/operations_views.ts";
import type { Shipment } from "../../../actors/courier/shipment/mod.ts";
import { operationsRow } from "../../../src/courier/queries/operations_row.ts";
import {
  HEADLINES,
  HEALTHS,
  MILESTONES,
  OWNER_ROLES,
  SCAN_EVENTS,
  TRAIL_EVENTS,
} from "../../../src/courier/rules/lifecycle.ts";
import { iso } from "../../../src/domain/iso.ts";
import { z } from "../../../src/http/route.ts";
import { CalendarDay, UtcInstant } from "../../../src/http/schemas.ts";
import { AlertAnswer, alertView } from "./alerts.ts";

const Count = z.number().int().min(0);

/** spec: courier 4.4: one row of the board (operationsRow). */
export const rowFields = {
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

export const AGEING_BUCKETS = ["0-2", "3-5", "6-9", "10-14", "15+"] as const;
/** The most whole days each bucket but the last holds. */
export const AGEING_BUCKET_DAYS_MAX = [2, 5, 9, 14] as const;

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

/**
 * spec: courier 4.4: one shipment as operations read it (shipmentOperationsView): the row's
 * fields, obligations, each piece's custody, the trail and the alerts. Its frozen terms are the
 * route's to add (they are the booking's answers).
 */
export const shipmentOperationsFields = {
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
      event: z.enum(TRAIL_EVENTS),
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
};

/** A saved board filter as answered: its time in ISO 8601. */
export function savedViewView(v: SavedView) {
  return { name: v.name, filters: v.filters, by: v.by, saved_at: iso(v.saved_at) };
}

/**
 * One shipment as operations read it: the row, obligations, custody, trail and its alerts
 * (newest first), as the alert list and the live board show them.
 */
export function shipmentOperationsView(s: Shipment, now: number, alerts: readonly AlertSummary[]) {
  const { tracking_token: _t, tracking_token_hash: _h, ...snapshot } = s;
  return {
    ...operationsRow(snapshot, now, alerts.filter((a) => a.status !== "resolved").length),
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
    // Times in ISO 8601, not epoch milliseconds.
    alerts: alerts.map(alertView),
  };
}
