/**
 * Raising alerts (courier 2.9, 6.3) from anywhere in the service: a condition has a stable key,
 * its alert a deterministic id, so raising the same condition again answers the alert already
 * raised and changes nothing ("each condition is raised once").
 *
 * Alert actors are keyed by id alone, so a condition key must be unique across tenants: build it
 * from identifiers that are (a waybill, an event id, a business id), plus whatever makes a
 * recurring condition a new one (`customs_wait_exceeded` once per working day over: add the day).
 */
import {
  alertActor,
  type AlertKind,
  type AlertSubject,
  type AlertSummary,
  summaryOf,
  SYSTEM_PRINCIPAL,
} from "../../../actors/courier/alert.ts";
import { derivedId } from "../../domain/secrets.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";

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
