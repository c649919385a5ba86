/** The shipment's decisions: booked once; scans recorded; charges confirmed; timers checked. */
import {
  accept,
  type Ctx,
  reject,
  type TimerFired,
  unreachable,
} from "../../../src/runtime/actor.ts";
import { CHARGE_TIMER } from "../../../src/courier/rules/charges_due.ts";
import { chargesDueAgain, confirmCharges } from "./charges.ts";
import { check } from "./check.ts";
import { startLifecycle } from "./lifecycle.ts";
import { restated } from "./load.ts";
import { withdrawPresentation } from "./presentation.ts";
import { record } from "./record.ts";
import { reserveRunStep } from "./run_steps.ts";
import { refuseScans } from "./scan_gates.ts";
import { timersFor } from "./timers.ts";
import type { Decided, Shipment, ShipmentCommand, ShipmentState } from "./types.ts";

export function decide(
  state: ShipmentState,
  command: ShipmentCommand | TimerFired,
  ctx: Ctx,
): Decided {
  switch (command.kind) {
    case "book": {
      // A retry of the same booking finds the shipment made: nothing is booked twice.
      if (state !== null) return accept([], () => ({ shipment: state, created: false }));
      const shipment: Shipment = { ...command.shipment, ...startLifecycle(command.shipment) };
      return accept(
        [{ kind: "shipment_booked", shipment }],
        () => ({ shipment, created: true }),
        timersFor(shipment),
      );
    }
    case "record":
      if (state === null) return reject("not_found", "shipment not found");
      return record(state, command, ctx.now);
    case "withdraw_presentation":
      if (state === null) return reject("not_found", "shipment not found");
      return withdrawPresentation(state, command, ctx.now);
    case "reserve_run_step":
      if (state === null) return reject("not_found", "shipment not found");
      return reserveRunStep(state, command.step);
    case "refuse_scans":
      if (state === null) return reject("not_found", "shipment not found");
      return refuseScans(state, command.tokens);
    case "confirm_charges":
      if (state === null) return reject("not_found", "shipment not found");
      return confirmCharges(state, command.source_events, ctx.now);
    case "restate":
      if (state === null) return reject("not_found", "shipment not found");
      return restated(state, ctx.now);
    case "get":
      if (state === null) return reject("not_found", "shipment not found");
      return accept([], () => state);
    case "timer":
      if (state === null) return accept([]);
      // Charges are booked after the shipment closes too: only milestones stop there.
      if (command.name === CHARGE_TIMER) return chargesDueAgain(state, ctx.now);
      return check(state, ctx.now);
    default:
      return unreachable(command);
  }
}
