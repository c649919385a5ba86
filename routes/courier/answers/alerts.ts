/**
 * Alerts as answered (courier 2.9, 3.3, 4.4): the list's rows, one alert with its history, and
 * the live board's alert messages (routes/courier/board.ts) alike.
 */
import {
  type Alert,
  ALERT_HISTORY_MAX,
  ALERT_KINDS,
  ALERT_STATUSES,
  type AlertAction,
  type AlertSummary,
  summaryOf,
} from "../../../actors/courier/alert.ts";
import { iso } from "../../../src/domain/iso.ts";
import { z } from "../../../src/http/route.ts";
import { orNull, UtcInstant } from "../../../src/http/schemas.ts";

function actionView(a: AlertAction) {
  return { action: a.action, by: a.by, at: iso(a.at), ...(a.to === null ? {} : { to: a.to }) };
}

/** An alert as answered: times in ISO 8601. */
export function alertView(s: AlertSummary) {
  return {
    id: s.id,
    kind: s.kind,
    status: s.status,
    owner: s.owner,
    assigned_to: s.assigned_to,
    subject: s.subject,
    waybill: s.waybill,
    message: s.message,
    detail: s.detail,
    raised_at: iso(s.raised_at),
    raised_by: s.raised_by,
    acknowledged_at: iso(s.acknowledged_at),
    acknowledged_by: s.acknowledged_by,
    resolved_at: iso(s.resolved_at),
    resolved_by: s.resolved_by,
    resolution: s.resolution,
    evidence: s.evidence,
    evidence_file: s.evidence_file,
    actions_total: s.actions_total,
    last_action: s.last_action === null ? null : actionView(s.last_action),
  };
}

/** One alert with its latest actions, oldest first. */
export function alertDetailView(a: Alert) {
  return { ...alertView(summaryOf(a)), history: a.history.map(actionView) };
}

// Documentation: tests/http/answers_operations_test.ts holds answers to these.

const AlertActionAnswer = z.object({
  action: z.enum(["raised", "assigned", "acknowledged", "resolved"]),
  by: z.string().openapi({ description: "Who acted: a person, `api_key`, or `system`" }),
  at: UtcInstant,
  to: z.string().optional().openapi({ description: "`assigned` only: the assignee" }),
}).openapi("AlertAction");

/** spec: courier 2.9, 3.3, 4.4: an alert as listed (alertView). */
const alertFields = {
  id: z.string(),
  kind: z.enum(ALERT_KINDS),
  status: z.enum(ALERT_STATUSES),
  owner: z.string().openapi({
    description: "The role that must act: courier, customs, recipient, billing, operations",
  }),
  assigned_to: z.string().nullable(),
  subject: z.object({
    type: z.string().openapi({
      description: "What the alert is about: shipment, billing_event, outbound_event, leg, " +
        "business",
    }),
    id: z.string(),
  }).openapi("AlertSubject"),
  waybill: z.string().nullable(),
  message: z.string(),
  detail: z.record(z.string(), z.unknown()).openapi({
    description: "Small facts about the condition (a deadline, a milestone, days over)",
  }),
  raised_at: UtcInstant,
  raised_by: z.string(),
  acknowledged_at: UtcInstant.nullable(),
  acknowledged_by: z.string().nullable(),
  resolved_at: UtcInstant.nullable(),
  resolved_by: z.string().nullable(),
  resolution: z.string().nullable(),
  evidence: z.string().nullable().openapi({
    description: "The evidence text, or `file:sha256:<hex>` when a file was uploaded (or named " +
      "by that reference: a file the courier holds, then in `evidence_file`)",
  }),
  evidence_file: orNull(
    z.object({
      sha256: z.string(),
      name: z.string(),
      size: z.number().int().openapi({ description: "Bytes" }),
      content_type: z.string(),
    }).openapi("AlertEvidenceFile"),
  ).openapi({ description: "The uploaded evidence file; GET .../evidence answers it" }),
  actions_total: z.number().int().openapi({ description: "Actions ever taken, raise included" }),
  last_action: orNull(AlertActionAnswer),
};

/** An alert as the list shows it (alertView). */
export const AlertAnswer = z.object(alertFields).openapi("Alert");

/** One alert with its latest actions, oldest first (alertDetailView). */
export const AlertDetailAnswer = z.object({
  ...alertFields,
  history: z.array(AlertActionAnswer).openapi({
    description: `The latest actions, oldest first (at most ${ALERT_HISTORY_MAX})`,
  }),
}).openapi("AlertDetail");
