/** The sample's decisions, by command. */
import {
  accept,
  type Ctx,
  reject,
  type TimerFired,
  unreachable,
} from "../../../src/runtime/actor.ts";
import { whole } from "./accepted.ts";
import { chargesDueAgain, confirmCharges } from "./charges.ts";
import { CHARGE_TIMER } from "../../../src/courier/rules/charges_due.ts";
import { approve } from "./approve.ts";
import { gated, handoverCheck } from "./handover.ts";
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
    // spec: courier 3.4: a block meeting a delivery under way has its run void it first.
    case "tick":
      return gated(state, tick(state, command, ctx), command.voiding);
    case "temperature":
      return gated(state, temperature(state, command, ctx), command.voiding);
    case "approve":
      return gated(state, approve(state, command, ctx), command.voiding);
    case "handover_check":
      return handoverCheck(state, command.delivery, ctx);
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
    case "confirm_charges":
      if (state === null) return reject("not_found", "no laboratory record for this shipment");
      return confirmCharges(state, command.source_events);
    case "timer":
      if (state === null || command.name !== CHARGE_TIMER) {
        return accept<LabSampleState, LabSampleEvent, LabSampleReply>([]);
      }
      return chargesDueAgain(state, ctx.now);
    default:
      return unreachable(command);
  }
}
