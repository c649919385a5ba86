/** An outbound event's state after each of its events: applied, never decided again. */
import { unreachable } from "../../../src/runtime/actor.ts";
import { furthest } from "../../../src/platform/rules/export_state.ts";
import {
  ATTEMPT_HISTORY_MAX,
  REQUEUES_MAX,
} from "../../../src/platform/rules/delivery_schedule.ts";
import { requeuesTotal } from "./summary.ts";
import type {
  AttemptRecord,
  NewOutboundEvent,
  OutboundEvent,
  OutboundEventEvent,
  OutboundEventState,
  RequeueRecord,
} from "./types.ts";

export function evolve(state: OutboundEventState, event: OutboundEventEvent): OutboundEventState {
  if (event.kind === "created") return created(event.event, event.at);
  if (state === null) throw new Error(`outbound event: ${event.kind} before created`);
  switch (event.kind) {
    case "attempt_due":
      return state;
    case "attempt_recorded":
      return attemptRecorded(state, event.attempt);
    case "event_delivered":
      return { ...state, status: "delivered", next_attempt_at: null };
    case "event_failed":
      return { ...state, status: "failed", next_attempt_at: null };
    case "retry_scheduled":
      return { ...state, next_attempt_at: event.at };
    case "requeued":
      return requeued(state, event.requeue);
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
    case "acknowledged":
      return acknowledged(state, event);
    default:
      return unreachable(event);
  }
}

function created(event: NewOutboundEvent, at: number): OutboundEvent {
  return {
    ...event,
    status: "pending",
    created_at: at,
    attempts: [],
    attempts_total: 0,
    round_attempts: 0,
    round_started_at: null,
    next_attempt_at: at,
    requeues: [],
    claim: null,
    endpoint_missing_at: null,
    endpoint_waited_at: null,
    acknowledgement: null,
  };
}

function attemptRecorded(state: OutboundEvent, attempt: AttemptRecord): OutboundEvent {
  return {
    ...state,
    attempts: [...state.attempts, attempt].slice(-ATTEMPT_HISTORY_MAX),
    attempts_total: state.attempts_total + 1,
    round_attempts: state.round_attempts + 1,
    round_started_at: state.round_started_at ?? attempt.at,
    claim: null,
    endpoint_missing_at: null,
    // An event stored before `endpoint_waited_at` was kept has its wait in the field cleared.
    endpoint_waited_at: state.endpoint_missing_at ?? state.endpoint_waited_at ?? null,
  };
}

function requeued(state: OutboundEvent, requeue: RequeueRecord): OutboundEvent {
  return {
    ...state,
    status: "pending",
    round_attempts: 0,
    round_started_at: null,
    next_attempt_at: requeue.at,
    requeues: [...state.requeues, requeue].slice(-REQUEUES_MAX),
    requeues_total: requeuesTotal(state) + 1,
    claim: null,
  };
}

function acknowledged(
  state: OutboundEvent,
  event: Extract<OutboundEventEvent, { kind: "acknowledged" }>,
): OutboundEvent {
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
