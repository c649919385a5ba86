/**
 * One outbound event (courier 3.1 "Event delivery", 6.1, 6.2): a billing event to the courier's
 * system or a client webhook. Tenant = owner business id, id = event id. The raw body is fixed at
 * creation and sent byte for byte on every attempt; the signing secret is held sealed only.
 *
 * The `attempt` timer says when an attempt is due. The actor cannot do I/O: when the timer fires
 * (and at creation, for the first attempt) it records `attempt_due` (which the runtime publishes
 * on the bus, where `OutboundDelivery` picks it up) and re-arms the timer one lease later, so an
 * attempt lost with its process is due again. `record_attempt` then moves the timer to the next
 * retry, or clears it.
 */
import {
  accept,
  type ActorDefinition,
  type Ctx,
  reject,
  type TimerFired,
  type TimerOp,
  unreachable,
} from "../../src/runtime/actor.ts";
import type { SealedSecret } from "../../src/domain/secrets.ts";
import { furthest, type ReportedState } from "../../src/platform/rules/export_state.ts";
import {
  ATTEMPT_ERROR_CHARS_MAX,
  ATTEMPT_HISTORY_MAX,
  ATTEMPT_LEASE_MS,
  clip,
  nextAttemptAt,
  NO_ENDPOINT_RETRY_MS,
  OUTBOUND_BODY_BYTES_MAX,
  OUTBOUND_STATE_BYTES_MAX,
  REQUEUE_REASON_CHARS_MAX,
  REQUEUES_MAX,
} from "../../src/platform/rules/delivery_schedule.ts";

export type OutboundStream = "billing" | "client_webhook";
export const OUTBOUND_STATUSES = ["pending", "delivered", "failed"] as const;
export type OutboundStatus = typeof OUTBOUND_STATUSES[number];

/**
 * Whose endpoint receives the event, looked up at every attempt (so a courier that sets its
 * billing endpoint later, or rotates its secret, is honoured by the retries): the courier's
 * billing endpoint or else its webhook URL, or a client's webhook (courier 6.1, 6.2).
 */
export type Recipient =
  | { readonly kind: "courier" }
  | { readonly kind: "client"; readonly client_id: string };

/** The ledger entry a billing event reports (courier 2.7, 3.1), for export and alerts. */
export interface EntryLink {
  readonly client_id: string;
  readonly reference: string;
  /** A reference is unique within its kind (courier 2.6); absent on events made before. */
  readonly kind?: string;
}

/** Courier 4.3: the furthest state reported and the first reference reported per state. */
export interface Acknowledgement {
  readonly reported_state: ReportedState;
  readonly external_references: Readonly<Partial<Record<ReportedState, string>>>;
  readonly at: number;
}

/** Who receives the event: the URL, the key id named in headers, the sealed signing secret. */
export interface OutboundTarget {
  readonly url: string;
  readonly key_id: string;
  readonly sealed_secret: SealedSecret;
}

export type AttemptOutcome =
  | { readonly result: "delivered"; readonly http_status: number }
  /** No endpoint is configured: nothing was sent; tried again hourly (courier 3.1). */
  | { readonly result: "no_endpoint" }
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
  /** A fixed target (set at creation), or else `recipient`, looked up at each attempt. */
  readonly target?: OutboundTarget;
  readonly recipient?: Recipient;
  readonly entry?: EntryLink | null;
  /**
   * The client a billing event concerns: its entry's, or the completed shipment's (courier 4.3:
   * the outbox by client); absent on events made before it was kept.
   */
  readonly client_id?: string;
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
  /** The latest requeues, at most REQUEUES_MAX. */
  readonly requeues: readonly RequeueRecord[];
  /**
   * Requeues ever made, beyond what the bounded history shows; absent on events made before it
   * was kept (then as many as the history holds).
   */
  readonly requeues_total?: number;
  /** The attempt under way and until when it holds the event (one sender among instances). */
  readonly claim?: { readonly attempt_id: string; readonly until: number } | null;
  /** When an attempt last found no endpoint configured (courier 3.1). */
  readonly endpoint_missing_at?: number | null;
  /**
   * The same, kept when a later attempt clears `endpoint_missing_at`: whether the event waited long
   * enough to have raised billing_endpoint_missing, which its delivery then resolves (courier 2.9,
   * 3.1). Absent on events stored before it was kept (then `endpoint_missing_at`, until cleared).
   */
  readonly endpoint_waited_at?: number | null;
  readonly acknowledgement?: Acknowledgement | null;
}

export type OutboundEventState = OutboundEvent | null;

export interface NewOutboundEvent {
  readonly event_id: string;
  readonly stream: OutboundStream;
  readonly event_type: string;
  readonly raw_body: string;
  readonly target?: OutboundTarget;
  readonly recipient?: Recipient;
  readonly entry?: EntryLink | null;
  readonly client_id?: string;
}

export type OutboundEventCommand =
  | {
    readonly kind: "create";
    readonly event: NewOutboundEvent;
    /**
     * The creator found no endpoint for the recipient: the first attempt is noted as finding
     * none in the creating commit (courier 3.1: it waits and is tried again hourly), instead of
     * a commit of its own a moment later.
     */
    readonly endpoint_missing?: boolean;
  }
  | {
    readonly kind: "record_attempt";
    readonly attempt_id: string;
    readonly outcome: AttemptOutcome;
  }
  | { readonly kind: "requeue"; readonly reason: string; readonly by: string }
  /** Takes the event for one attempt; refused while another attempt holds it. */
  | { readonly kind: "claim"; readonly attempt_id: string }
  /**
   * The attempt due at `due_at` found no endpoint, so nothing is sent and no claim is taken:
   * recorded once per due attempt, however many instances heard it.
   */
  | { readonly kind: "endpoint_missing"; readonly due_at: number }
  /**
   * The recipient has set an endpoint: an event waiting for one is due now, not at its next
   * hourly try (courier 3.1). Nothing for an event that is not waiting for an endpoint.
   */
  | { readonly kind: "endpoint_set" }
  | {
    readonly kind: "acknowledge";
    readonly state: ReportedState;
    readonly external_reference: string | null;
    readonly by: string;
  }
  | { readonly kind: "get" };

export type OutboundEventEvent =
  | { readonly kind: "created"; readonly event: NewOutboundEvent; readonly at: number }
  | { readonly kind: "attempt_due"; readonly at: number }
  | { readonly kind: "attempt_recorded"; readonly attempt: AttemptRecord }
  | { readonly kind: "event_delivered"; readonly at: number }
  | { readonly kind: "event_failed"; readonly at: number }
  | { readonly kind: "retry_scheduled"; readonly at: number }
  | { readonly kind: "requeued"; readonly requeue: RequeueRecord }
  | {
    readonly kind: "attempt_claimed";
    readonly attempt_id: string;
    readonly until: number;
  }
  | { readonly kind: "endpoint_missing"; readonly at: number; readonly retry_at: number }
  | {
    readonly kind: "acknowledged";
    readonly state: ReportedState;
    readonly external_reference: string | null;
    readonly by: string;
    readonly at: number;
  };

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
      return create(state, command.event, command.endpoint_missing === true, ctx);
    case "record_attempt":
      return recordAttempt(state, command.attempt_id, command.outcome, ctx);
    case "requeue":
      return requeue(state, command.reason, command.by, ctx);
    case "claim":
      return claim(state, command.attempt_id, ctx);
    case "endpoint_missing": {
      if (state === null) return reject("not_found", "outbound event not found");
      // Settled, under way in another attempt, or already noted for this due attempt: nothing.
      const held = (state.claim?.until ?? -Infinity) > ctx.now;
      const noted = (state.endpoint_missing_at ?? -Infinity) >= command.due_at;
      if (state.status !== "pending" || held || noted) return ok([]);
      return endpointMissing(ctx);
    }
    case "endpoint_set": {
      if (state === null) return reject("not_found", "outbound event not found");
      const held = (state.claim?.until ?? -Infinity) > ctx.now;
      if (state.status !== "pending" || held || state.endpoint_missing_at == null) return ok([]);
      if ((state.next_attempt_at ?? Infinity) <= ctx.now) return ok([]); // already due
      return ok([{ kind: "retry_scheduled", at: ctx.now }], [
        { op: "set", name: ATTEMPT_TIMER, at: ctx.now },
      ]);
    }
    case "acknowledge":
      return acknowledge(state, command, ctx);
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

function create(
  state: OutboundEventState,
  event: NewOutboundEvent,
  endpointKnownMissing: boolean,
  ctx: Ctx,
) {
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
  if (event.event_id === "" || event.event_type === "") {
    return reject("invalid_event", "event id and event type are required");
  }
  if ((event.target === undefined) === (event.recipient === undefined)) {
    return reject("invalid_event", "an event has either a target or a recipient");
  }
  const created: OutboundEventEvent = { kind: "created", event, at: ctx.now };
  if (endpointKnownMissing) return endpointMissing(ctx, [created]);
  // The first attempt is due at once: said in the creating commit, with the timer one lease
  // later (as when it fires), instead of a timer due now whose firing is a commit of its own.
  return ok([created, { kind: "attempt_due", at: ctx.now }], [
    { op: "set", name: ATTEMPT_TIMER, at: ctx.now + ATTEMPT_LEASE_MS },
  ]);
}

/**
 * spec: courier 3.1: nothing was sent, so the schedule is not spent; try again in an hour.
 * `before`: events of the same decision that come first (the event's creation).
 */
function endpointMissing(ctx: Ctx, before: OutboundEventEvent[] = []) {
  const retryAt = ctx.now + NO_ENDPOINT_RETRY_MS;
  return ok([...before, { kind: "endpoint_missing", at: ctx.now, retry_at: retryAt }], [
    { op: "set", name: ATTEMPT_TIMER, at: retryAt },
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

function claim(state: OutboundEventState, attemptId: string, ctx: Ctx) {
  if (state === null) return reject("not_found", "outbound event not found");
  if (state.status !== "pending") {
    return reject("not_pending", `event is not pending: ${state.status}`);
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

function acknowledge(
  state: OutboundEventState,
  command: Extract<OutboundEventCommand, { kind: "acknowledge" }>,
  ctx: Ctx,
) {
  if (state === null || state.stream !== "billing") {
    return reject("not_found", "billing event not found");
  }
  const reference = command.external_reference?.trim() || null;
  const held = state.acknowledgement;
  // spec: courier 3.1 rules 1, 3: a late or repeated report never moves back, and the first
  // reference reported for a state is the one kept; so a report that adds nothing is a no-op.
  const moves = !held || furthest(held.reported_state, command.state) !== held.reported_state;
  const addsReference = reference !== null &&
    held?.external_references[command.state] === undefined;
  if (!moves && !addsReference) return ok([]);
  return ok([{
    kind: "acknowledged",
    state: command.state,
    external_reference: reference === null ? null : clip(reference, REQUEUE_REASON_CHARS_MAX),
    by: command.by,
    at: ctx.now,
  }]);
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
      claim: null,
      endpoint_missing_at: null,
      endpoint_waited_at: null,
      acknowledgement: null,
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
        claim: null,
        endpoint_missing_at: null,
        // An event stored before `endpoint_waited_at` was kept has its wait in the field cleared.
        endpoint_waited_at: state.endpoint_missing_at ?? state.endpoint_waited_at ?? null,
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
        requeues_total: requeuesTotal(state) + 1,
        claim: null,
      };
    case "attempt_claimed":
      return { ...state, claim: { attempt_id: event.attempt_id, until: event.until } };
    case "endpoint_missing":
      return {
        ...state,
        claim: null,
        endpoint_missing_at: event.at,
        endpoint_waited_at: event.at,
        next_attempt_at: event.retry_at,
      };
    case "acknowledged": {
      const held = state.acknowledgement;
      const references = { ...held?.external_references };
      if (event.external_reference !== null && references[event.state] === undefined) {
        references[event.state] = event.external_reference;
      }
      return {
        ...state,
        acknowledgement: {
          reported_state: held ? furthest(held.reported_state, event.state) : event.state,
          external_references: references,
          at: event.at,
        },
      };
    }
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
  readonly created_at: number;
  readonly recipient: Recipient | null;
  readonly entry: EntryLink | null;
  /** OutboundEvent.client_id, else its entry's; null for neither. */
  readonly client_id: string | null;
  readonly endpoint_missing_at: number | null;
  /** OutboundEvent.endpoint_waited_at; absent from changes published before it was kept. */
  readonly endpoint_waited_at?: number | null;
  readonly acknowledgement: Acknowledgement | null;
  readonly requeues: readonly RequeueRecord[];
  /** OutboundEvent.requeues_total: each requeue starts a round whose failure is its own alert. */
  readonly requeues_total: number;
}

/**
 * spec: courier 3.1: whether an attempt that found no endpoint at `missingAt` was an hourly retry,
 * not the first try: only then may billing_endpoint_missing have been raised (at the first try the
 * entry has had no time to go out in a CSV export). Once true, true for every later attempt.
 */
export function waitedForEndpoint(
  s: Pick<OutboundEventSummary, "created_at">,
  missingAt: number | null | undefined,
): boolean {
  return missingAt != null && missingAt - s.created_at >= NO_ENDPOINT_RETRY_MS;
}

/** Requeues ever made (events made before the count was kept: those their history holds). */
export function requeuesTotal(s: Pick<OutboundEvent, "requeues" | "requeues_total">): number {
  return s.requeues_total ?? s.requeues.length;
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
    created_at: s.created_at,
    recipient: s.recipient ?? null,
    entry: s.entry ?? null,
    client_id: s.client_id ?? s.entry?.client_id ?? null,
    endpoint_missing_at: s.endpoint_missing_at ?? null,
    endpoint_waited_at: s.endpoint_waited_at ?? s.endpoint_missing_at ?? null,
    acknowledgement: s.acknowledgement ?? null,
    requeues: s.requeues,
    requeues_total: requeuesTotal(s),
  };
}

export const outboundEventActor: ActorDefinition<
  OutboundEventState,
  OutboundEventCommand,
  OutboundEventEvent,
  OutboundEventReply
> = {
  type: "outbound_event",
  noun: "event",
  version: 1,
  initial: null,
  decide,
  evolve,
  project: (s) => s === null ? undefined : summaryOf(s),
  // spec: courier 6.1: a body up to OUTBOUND_BODY_BYTES_MAX (a completion listing every
  // adjustment) is held, over several store values.
  stateBytesMax: OUTBOUND_STATE_BYTES_MAX,
  // The body is kept once, in the state: the log and the bus get the creation without it (its
  // size said instead), so a large body is neither written twice in one commit nor published.
  // Nor does a fixed target's signing secret leave the state, sealed or not (what the bus
  // carries: no body, no secret).
  logged: (e) => {
    if (e.kind !== "created") return e;
    const { raw_body, target, ...event } = e.event;
    const bytes = new TextEncoder().encode(raw_body).length;
    const where = target ? { target: { url: target.url, key_id: target.key_id } } : {};
    return { ...e, event: { ...event, ...where, raw_body_bytes: bytes } };
  },
  // A report kept under its attempt id (one store value, at most 64 KiB) answers no event on
  // replay: the body would not fit; the event is read with `get`.
  keptReply: () => undefined,
};
