/** An outbound event's decisions: its schedule (attempts.ts) and its acknowledgement. */
import { type Ctx, reject, type TimerFired, unreachable } from "../../../src/runtime/actor.ts";
import { acknowledge } from "./acknowledge.ts";
import { ok } from "./accepted.ts";
import {
  attemptDue,
  claim,
  create,
  createAttempted,
  dueNow,
  endpointSet,
  noteEndpointMissing,
  recordAttempt,
  requeue,
} from "./attempts.ts";
import type { OutboundEventCommand, OutboundEventState } from "./types.ts";

const NOT_FOUND = reject("not_found", "outbound event not found");

export function decide(
  state: OutboundEventState,
  command: OutboundEventCommand | TimerFired,
  ctx: Ctx,
) {
  switch (command.kind) {
    case "create":
      return command.first_attempt
        ? createAttempted(state, command.event, command.first_attempt, ctx)
        : create(state, command.event, command.endpoint_missing === true, ctx);
    case "record_attempt":
      return recordAttempt(state, command.attempt_id, command.outcome, ctx);
    case "requeue":
      return requeue(state, command.reason, command.by, ctx);
    case "claim":
      return claim(state, command.attempt_id, ctx, command.first_only ?? false);
    case "endpoint_missing":
      return state === null ? NOT_FOUND : noteEndpointMissing(state, command.due_at, ctx);
    case "endpoint_set":
      return state === null ? NOT_FOUND : endpointSet(state, ctx);
    case "acknowledge":
      return acknowledge(state, command, ctx);
    case "get":
      return state === null ? NOT_FOUND : ok([]);
    case "timer":
      return attemptDue(state, command.name, ctx);
    case "due":
      return dueNow(state, ctx);
    default:
      return unreachable(command);
  }
}
