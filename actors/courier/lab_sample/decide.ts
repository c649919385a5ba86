/** The sample's decisions, by command. */
import {
  accept,
  type Ctx,
  reject,
  type TimerFired,
  unreachable,
} from "../../../src/runtime/actor.ts";
import { whole } from "./accepted.ts";
import { approve } from "./approve.ts";
import { handoverCheck } from "./lateness.ts";
import { profile } from "./profile.ts";
import { temperature } from "./reading.ts";
import { tick } from "./tick.ts";
import type {
  Decided,
  LabSampleCommand,
  LabSampleEvent,
  LabSampleReply,
  LabSampleState,
} from "./types.ts";

export function decide(
  state: LabSampleState,
  command: LabSampleCommand | TimerFired,
  ctx: Ctx,
): Decided {
  switch (command.kind) {
    case "profile":
      return profile(state, command, ctx);
    case "tick":
      return tick(state, command, ctx);
    case "temperature":
      return temperature(state, command, ctx);
    case "approve":
      return approve(state, command, ctx);
    case "handover_check":
      return handoverCheck(state, ctx);
    case "handed_over":
      // A shipment without a laboratory record has nothing to mark; the first handover stands.
      if (state === null || state.handed_over_at !== undefined) {
        return accept<LabSampleState, LabSampleEvent, LabSampleReply>([]);
      }
      return accept<LabSampleState, LabSampleEvent, LabSampleReply>([
        { kind: "handed_over", at: command.at },
      ]);
    case "get":
      if (state === null) return reject("not_found", "no laboratory record for this shipment");
      return whole([]);
    case "timer":
      return accept<LabSampleState, LabSampleEvent, LabSampleReply>([]);
    default:
      return unreachable(command);
  }
}
