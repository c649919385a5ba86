/**
 * Courier 4.4 (alert rows), 2.9, 3.3: the courier's alerts, listed from the query side and acted
 * on through each alert's actor. Reads need shipments:view-own (the board's scope); assign,
 * acknowledge and resolve need runs:operate, which courier 5 gives for "alerts" (every courier
 * key, coordinator and admin holds it). Another courier's alert does not exist for the caller.
 *
 * Resolve takes JSON `{resolution, evidence}` or multipart/form-data with `resolution` and an
 * `evidence_file` upload; the file is stored content-addressed (src/courier/flows/evidence.ts) and
 * the alert's evidence becomes `file:sha256:<hex>`, its name, size and type in `evidence_file`.
 */
import type { Context } from "hono";
import {
  ALERT_EVIDENCE_CHARS_MAX,
  ALERT_KINDS,
  ALERT_NAME_CHARS_MAX,
  ALERT_OWNERS,
  ALERT_RESOLUTION_CHARS_MAX,
  ALERT_STATUSES,
} from "../../actors/courier/alert.ts";
import { alertEvidence, askAlert, resolveAlert } from "../../src/courier/flows/alerts.ts";
import { EVIDENCE_FILE_BYTES_MAX, type EvidenceUpload } from "../../src/courier/flows/evidence.ts";
import { business } from "../../src/platform/auth/auth.ts";
import { businessCall } from "../../src/platform/auth/caller.ts";
import { type Api, ok } from "../../src/http/app.ts";
import type { AppEnv } from "../../src/http/context.ts";
import { define, z } from "../../src/http/route.ts";
import { afterCursor, nextCursor } from "../../src/http/cursor.ts";
import { alertPage } from "../../src/courier/queries/alerts.ts";
import { MULTIPART_OVERHEAD_BYTES_MAX } from "../../src/http/upload.ts";
import { wholeNumber } from "../../src/http/schemas.ts";
import { BODY_TOO_LARGE } from "../../src/http/refusals.ts";
import { AlertAnswer, AlertDetailAnswer, alertDetailView, alertView } from "./answers/alerts.ts";
import { evidenceResponse } from "./answers/evidence.ts";

const tag = "Alerts";
const security = "business" as const;

/** Alerts per page of the list, unless `limit` says fewer. */
const ALERTS_PAGE_DEFAULT = 100;
/** The most alerts one page answers (bounded pages, STYLE "What the anchors avoid"). */
const ALERTS_PAGE_MAX = 500;

// Not the courier platform's alone: a Business API business's operations see and work the
// alerts raised for it too (business 7: a test order refused on live "alerts operations").
const read = [business({ scope: "shipments:view-own" })];
const act = [business({ scope: "runs:operate" })];

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
  resolution: z.string().max(ALERT_RESOLUTION_CHARS_MAX).default("").openapi({
    example: "Recipient reached by phone; delivery rebooked for tomorrow",
  }),
  evidence: z.string().max(ALERT_EVIDENCE_CHARS_MAX).default("").openapi({
    example: "Call log 2026-11-23 09:30, agent Thabo",
  }),
}).openapi("ResolveAlert");

/** The caller's alert after `command`; another courier's does not exist for the caller. */
function alertOf(c: Context<AppEnv>, id: string, command: Parameters<typeof askAlert>[3]) {
  const { env, tenant } = businessCall(c);
  return askAlert(env.runtime, tenant, id, command);
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
    const { env, tenant } = businessCall(c);
    const page = await alertPage(env.db, tenant, query, {
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
  }, async (c, { params }) => ok(c, alertDetailView(await alertOf(c, params.id, { kind: "get" }))));

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
    const { by } = businessCall(c);
    return ok(c, alertDetailView(await alertOf(c, params.id, { kind: "assign", to: body.to, by })));
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
    const { by } = businessCall(c);
    return ok(c, alertDetailView(await alertOf(c, params.id, { kind: "acknowledge", by })));
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
    body: ResolveBody,
    // The evidence file comes in a multipart form, its texts beside it, checked as the JSON's.
    form: {
      files: ["evidence_file"],
      maxBytes: EVIDENCE_FILE_BYTES_MAX + MULTIPART_OVERHEAD_BYTES_MAX,
    },
    response: AlertDetailAnswer,
    refusals: {
      ...RESOLVED,
      validation_failed: "resolving needs a resolution and evidence (a text or a file); a body " +
        "field is invalid; an evidence text `file:sha256:<hex>` names no file of the courier's",
      ...BODY_TOO_LARGE,
      evidence_file_too_large: "the evidence file is larger than an evidence file may be",
    },
  }, async (c, { params, body, files }) => {
    const { env, tenant, by } = businessCall(c);
    const file = await evidenceUpload(files.evidence_file);
    const alert = await resolveAlert(env.runtime, tenant, params.id, { ...body, file, by });
    return ok(c, alertDetailView(alert));
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
    produces: "*/*",
    refusals: { not_found: "the alert was resolved without an evidence file" },
  }, async (c, { params }) => {
    const { env, tenant } = businessCall(c);
    const found = await alertEvidence(env.runtime, tenant, params.id);
    return evidenceResponse(found.file, found.bytes);
  });
}

/** The evidence file a form uploaded, read whole (an empty file is no evidence: not kept). */
async function evidenceUpload(file: File | undefined): Promise<EvidenceUpload | null> {
  if (file === undefined) return null;
  const bytes = new Uint8Array(await file.arrayBuffer());
  return { name: file.name, content_type: file.type, bytes };
}
