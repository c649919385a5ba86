/**
 * Courier 4.3: the courier reports how far a billing event got in its own system; the furthest
 * state is kept, and the first reference reported for each state.
 */
import { type Ctx, reject, type TimerOp } from "../../../src/runtime/actor.ts";
import { furthest } from "../../../src/platform/rules/export_state.ts";
import { clip, REQUEUE_REASON_CHARS_MAX } from "../../../src/platform/rules/delivery_schedule.ts";
import { ok } from "./accepted.ts";
import {
  ATTEMPT_TIMER,
  type OutboundEvent,
  type OutboundEventCommand,
  type OutboundEventState,
} from "./types.ts";

export function acknowledge(
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
  }], waitingTimer(state));
}

/**
 * An event waiting for an endpoint keeps its hourly retry: set again at the time it holds. One
 * made from its delivery-log row (log.ts) has no timer of its own until this commit.
 */
function waitingTimer(state: OutboundEvent): TimerOp[] {
  const at = state.next_attempt_at;
  const waiting = state.status === "pending" && state.endpoint_missing_at != null;
  if (!waiting || state.claim !== null || at === null) return [];
  return [{ op: "set", name: ATTEMPT_TIMER, at }];
}
