/** The crossing's decisions, by command. */
import {
  accept,
  type Ctx,
  reject,
  type TimerFired,
  unreachable,
} from "../../../src/runtime/actor.ts";
import { CHARGE_TIMER } from "../../../src/courier/rules/charges_due.ts";
import { open, present, recordCrossing, vehicleLeft, withdrawPresentation } from "./border.ts";
import { chargesDueAgain, confirmCharges } from "./charges.ts";
import { reserveDelivery, reserveScan } from "./delivery.ts";
import { move, withdrawDuty } from "./move.ts";
import { supply } from "./supply.ts";
import type {
  CrossingCommand,
  CrossingEvent,
  CrossingReply,
  CrossingState,
  Decided,
} from "./types.ts";
import { crossingOf } from "./views.ts";

export function decide(
  state: CrossingState,
  command: CrossingCommand | TimerFired,
  ctx: Ctx,
): Decided {
  if (command.kind === "open") return open(state, command.crossing, command.by, ctx.now);
  if (command.kind === "timer") {
    if (state === null || command.name !== CHARGE_TIMER) {
      return accept<CrossingState, CrossingEvent, CrossingReply>([]);
    }
    return chargesDueAgain(state, ctx.now);
  }
  if (state === null) return reject("not_found", "customs crossing not found");
  switch (command.kind) {
    case "supply":
      return supply(state, command, ctx.now);
    case "move":
      return move(state, command.move, ctx.now);
    case "vehicle_left":
      return vehicleLeft(state, command.by, ctx.now);
    case "record_crossing":
      return recordCrossing(state, command.side, command.by, ctx.now);
    case "present":
      return present(state, command.at_stop, ctx.now);
    case "withdraw_presentation":
      return withdrawPresentation(state, command, ctx.now);
    case "confirm_charges":
      return confirmCharges(state, command.source_events, ctx.now);
    case "withdraw_duty":
      return withdrawDuty(state, command.move, ctx.now);
    case "reserve_delivery":
      return reserveDelivery(state, command.delivery);
    case "reserve_scan":
      return reserveScan(state, command.token);
    case "get":
      return accept<CrossingState, CrossingEvent, CrossingReply>([], () => crossingOf(state));
    default:
      return unreachable(command);
  }
}
