/**
 * Alerts (courier 2.9, 3.3, 4.4, 6.3). Raised from anywhere in the service: a condition has a
 * stable key, its alert a deterministic id, so raising the same condition again answers the alert
 * already raised and changes nothing ("each condition is raised once"). Acted on by operations:
 * assigned, acknowledged, resolved with a resolution and evidence (a text or an uploaded file).
 *
 * Alert actors are keyed by id alone, so a condition key must be unique across tenants: build it
 * from identifiers that are (a waybill, an event id, a business id), plus whatever makes a
 * recurring condition a new one (`customs_wait_exceeded` once per working day over: add the day).
 */
import {
  type Alert,
  alertActor,
  type AlertCommand,
  type AlertKind,
  type AlertSubject,
  type AlertSummary,
  type EvidenceFileRef,
  resolveRefusal,
  summaryOf,
  SYSTEM_PRINCIPAL,
} from "../../../actors/courier/alert.ts";
import { derivedId } from "../../domain/secrets.ts";
import { orRefuse, refuse, Refused } from "../../runtime/actor.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";
import {
  type EvidenceUpload,
  isFileReference,
  namedEvidence,
  readEvidence,
  storeEvidence,
} from "./evidence.ts";

export type { AlertKind, AlertSubject, AlertSummary };

export interface RaiseAlertInput {
  readonly kind: AlertKind;
  /** What makes this condition this one: `<waybill>:<milestone>`, `<event id>`. */
  readonly condition_key: string;
  /** The role that must act: `courier`, `customs`, `recipient`, `billing`, `operations`. */
  readonly owner: string;
  readonly subject: AlertSubject;
  readonly waybill?: string | null;
  /** Plain text naming the condition. */
  readonly message: string;
  /** Small facts for the board (ALERT_DETAIL_BYTES_MAX). */
  readonly detail?: Readonly<Record<string, unknown>>;
  /** Who raised it; the service's own checks by default. */
  readonly by?: string;
}

/** Thrown when an alert cannot be raised (bad input from the calling code, another tenant's id). */
export class AlertRaiseError extends Error {
  override readonly name = "AlertRaiseError";
  constructor(readonly code: string, message: string) {
    super(message);
  }
}

/** `alr_` + the first 24 hex digits of SHA-256 of `<kind>\n<condition key>`. */
export function alertIdOf(kind: string, conditionKey: string): string {
  return derivedId("alr", `${kind}\n${conditionKey}`);
}

/**
 * Raises the condition's alert in the courier's tenant, once; answers the alert as it stands
 * (already acknowledged or resolved, if it was raised before). Throws AlertRaiseError on refusal.
 */
export async function raiseAlert(
  runtime: ActorRuntime,
  tenant: string,
  input: RaiseAlertInput,
): Promise<AlertSummary> {
  const id = await alertIdOf(input.kind, input.condition_key);
  const r = await runtime.ask(alertActor, tenant, id, {
    kind: "raise",
    alert: {
      id,
      kind: input.kind,
      owner: input.owner,
      subject: input.subject,
      waybill: input.waybill ?? null,
      message: input.message,
      detail: input.detail ?? {},
    },
    by: input.by ?? SYSTEM_PRINCIPAL,
  });
  if (!r.ok) throw new AlertRaiseError(r.code, `alert ${id} not raised: ${r.message}`);
  if (!r.reply) throw new AlertRaiseError("internal_error", `alert ${id}: no state after raise`);
  return summaryOf(r.reply);
}

/** The tenant's alert after `command` (a `get` reads it); Refused `not_found` for none. */
export async function askAlert(
  runtime: ActorRuntime,
  tenant: string,
  id: string,
  command: AlertCommand,
): Promise<Alert> {
  const alert = orRefuse(await runtime.ask(alertActor, tenant, id, command));
  if (!alert) refuse("not_found", "alert not found");
  return alert;
}

export interface AlertResolution {
  readonly resolution: string;
  /** The evidence text; with a file, its reference replaces it. */
  readonly evidence: string;
  /** An uploaded evidence file (courier 4.4); null or absent: the text is the evidence. */
  readonly file?: EvidenceUpload | null;
  readonly by: string;
}

/**
 * Resolves the alert (courier 2.9: never silently dismissed: a resolution and evidence). With a
 * file, or a text naming one (`file:sha256:<hex>`), the alert is checked resolvable first, so a
 * refusal (or another courier's alert) leaves nothing behind and answers as it would without
 * the file; an uploaded file is stored content-addressed, a named one must be the courier's, and
 * the evidence becomes `file:sha256:<hex>`.
 */
export async function resolveAlert(
  runtime: ActorRuntime,
  tenant: string,
  id: string,
  input: AlertResolution,
): Promise<Alert> {
  const { resolution, by } = input;
  const named = !input.file && isFileReference(input.evidence);
  if (!input.file && !named) {
    return await askAlert(runtime, tenant, id, {
      kind: "resolve",
      resolution,
      evidence: input.evidence,
      by,
    });
  }
  const current = await askAlert(runtime, tenant, id, { kind: "get" });
  const refusal = resolveRefusal(current, resolution, "file");
  if (refusal !== null) throw new Refused(refusal);
  const file = input.file
    ? await storedEvidence(runtime, tenant, input.file, by)
    : (await namedEvidence(runtime, tenant, input.evidence, "evidence"))!;
  return await askAlert(runtime, tenant, id, {
    kind: "resolve",
    resolution,
    evidence: `file:sha256:${file.sha256}`,
    evidence_file: file,
    by,
  });
}

/** The upload stored content-addressed; its refusal (too large) thrown. */
async function storedEvidence(
  runtime: ActorRuntime,
  tenant: string,
  upload: EvidenceUpload,
  by: string,
): Promise<EvidenceFileRef> {
  const stored = await storeEvidence(runtime, tenant, upload, by);
  if (!stored.ok) throw new Refused(stored);
  return stored.value;
}

/** The evidence file an alert was resolved with; Refused `not_found` when it has none. */
export async function alertEvidence(
  runtime: ActorRuntime,
  tenant: string,
  id: string,
): Promise<{ readonly file: EvidenceFileRef; readonly bytes: Uint8Array }> {
  const alert = await askAlert(runtime, tenant, id, { kind: "get" });
  const file = alert.evidence_file;
  if (file === null) refuse("not_found", `alert has no evidence file: ${alert.id}`);
  const found = await readEvidence(runtime, tenant, file.sha256);
  if (found === null) refuse("not_found", `evidence file not found: ${file.sha256}`);
  return { file, bytes: found.bytes };
}
