/**
 * Courier 4.4 (alert rows), 2.9, 3.3: the courier's alerts, listed from the query side and acted
 * on through each alert's actor. Reads need shipments:view-own (the board's scope); assign,
 * acknowledge and resolve need runs:operate, which courier 5 gives for "alerts" (every courier
 * key, coordinator and admin holds it). Another courier's alert does not exist for the caller.
 *
 * Resolve takes JSON `{resolution, evidence}` or multipart/form-data with `resolution` and an
 * `evidence_file` upload; the file is stored content-addressed (src/courier/evidence.ts) and
 * the alert's evidence becomes `file:sha256:<hex>`, its name, size and type in `evidence_file`.
 */
import type { Context } from "hono";
import {
  type Alert,
  ALERT_EVIDENCE_CHARS_MAX,
  ALERT_HISTORY_MAX,
  ALERT_KINDS,
  ALERT_NAME_CHARS_MAX,
  ALERT_OWNERS,
  ALERT_RESOLUTION_CHARS_MAX,
  ALERT_STATUSES,
  type AlertAction,
  alertActor,
  type AlertCommand,
  type AlertSummary,
  type EvidenceFileRef,
  resolveRefusal,
  summaryOf,
} from "../../actors/courier/alert.ts";
import {
  EVIDENCE_FILE_BYTES_MAX,
  evidenceResponse,
  readEvidence,
  storeEvidence,
} from "../../src/courier/flows/evidence.ts";
import { business } from "../../src/platform/auth/auth.ts";
import { businessPrincipalOf, principalName } from "../../src/platform/auth/principal.ts";
import { courierPlatform } from "../../src/courier/auth.ts";
import { type Api, ok } from "../../src/http/app.ts";
import type { AppEnv } from "../../src/http/context.ts";
import { ApiError, fromRejection, validationFailed } from "../../src/http/errors.ts";
import { define, parse, readJson, z } from "../../src/http/route.ts";
import { afterCursor, nextCursor } from "../../src/http/cursor.ts";
import { alertPage } from "../../src/courier/queries/alerts.ts";
import { boundedForm, isMultipart, MULTIPART_OVERHEAD_BYTES_MAX } from "../../src/http/upload.ts";
import { ask } from "../../src/http/ask.ts";
import { iso } from "../../src/domain/iso.ts";
import { orNull, UtcInstant, wholeNumber } from "../../src/http/schemas.ts";
import { BODY_TOO_LARGE } from "../../src/http/refusals.ts";

const tag = "Alerts";
const security = "business" as const;

/** Alerts per page of the list, unless `limit` says fewer. */
const ALERTS_PAGE_DEFAULT = 100;
/** The most alerts one page answers (bounded pages, STYLE "What the anchors avoid"). */
const ALERTS_PAGE_MAX = 500;

const read = [business({ scope: "shipments:view-own" }), courierPlatform];
const act = [business({ scope: "runs:operate" }), courierPlatform];

const AlertParam = z.object({ id: z.string().min(1).max(64) });

const RESOLVED = { alert_already_resolved: "the alert is resolved: it takes no more actions" };

const ListQuery = z.object({
  status: z.enum(ALERT_STATUSES).optional(),
  kind: z.enum(ALERT_KINDS).optional(),
  // spec: courier 2.9: an owner is one of the roles that act; a misspelt one is bad input, not
  // an empty list that reads as "nothing for billing to do".
  owner: z.enum(ALERT_OWNERS).optional(),
  limit: wholeNumber(1, ALERTS_PAGE_MAX).default(ALERTS_PAGE_DEFAULT),
  cursor: z.string().max(200).optional(),
});

const AssignBody = z.object({ to: z.string().trim().min(1).max(ALERT_NAME_CHARS_MAX) })
  .openapi("AssignAlert");

/** Missing texts are the actor's refusal to name (resolution_required, evidence_required). */
const ResolveBody = z.object({
  resolution: z.string().max(ALERT_RESOLUTION_CHARS_MAX).default(""),
  evidence: z.string().max(ALERT_EVIDENCE_CHARS_MAX).default(""),
}).openapi("ResolveAlert");

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

function fullView(a: Alert) {
  return { ...alertView(summaryOf(a)), history: a.history.map(actionView) };
}

// ---- Answers (documentation: tests/http/answers_operations_test.ts holds answers to them).

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
    description: "The evidence text, or `file:sha256:<hex>` when a file was uploaded",
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

/** One alert with its latest actions, oldest first (fullView). */
export const AlertDetailAnswer = z.object({
  ...alertFields,
  history: z.array(AlertActionAnswer).openapi({
    description: `The latest actions, oldest first (at most ${ALERT_HISTORY_MAX})`,
  }),
}).openapi("AlertDetail");

function asAlert(reply: Alert | undefined): Alert {
  if (!reply) throw new ApiError("not_found", "alert not found");
  return reply;
}

async function askAlert(c: Context<AppEnv>, id: string, command: AlertCommand): Promise<Alert> {
  const courier = businessPrincipalOf(c).business.id;
  return asAlert(await ask(c, alertActor, courier, id, command));
}

export function alertRoutes(api: Api): void {
  define(api, {
    method: "get",
    path: "/business/courier/alerts",
    summary:
      "The courier's alerts, newest first; filter by status, kind, owner; `meta.next_cursor`",
    tag,
    security,
    middleware: read,
    query: ListQuery,
    response: z.array(AlertAnswer),
    paged: "cursor",
  }, async (c, { query }) => {
    const courier = businessPrincipalOf(c).business.id;
    const page = await alertPage(c.get("env").db, courier, query, {
      limit: query.limit,
      after: afterCursor(query.cursor),
    });
    return ok(c, page.rows.map(alertView), 200, {
      limit: query.limit,
      next_cursor: nextCursor(page.next),
    });
  });

  define(api, {
    method: "get",
    path: "/business/courier/alerts/{id}",
    summary: "One alert with its history of actions",
    tag,
    security,
    middleware: read,
    params: AlertParam,
    response: AlertDetailAnswer,
  }, async (c, { params }) => ok(c, fullView(await askAlert(c, params.id, { kind: "get" }))));

  define(api, {
    method: "post",
    path: "/business/courier/alerts/{id}/assign",
    summary: "Assign the alert to a person",
    tag,
    security,
    middleware: act,
    params: AlertParam,
    body: AssignBody,
    response: AlertDetailAnswer,
    refusals: RESOLVED,
  }, async (c, { params, body }) => {
    const by = principalName(businessPrincipalOf(c));
    return ok(c, fullView(await askAlert(c, params.id, { kind: "assign", to: body.to, by })));
  });

  define(api, {
    method: "post",
    path: "/business/courier/alerts/{id}/acknowledge",
    summary: "Acknowledge the alert; acknowledging again changes nothing",
    tag,
    security,
    middleware: act,
    params: AlertParam,
    response: AlertDetailAnswer,
    refusals: RESOLVED,
  }, async (c, { params }) => {
    const by = principalName(businessPrincipalOf(c));
    return ok(c, fullView(await askAlert(c, params.id, { kind: "acknowledge", by })));
  });

  define(api, {
    method: "post",
    path: "/business/courier/alerts/{id}/resolve",
    summary: "Resolve with JSON {resolution, evidence}, or multipart/form-data with resolution " +
      "and an evidence_file upload; both are required",
    tag,
    security,
    middleware: act,
    params: AlertParam,
    response: AlertDetailAnswer,
    refusals: {
      ...RESOLVED,
      validation_failed: "resolving needs a resolution and evidence (a text or a file); a body " +
        "field is invalid",
      ...BODY_TOO_LARGE,
      evidence_file_too_large: "the evidence file is larger than an evidence file may be",
    },
  }, async (c, { params }) => {
    const by = principalName(businessPrincipalOf(c));
    const command = isMultipart(c) ? await resolveWithFile(c, params.id, by) : {
      kind: "resolve" as const,
      ...parse(ResolveBody, await readJson(c), "body") as z.infer<typeof ResolveBody>,
      by,
    };
    return ok(c, fullView(await askAlert(c, params.id, command)));
  });

  define(api, {
    method: "get",
    path: "/business/courier/alerts/{id}/evidence",
    summary: "The evidence file an alert was resolved with",
    description: "The file as it was uploaded, with the content type it was stored with.",
    tag,
    security,
    middleware: read,
    params: AlertParam,
    produces: "application/octet-stream",
    refusals: { not_found: "the alert was resolved without an evidence file" },
  }, async (c, { params }) => {
    const alert = await askAlert(c, params.id, { kind: "get" });
    const ref = alert.evidence_file;
    if (ref === null) throw new ApiError("not_found", `alert has no evidence file: ${alert.id}`);
    const found = await readEvidence(
      c.get("env").runtime,
      businessPrincipalOf(c).business.id,
      ref.sha256,
    );
    if (found === null) throw new ApiError("not_found", `evidence file not found: ${ref.sha256}`);
    return evidenceResponse(ref, found.bytes);
  });
}

/**
 * The multipart form of resolve: checks the alert can be resolved before the file is stored (so a
 * refusal, or another courier's alert, leaves nothing behind), then stores it content-addressed.
 */
async function resolveWithFile(
  c: Context<AppEnv>,
  id: string,
  by: string,
): Promise<Extract<AlertCommand, { kind: "resolve" }>> {
  const max = EVIDENCE_FILE_BYTES_MAX + MULTIPART_OVERHEAD_BYTES_MAX;
  const form = await boundedForm(
    c,
    max,
    `upload over ${max} bytes; evidence files up to ${EVIDENCE_FILE_BYTES_MAX}`,
  );
  const resolution = textField(form, "resolution", ALERT_RESOLUTION_CHARS_MAX);
  const evidence = textField(form, "evidence", ALERT_EVIDENCE_CHARS_MAX);
  const file = form.get("evidence_file");
  if (typeof file === "string") {
    throw validationFailed([{ path: "evidence_file", message: "must be a file upload" }]);
  }
  if (file === null || file.size === 0) {
    // No file: the text form, as with JSON (an empty file is no evidence).
    return { kind: "resolve", resolution, evidence, by };
  }
  const current = await askAlert(c, id, { kind: "get" });
  const refusal = resolveRefusal(current, resolution, "file");
  if (refusal !== null) throw fromRejection(refusal);
  const bytes = new Uint8Array(await file.arrayBuffer());
  const courier = businessPrincipalOf(c).business.id;
  const stored = await storeEvidence(c.get("env").runtime, courier, {
    name: file.name,
    content_type: file.type,
    bytes,
  }, by);
  if (!stored.ok) throw fromRejection(stored);
  const ref: EvidenceFileRef = stored.value;
  return {
    kind: "resolve",
    resolution,
    evidence: `file:sha256:${ref.sha256}`,
    evidence_file: ref,
    by,
  };
}

function textField(form: FormData, name: string, max: number): string {
  const value = form.get(name) ?? "";
  if (typeof value !== "string" || value.length > max) {
    throw validationFailed([{ path: name, message: `a text of at most ${max} characters` }]);
  }
  return value;
}
