/**
 * One outbound event (courier 3.1 "Event delivery", 6.1, 6.2): a billing event to the courier's
 * system or a client webhook. Tenant = owner business id, id = event id. The raw body is fixed at
 * creation and sent byte for byte on every attempt; the signing secret is held sealed only.
 *
 * The `attempt` timer says when an attempt is due. The actor cannot do I/O: when the timer fires
 * it records `attempt_due` (which the runtime publishes on the bus, where `OutboundDelivery`
 * picks it up) and re-arms the timer one lease later, so an attempt lost with its process is
 * due again. `record_attempt` then moves the timer to the next retry, or clears it.
 */
import {
  accept,
  type ActorDefinition,
  type Ctx,
  reject,
  type TimerFired,
  type TimerOp,
  unreachable,
} from "../src/runtime/actor.ts";
import type { SealedSecret } from "../src/domain/secrets.ts";
import {
  ATTEMPT_ERROR_CHARS_MAX,
  ATTEMPT_HISTORY_MAX,
  ATTEMPT_LEASE_MS,
  clip,
  nextAttemptAt,
  OUTBOUND_BODY_BYTES_MAX,
  REQUEUE_REASON_CHARS_MAX,
  REQUEUES_MAX,
} from "../src/outbound/schedule.ts";

export type OutboundStream = "billing" | "client_webhook";
export type OutboundStatus = "pending" | "delivered" | "failed";

/** Who receives the event: the URL, the key id named in headers, the sealed signing secret. */
export interface OutboundTarget {
  readonly url: string;
  readonly key_id: string;
  readonly sealed_secret: SealedSecret;
}

export type AttemptOutcome =
  | { readonly result: "delivered"; readonly http_status: number }
  | {
    readonly result: "failed";
    readonly http_status: number | null;
    readonly error: string | null;
  };

export interface AttemptRecord {
  readonly attempt_id: string;
  readonly at: number;
  readonly outcome: AttemptOutcome;
}

export interface RequeueRecord {
  readonly reason: string;
  readonly by: string;
  readonly at: number;
}

export interface OutboundEvent {
  readonly event_id: string;
  readonly stream: OutboundStream;
  readonly event_type: string;
  readonly raw_body: string;
  readonly target: OutboundTarget;
  readonly status: OutboundStatus;
  readonly created_at: number;
  /** The latest attempts, oldest first, at most ATTEMPT_HISTORY_MAX. */
  readonly attempts: readonly AttemptRecord[];
  /** Attempts ever made, beyond what the bounded history shows. */
  readonly attempts_total: number;
  /** Attempts in the current round (since creation or the last requeue). */
  readonly round_attempts: number;
  /** When the first attempt of the current round was made; the schedule counts from it. */
  readonly round_started_at: number | null;
  readonly next_attempt_at: number | null;
  readonly requeues: readonly RequeueRecord[];
}

export type OutboundEventState = OutboundEvent | null;

export interface NewOutboundEvent {
  readonly event_id: string;
  readonly stream: OutboundStream;
  readonly event_type: string;
  readonly raw_body: string;
  readonly target: OutboundTarget;
}

export type OutboundEventCommand =
  | { readonly kind: "create"; readonly event: NewOutboundEvent }
  | {
    readonly kind: "record_attempt";
    readonly attempt_id: string;
    readonly outcome: AttemptOutcome;
  }
  | { readonly kind: "requeue"; readonly reason: string; readonly by: string }
  | { readonly kind: "get" };

export type OutboundEventEvent =
  | { readonly kind: "created"; readonly event: NewOutboundEvent; readonly at: number }
  | { readonly kind: "attempt_due"; readonly at: number }
  | { readonly kind: "attempt_recorded"; readonly attempt: AttemptRecord }
  | { readonly kind: "event_delivered"; readonly at: number }
  | { readonly kind: "event_failed"; readonly at: number }
  | { readonly kind: "retry_scheduled"; readonly at: number }
  | { readonly kind: "requeued"; readonly requeue: RequeueRecord };

export type OutboundEventReply = OutboundEvent | undefined;

/** Timer name; its firing means "an attempt is due". */
export const ATTEMPT_TIMER = "attempt";

type Result = ReturnType<typeof accept<OutboundEventState, OutboundEventEvent, OutboundEventReply>>;

const whole = (s: OutboundEventState): OutboundEventReply => s ?? undefined;

function ok(events: OutboundEventEvent[], timers?: TimerOp[]): Result {
  return accept<OutboundEventState, OutboundEventEvent, OutboundEventReply>(events, whole, timers);
}

function decide(
  state: OutboundEventState,
  command: OutboundEventCommand | TimerFired,
  ctx: Ctx,
) {
  switch (command.kind) {
    case "create":
      return create(state, command.event, ctx);
    case "record_attempt":
      return recordAttempt(state, command.attempt_id, command.outcome, ctx);
    case "requeue":
      return requeue(state, command.reason, command.by, ctx);
    case "get":
      if (state === null) return reject("not_found", "outbound event not found");
      return ok([]);
    case "timer":
      // Stale or unknown timers of a settled event do nothing.
      if (state === null || state.status !== "pending" || command.name !== ATTEMPT_TIMER) {
        return ok([]);
      }
      return ok([{ kind: "attempt_due", at: ctx.now }], [
        { op: "set", name: ATTEMPT_TIMER, at: ctx.now + ATTEMPT_LEASE_MS },
      ]);
    default:
      return unreachable(command);
  }
}

function create(state: OutboundEventState, event: NewOutboundEvent, ctx: Ctx) {
  if (state !== null) {
    // The same event again is a no-op; another body under the same id is refused.
    if (state.raw_body === event.raw_body && state.event_type === event.event_type) return ok([]);
    return reject("exists_with_different_body", `event exists: ${event.event_id}`);
  }
  const bytes = new TextEncoder().encode(event.raw_body).length;
  if (bytes > OUTBOUND_BODY_BYTES_MAX) {
    return reject(
      "body_too_large",
      `event body too large: ${bytes} bytes, max ${OUTBOUND_BODY_BYTES_MAX}`,
    );
  }
  if (event.event_id === "" || event.event_type === "" || event.target.url === "") {
    return reject("invalid_event", "event id, event type and target url are required");
  }
  return ok([{ kind: "created", event, at: ctx.now }], [
    { op: "set", name: ATTEMPT_TIMER, at: ctx.now },
  ]);
}

function recordAttempt(
  state: OutboundEventState,
  attemptId: string,
  outcome: AttemptOutcome,
  ctx: Ctx,
) {
  if (state === null) return reject("not_found", "outbound event not found");
  if (state.attempts.some((a) => a.attempt_id === attemptId)) return ok([]); // repeated report
  if (state.status !== "pending") {
    return reject("not_pending", `event is not pending: ${state.status}`);
  }
  const attempt: AttemptRecord = {
    attempt_id: attemptId,
    at: ctx.now,
    outcome: outcome.result === "delivered" ? outcome : {
      ...outcome,
      error: outcome.error === null ? null : clip(outcome.error, ATTEMPT_ERROR_CHARS_MAX),
    },
  };
  const recorded: OutboundEventEvent = { kind: "attempt_recorded", attempt };
  const cancel: TimerOp = { op: "cancel", name: ATTEMPT_TIMER };
  if (outcome.result === "delivered") {
    return ok([recorded, { kind: "event_delivered", at: ctx.now }], [cancel]);
  }
  const next = nextAttemptAt(state.round_attempts + 1, state.round_started_at ?? ctx.now);
  if (next === null) return ok([recorded, { kind: "event_failed", at: ctx.now }], [cancel]);
  return ok([recorded, { kind: "retry_scheduled", at: next }], [
    { op: "set", name: ATTEMPT_TIMER, at: next },
  ]);
}

function requeue(state: OutboundEventState, reason: string, by: string, ctx: Ctx) {
  if (state === null) return reject("not_found", "outbound event not found");
  if (reason.trim() === "") return reject("reason_required", "a requeue needs a reason");
  if (state.status === "delivered") {
    return reject("not_requeueable", `only a failed or pending event is requeued: delivered`);
  }
  const record = { reason: clip(reason.trim(), REQUEUE_REASON_CHARS_MAX), by, at: ctx.now };
  return ok([{ kind: "requeued", requeue: record }], [
    { op: "set", name: ATTEMPT_TIMER, at: ctx.now },
  ]);
}

function evolve(state: OutboundEventState, event: OutboundEventEvent): OutboundEventState {
  if (event.kind === "created") {
    return {
      ...event.event,
      status: "pending",
      created_at: event.at,
      attempts: [],
      attempts_total: 0,
      round_attempts: 0,
      round_started_at: null,
      next_attempt_at: event.at,
      requeues: [],
    };
  }
  if (state === null) throw new Error(`outbound event: ${event.kind} before created`);
  switch (event.kind) {
    case "attempt_due":
      return state;
    case "attempt_recorded":
      return {
        ...state,
        attempts: [...state.attempts, event.attempt].slice(-ATTEMPT_HISTORY_MAX),
        attempts_total: state.attempts_total + 1,
        round_attempts: state.round_attempts + 1,
        round_started_at: state.round_started_at ?? event.attempt.at,
      };
    case "event_delivered":
      return { ...state, status: "delivered", next_attempt_at: null };
    case "event_failed":
      return { ...state, status: "failed", next_attempt_at: null };
    case "retry_scheduled":
      return { ...state, next_attempt_at: event.at };
    case "requeued":
      return {
        ...state,
        status: "pending",
        round_attempts: 0,
        round_started_at: null,
        next_attempt_at: event.requeue.at,
        requeues: [...state.requeues, event.requeue].slice(-REQUEUES_MAX),
      };
    default:
      return unreachable(event);
  }
}

/** What the bus carries: no body, no secret. */
export interface OutboundEventSummary {
  readonly event_id: string;
  readonly stream: OutboundStream;
  readonly event_type: string;
  readonly status: OutboundStatus;
  readonly attempts_total: number;
  readonly next_attempt_at: number | null;
  readonly last_attempt: AttemptRecord | null;
}

export function summaryOf(s: OutboundEvent): OutboundEventSummary {
  return {
    event_id: s.event_id,
    stream: s.stream,
    event_type: s.event_type,
    status: s.status,
    attempts_total: s.attempts_total,
    next_attempt_at: s.next_attempt_at,
    last_attempt: s.attempts.at(-1) ?? null,
  };
}

export const outboundEventActor: ActorDefinition<
  OutboundEventState,
  OutboundEventCommand,
  OutboundEventEvent,
  OutboundEventReply
> = {
  type: "outbound_event",
  version: 1,
  initial: null,
  decide,
  evolve,
  project: (s) => s === null ? undefined : summaryOf(s),
};
