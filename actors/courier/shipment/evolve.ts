/** The shipment's events applied: the lifecycle a scan or check carries replaces the old. */
import { unreachable } from "../../../src/runtime/actor.ts";
import { withDue, withoutConfirmed } from "../../../src/courier/rules/charges_due.ts";
import { chargesDueOf } from "./charges.ts";
import type { ShipmentEvent, ShipmentState } from "./types.ts";

export function evolve(state: ShipmentState, event: ShipmentEvent): ShipmentState {
  switch (event.kind) {
    case "shipment_booked":
      return event.shipment;
    case "scanned":
    case "checked":
      if (state === null) throw new Error(`shipment: ${event.kind} before booked`);
      return { ...state, ...event.lifecycle };
    case "alert_due":
    case "estimate_changed":
    case "stage_reached":
      return state;
    case "charge_due": {
      if (state === null) throw new Error("shipment: charge_due before booked");
      return { ...state, charges_due: withDue(chargesDueOf(state), event.charge) };
    }
    case "charges_confirmed":
      if (state === null) throw new Error("shipment: charges_confirmed before booked");
      return {
        ...state,
        charges_due: withoutConfirmed(chargesDueOf(state), event.source_events),
      };
    default:
      return unreachable(event);
  }
}
