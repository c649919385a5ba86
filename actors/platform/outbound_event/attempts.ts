/**
 * An outbound event's delivery schedule (courier 3.1): made with its first attempt due at once;
 * each attempt claimed by one sender, recorded, and followed by the next retry or the end; an
 * attempt that finds no endpoint waits an hour without spending the schedule; a requeue starts a
 * new round. The `attempt` timer says when an attempt is due and holds a lease on one under way.
 */
import { type Ctx, reject, type TimerOp } from "../../../src/runtime/actor.ts";
import {
  ATTEMPT_ERROR_CHARS_MAX,
  ATTEMPT_LEASE_MS,
  clip,
  nextAttemptAt,
  NO_ENDPOINT_RETRY_MS,
  OUTBOUND_BODY_BYTES_MAX,
  REQUEUE_REASON_CHARS_MAX,
} from "../../../src/platform/rules/delivery_schedule.ts";
import { ok } from "./accepted.ts";
import { evolve } from "./evolve.ts";
import {
  ATTEMPT_TIMER,
  type AttemptOutcome,
  type AttemptRecord,
  type FirstAttempt,
  type NewOutboundEvent,
  type OutboundEvent,
  type OutboundEventEvent,
  type OutboundEventState,
} from "./types.ts";

export function create(
  state: OutboundEventState,
  event: NewOutboundEvent,
  endpointKnownMissing: boolean,
  ctx: Ctx,
) {
  const invalid = refusalOf(state, event);
  if (invalid !== undefined) return invalid;
  const created: OutboundEventEvent = { kind: "created", event, at: ctx.now };
  if (endpointKnownMissing) return endpointMissing(ctx, [created]);
  // The first attempt is due at once: said in the creating commit, with the timer one lease
  // later (as when it fires), instead of a timer due now whose firing is a commit of its own.
  return ok([created, { kind: "attempt_due", at: ctx.now }], [
    { op: "set", name: ATTEMPT_TIMER, at: ctx.now + ATTEMPT_LEASE_MS },
  ]);
}

/**
 * Made with its first attempt already made (by an outbox's handler, issue 36 item 2): the attempt
 * recorded as `record_attempt` records one, in the creating commit, so the retries (1, 5, 30, 120,
 * 720 minutes, courier 3.1) count from it and no attempt is due at once.
 */
export function createAttempted(
  state: OutboundEventState,
  event: NewOutboundEvent,
  first: FirstAttempt,
  ctx: Ctx,
) {
  const invalid = refusalOf(state, event);
  if (invalid !== undefined) return invalid;
  const created: OutboundEventEvent = { kind: "created", event, at: ctx.now };
  const recorded = recordAttempt(evolve(null, created), first.attempt_id, first.outcome, ctx);
  if (!recorded.ok) return recorded;
  return ok([created, ...recorded.events], recorded.timers ? [...recorded.timers] : undefined);
}

/**
 * Why `event` is not made: ok([]) when it is made already with the same body (the same event
 * again is a no-op), a refusal when another body holds its id or it is no valid event; undefined
 * when it is made now.
 */
function refusalOf(state: OutboundEventState, event: NewOutboundEvent) {
  if (state !== null) {
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
  if (event.event_id === "" || event.event_type === "") {
    return reject("invalid_event", "event id and event type are required");
  }
  if ((event.target === undefined) === (event.recipient === undefined)) {
    return reject("invalid_event", "an event has either a target or a recipient");
  }
  return undefined;
}

/**
 * spec: courier 3.1: nothing was sent, so the schedule is not spent; try again in an hour.
 * `before`: events of the same decision that come first (the event's creation).
 */
export function endpointMissing(ctx: Ctx, before: OutboundEventEvent[] = []) {
  const retryAt = ctx.now + NO_ENDPOINT_RETRY_MS;
  return ok([...before, { kind: "endpoint_missing", at: ctx.now, retry_at: retryAt }], [
    { op: "set", name: ATTEMPT_TIMER, at: retryAt },
  ]);
}

export function recordAttempt(
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
  if (outcome.result === "no_endpoint") return endpointMissing(ctx);
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
  const next = nextAttemptAt(
    state.round_attempts + 1,
    state.round_started_at ?? ctx.now,
    ctx.now,
  );
  if (next === null) return ok([recorded, { kind: "event_failed", at: ctx.now }], [cancel]);
  return ok([recorded, { kind: "retry_scheduled", at: next }], [
    { op: "set", name: ATTEMPT_TIMER, at: next },
  ]);
}

export function requeue(state: OutboundEventState, reason: string, by: string, ctx: Ctx) {
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

export function claim(
  state: OutboundEventState,
  attemptId: string,
  ctx: Ctx,
  firstOnly = false,
) {
  if (state === null) return reject("not_found", "outbound event not found");
  if (state.status !== "pending") {
    return reject("not_pending", `event is not pending: ${state.status}`);
  }
  if (firstOnly && state.round_attempts > 0) {
    return reject("already_attempted", "another sender made the first attempt");
  }
  // An attempt heard late (its `attempt_due` crossed the bus while another sender made and
  // recorded it) finds the next one scheduled later, and makes none now.
  if (state.next_attempt_at !== null && state.next_attempt_at > ctx.now) {
    return reject("not_due", `the next attempt is due at ${state.next_attempt_at}`);
  }
  const held = state.claim;
  if (held && held.until > ctx.now && held.attempt_id !== attemptId) {
    return reject("claimed", `another attempt holds the event until ${held.until}`);
  }
  const until = ctx.now + ATTEMPT_LEASE_MS;
  // The lease timer: an attempt whose process dies is due again when the claim runs out.
  return ok([{ kind: "attempt_claimed", attempt_id: attemptId, until }], [
    { op: "set", name: ATTEMPT_TIMER, at: until },
  ]);
}

/**
 * The attempt due at `dueAt` found no endpoint: noted once per due attempt, however many
 * instances heard it.
 */
export function noteEndpointMissing(state: OutboundEvent, dueAt: number, ctx: Ctx) {
  // Settled, under way in another attempt, or already noted for this due attempt: nothing.
  const held = (state.claim?.until ?? -Infinity) > ctx.now;
  const noted = (state.endpoint_missing_at ?? -Infinity) >= dueAt;
  if (state.status !== "pending" || held || noted) return ok([]);
  return endpointMissing(ctx);
}

/** The recipient set an endpoint: an event waiting for one is due now (courier 3.1). */
export function endpointSet(state: OutboundEvent, ctx: Ctx) {
  const held = (state.claim?.until ?? -Infinity) > ctx.now;
  if (state.status !== "pending" || held || state.endpoint_missing_at == null) return ok([]);
  if ((state.next_attempt_at ?? Infinity) <= ctx.now) return ok([]); // already due
  return ok([{ kind: "retry_scheduled", at: ctx.now }], [
    { op: "set", name: ATTEMPT_TIMER, at: ctx.now },
  ]);
}

/**
 * The hourly retry of an event waiting as a delivery-log row (log.ts) found an endpoint set
 * since: due now. A row has no timer of its own, so even one due already is made due here; one
 * no longer waiting (attempted, settled or under way since) is left as it is.
 */
export function dueNow(state: OutboundEventState, ctx: Ctx) {
  if (state === null) return reject("not_found", "outbound event not found");
  const held = (state.claim?.until ?? -Infinity) > ctx.now;
  if (state.status !== "pending" || held || state.endpoint_missing_at == null) return ok([]);
  return ok([{ kind: "retry_scheduled", at: ctx.now }], [
    { op: "set", name: ATTEMPT_TIMER, at: ctx.now },
  ]);
}

/** The `attempt` timer fired: an attempt is due, and the timer is set one lease later. */
export function attemptDue(state: OutboundEventState, timer: string, ctx: Ctx) {
  // Stale or unknown timers of a settled event do nothing.
  if (state === null || state.status !== "pending" || timer !== ATTEMPT_TIMER) return ok([]);
  return ok([{ kind: "attempt_due", at: ctx.now }], [
    { op: "set", name: ATTEMPT_TIMER, at: ctx.now + ATTEMPT_LEASE_MS },
  ]);
}
