/**
 * One alert (courier 2.9, 3.3, 4.4, 6.3): a condition raised once and owned by whoever must act.
 * Tenant = the courier's business id, id = the alert id (deterministic per condition, see
 * src/courier/flows/alerts.ts). Actions: assign, acknowledge, resolve. Nothing dismisses an alert
 * silently: resolving needs both a resolution text and evidence, and there is no delete.
 *
 * Status values (3.3 leaves them open): `open` when raised, `acknowledged` once someone said they
 * are on it, `resolved` once closed with its resolution and evidence. A resolved alert takes no
 * further action; the condition, if it recurs, is raised under a new condition key.
 */
import {
  accept,
  type ActorDefinition,
  type Ctx,
  reject,
  type Rejection,
  type TimerFired,
  unreachable,
} from "../../src/runtime/actor.ts";

/** Courier 2.9: every kind of alert the service raises. */
export const ALERT_KINDS = [
  "milestone_at_risk",
  "milestone_overdue",
  "customs_wait_exceeded",
  "no_scan",
  "pieces_separated",
  "documents_missing",
  "leg_unassigned",
  "leg_trip_ended",
  "released_awaiting_collection",
  "notification_failed",
  "billing_export_failed",
  "billing_endpoint_missing",
  // Business API 7: a test order refused on live; the business's operations are alerted.
  "test_booking_refused",
] as const;
export type AlertKind = typeof ALERT_KINDS[number];

/**
 * The roles an alert is owned by (courier 2.9 "owned by whoever must act"): a milestone's owner
 * (3.2: courier, customs, recipient), or billing and operations for deliveries (3.1, 6.3).
 */
export const ALERT_OWNERS = ["courier", "customs", "recipient", "billing", "operations"] as const;

export const ALERT_STATUSES = ["open", "acknowledged", "resolved"] as const;
export type AlertStatus = typeof ALERT_STATUSES[number];

/** A message names the condition in a sentence or two; longer text is clipped. */
export const ALERT_MESSAGE_CHARS_MAX = 500;
/** Resolution and evidence texts: a paragraph each; the HTTP layer refuses longer ones. */
export const ALERT_RESOLUTION_CHARS_MAX = 2_000;
export const ALERT_EVIDENCE_CHARS_MAX = 2_000;
/** Owner roles, assignees, principal names, subject types and ids are short identifiers. */
export const ALERT_NAME_CHARS_MAX = 120;
/**
 * The detail object is small facts for the board (deadline, attempt count), not a document; a
 * larger one is cut at the raise (boundedDetail), JSON characters counted.
 */
export const ALERT_DETAIL_BYTES_MAX = 2_000;
/** Actions kept in state (assignments can go back and forth); `actions_total` counts them all. */
export const ALERT_HISTORY_MAX = 50;
/** Who raises an alert when no person did: the service's own checks (courier 6.3). */
export const SYSTEM_PRINCIPAL = "system";

export interface AlertSubject {
  /** What the alert is about: `shipment`, `billing_event`, `outbound_event`, `leg`, `business`. */
  readonly type: string;
  readonly id: string;
}

/** An uploaded evidence file, stored content-addressed (src/courier/flows/evidence.ts). */
export interface EvidenceFileRef {
  readonly sha256: string;
  readonly name: string;
  readonly size: number;
  readonly content_type: string;
}

export interface AlertAction {
  readonly action: "raised" | "assigned" | "acknowledged" | "resolved";
  readonly by: string;
  readonly at: number;
  /** The assignee of an `assigned` action; null otherwise. */
  readonly to: string | null;
}

export interface NewAlert {
  readonly id: string;
  readonly kind: AlertKind;
  /** The role that must act: `courier`, `customs`, `recipient`, `billing`, `operations`. */
  readonly owner: string;
  readonly subject: AlertSubject;
  readonly waybill: string | null;
  readonly message: string;
  readonly detail: Readonly<Record<string, unknown>>;
}

export interface Alert extends NewAlert {
  readonly status: AlertStatus;
  readonly assigned_to: string | null;
  readonly raised_at: number;
  readonly raised_by: string;
  readonly acknowledged_at: number | null;
  readonly acknowledged_by: string | null;
  readonly resolved_at: number | null;
  readonly resolved_by: string | null;
  readonly resolution: string | null;
  /** Evidence text, or `file:sha256:<hex>` when a file was uploaded. */
  readonly evidence: string | null;
  readonly evidence_file: EvidenceFileRef | null;
  /** The latest actions, oldest first, at most ALERT_HISTORY_MAX. */
  readonly history: readonly AlertAction[];
  readonly actions_total: number;
}

export type AlertState = Alert | null;

export type AlertCommand =
  | { readonly kind: "raise"; readonly alert: NewAlert; readonly by: string }
  | { readonly kind: "assign"; readonly to: string; readonly by: string }
  | { readonly kind: "acknowledge"; readonly by: string }
  | {
    readonly kind: "resolve";
    readonly resolution: string;
    readonly evidence: string;
    readonly evidence_file?: EvidenceFileRef;
    readonly by: string;
  }
  | { readonly kind: "get" };

export type AlertEvent =
  | { readonly kind: "raised"; readonly alert: NewAlert; readonly by: string; readonly at: number }
  | { readonly kind: "assigned"; readonly to: string; readonly by: string; readonly at: number }
  | { readonly kind: "acknowledged"; readonly by: string; readonly at: number }
  | {
    readonly kind: "resolved";
    readonly resolution: string;
    readonly evidence: string;
    readonly evidence_file: EvidenceFileRef | null;
    readonly by: string;
    readonly at: number;
  };

export type AlertReply = Alert | undefined;

type Result = ReturnType<typeof accept<AlertState, AlertEvent, AlertReply>>;

const whole = (s: AlertState): AlertReply => s ?? undefined;

function ok(events: AlertEvent[]): Result {
  return accept<AlertState, AlertEvent, AlertReply>(events, whole);
}

export function isAlertKind(value: string): value is AlertKind {
  return (ALERT_KINDS as readonly string[]).includes(value);
}

export function isAlertStatus(value: string): value is AlertStatus {
  return (ALERT_STATUSES as readonly string[]).includes(value);
}

/** Trims and cuts a text to `max` characters (a clipped text ends with an ellipsis). */
export function clipText(text: string, max: number): string {
  const t = text.trim();
  return t.length <= max ? t : `${t.slice(0, max - 1)}…`;
}

function decide(state: AlertState, command: AlertCommand | TimerFired, ctx: Ctx) {
  switch (command.kind) {
    case "raise":
      return raise(state, command.alert, command.by, ctx);
    case "assign":
      return assign(state, command.to, command.by, ctx);
    case "acknowledge":
      return acknowledge(state, command.by, ctx);
    case "resolve":
      return resolve(state, command, ctx);
    case "get":
      if (state === null) return reject("not_found", "alert not found");
      return ok([]);
    case "timer":
      return ok([]);
    default:
      return unreachable(command);
  }
}

/** Courier 2.9: "each condition is raised once": an existing alert answers as it stands. */
function raise(state: AlertState, alert: NewAlert, by: string, ctx: Ctx) {
  if (state !== null) return ok([]);
  if (!isAlertKind(alert.kind)) return reject("invalid_alert", `unknown alert kind: ${alert.kind}`);
  if (alert.id === "" || alert.owner.trim() === "" || alert.message.trim() === "") {
    return reject("invalid_alert", "an alert needs an id, an owner and a message");
  }
  if (alert.subject.type.trim() === "" || alert.subject.id.trim() === "") {
    return reject("invalid_alert", "an alert needs a subject type and id");
  }
  const name = (s: string) => clipText(s, ALERT_NAME_CHARS_MAX);
  const clean: NewAlert = {
    id: alert.id,
    kind: alert.kind,
    owner: name(alert.owner),
    subject: { type: name(alert.subject.type), id: name(alert.subject.id) },
    waybill: alert.waybill === null ? null : name(alert.waybill),
    message: clipText(alert.message, ALERT_MESSAGE_CHARS_MAX),
    detail: boundedDetail(alert.detail),
  };
  return ok([{ kind: "raised", alert: clean, by: name(by), at: ctx.now }]);
}

const jsonChars = (v: unknown): number => JSON.stringify(v)?.length ?? 0;

/**
 * spec: courier 2.9: each condition is raised: facts over ALERT_DETAIL_BYTES_MAX (a reason long
 * once escaped, as control characters are six times over) are cut, never a reason to raise none.
 * Before, the raise was refused and the raiser tried it again for ever: documents_missing lost.
 * A value too long is replaced by its size; `detail_cut` says something was.
 */
function boundedDetail(
  detail: Readonly<Record<string, unknown>>,
): Readonly<Record<string, unknown>> {
  if (jsonChars(detail) <= ALERT_DETAIL_BYTES_MAX) return detail;
  const entries = Object.entries(detail);
  const share = Math.floor(ALERT_DETAIL_BYTES_MAX / (entries.length + 1));
  const kept = Object.fromEntries(entries.map(([k, v]) => {
    const chars = jsonChars(v);
    return [k, chars <= share ? v : `(${chars} characters, cut)`];
  }));
  const cut = { ...kept, detail_cut: true };
  return jsonChars(cut) <= ALERT_DETAIL_BYTES_MAX ? cut : { detail_cut: true };
}

function alreadyResolved(state: Alert): Rejection {
  return reject(
    "alert_already_resolved",
    `alert is resolved: ${new Date(state.resolved_at ?? 0).toISOString()}`,
    { resolved_by: state.resolved_by },
  );
}

function assign(state: AlertState, to: string, by: string, ctx: Ctx) {
  if (state === null) return reject("not_found", "alert not found");
  if (state.status === "resolved") return alreadyResolved(state);
  const assignee = clipText(to, ALERT_NAME_CHARS_MAX);
  if (assignee === "") return reject("assignee_required", "an assignment needs `to`");
  if (assignee === state.assigned_to) return ok([]);
  return ok([{
    kind: "assigned",
    to: assignee,
    by: clipText(by, ALERT_NAME_CHARS_MAX),
    at: ctx.now,
  }]);
}

/** A repeated acknowledgement changes nothing; a resolved alert takes no more actions. */
function acknowledge(state: AlertState, by: string, ctx: Ctx) {
  if (state === null) return reject("not_found", "alert not found");
  if (state.status === "resolved") return alreadyResolved(state);
  if (state.status === "acknowledged") return ok([]);
  return ok([{ kind: "acknowledged", by: clipText(by, ALERT_NAME_CHARS_MAX), at: ctx.now }]);
}

/**
 * Courier 2.9, 7: why this alert cannot be resolved so, or null. Also used before an evidence
 * file is stored, so a refused resolution leaves nothing behind; `resolve` checks again.
 */
export function resolveRefusal(
  state: AlertState,
  resolution: string,
  evidence: string,
): Rejection | null {
  if (state === null) return reject("not_found", "alert not found");
  if (state.status === "resolved") return alreadyResolved(state);
  if (resolution.trim() === "") {
    return reject("resolution_required", "resolving an alert needs a resolution text");
  }
  if (evidence.trim() === "") {
    return reject("evidence_required", "resolving an alert needs evidence: a text or a file");
  }
  return null;
}

/** Courier 2.9, 7: resolving needs both a resolution text and evidence; never twice. */
function resolve(
  state: AlertState,
  command: Extract<AlertCommand, { kind: "resolve" }>,
  ctx: Ctx,
) {
  const refusal = resolveRefusal(state, command.resolution, command.evidence);
  if (refusal !== null) return refusal;
  const resolution = clipText(command.resolution, ALERT_RESOLUTION_CHARS_MAX);
  const evidence = clipText(command.evidence, ALERT_EVIDENCE_CHARS_MAX);
  return ok([{
    kind: "resolved",
    resolution,
    evidence,
    evidence_file: command.evidence_file ?? null,
    by: clipText(command.by, ALERT_NAME_CHARS_MAX),
    at: ctx.now,
  }]);
}

function withAction(state: Alert, action: AlertAction): Alert {
  return {
    ...state,
    history: [...state.history, action].slice(-ALERT_HISTORY_MAX),
    actions_total: state.actions_total + 1,
  };
}

function evolve(state: AlertState, event: AlertEvent): AlertState {
  if (event.kind === "raised") {
    return {
      ...event.alert,
      status: "open",
      assigned_to: null,
      raised_at: event.at,
      raised_by: event.by,
      acknowledged_at: null,
      acknowledged_by: null,
      resolved_at: null,
      resolved_by: null,
      resolution: null,
      evidence: null,
      evidence_file: null,
      history: [{ action: "raised", by: event.by, at: event.at, to: null }],
      actions_total: 1,
    };
  }
  if (state === null) throw new Error(`alert: ${event.kind} before raised`);
  switch (event.kind) {
    case "assigned":
      return withAction(
        { ...state, assigned_to: event.to },
        { action: "assigned", by: event.by, at: event.at, to: event.to },
      );
    case "acknowledged":
      return withAction(
        { ...state, status: "acknowledged", acknowledged_at: event.at, acknowledged_by: event.by },
        { action: "acknowledged", by: event.by, at: event.at, to: null },
      );
    case "resolved":
      return withAction(
        {
          ...state,
          status: "resolved",
          resolved_at: event.at,
          resolved_by: event.by,
          resolution: event.resolution,
          evidence: event.evidence,
          evidence_file: event.evidence_file,
        },
        { action: "resolved", by: event.by, at: event.at, to: null },
      );
    default:
      return unreachable(event);
  }
}

/** What the bus and the `snapshots` table carry: the alert without its action history. */
export type AlertSummary = Omit<Alert, "history"> & { readonly last_action: AlertAction | null };

export function summaryOf(a: Alert): AlertSummary {
  const { history, ...rest } = a;
  return { ...rest, last_action: history.at(-1) ?? null };
}

export const alertActor: ActorDefinition<AlertState, AlertCommand, AlertEvent, AlertReply> = {
  type: "alert",
  version: 1,
  initial: null,
  decide,
  evolve,
  project: (s) => s === null ? undefined : summaryOf(s),
};
