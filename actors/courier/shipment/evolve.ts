/**
 * The shipment's events applied: a scan adds its line to the trail and, as a check does, sets
 * the lifecycle fields it changed. Events of earlier versions carry the lifecycle whole.
 */
import { unreachable } from "../../../src/runtime/actor.ts";
import { withDue, withoutConfirmed } from "../../../src/courier/rules/charges_due.ts";
import { chargesDueOf } from "./charges.ts";
import { TRAIL_MAX } from "./lifecycle.ts";
import type { ShipmentEvent, ShipmentState } from "./types.ts";

export function evolve(state: ShipmentState, event: ShipmentEvent): ShipmentState {
  switch (event.kind) {
    case "shipment_booked":
      return event.shipment;
    case "scanned":
      if (state === null) throw new Error("shipment: scanned before booked");
      if ("lifecycle" in event) return { ...state, ...event.lifecycle };
      return {
        ...state,
        ...event.changed,
        trail: [...state.trail, event.entry].slice(-TRAIL_MAX),
        trail_total: state.trail_total + 1,
      };
    case "presentation_withdrawn":
      if (state === null) throw new Error("shipment: presentation_withdrawn before booked");
      return {
        ...state,
        ...event.changed,
        trail: [...state.trail, event.entry].slice(-TRAIL_MAX),
        trail_total: state.trail_total + 1,
      };
    case "checked":
      if (state === null) throw new Error("shipment: checked before booked");
      return { ...state, ...("lifecycle" in event ? event.lifecycle : event.changed) };
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
    case "run_step_reserved":
      if (state === null) throw new Error("shipment: run_step_reserved before booked");
      return { ...state, run_steps: [...(state.run_steps ?? []), event.step] };
    case "run_steps_ended":
      if (state === null) throw new Error("shipment: run_steps_ended before booked");
      return {
        ...state,
        run_steps: (state.run_steps ?? []).filter((s) => !event.keys.includes(s.key)),
      };
    case "scans_refused":
      if (state === null) throw new Error("shipment: scans_refused before booked");
      return {
        ...state,
        refused_scans: [
          ...(state.refused_scans ?? []).filter((t) => !event.dropped.includes(t)),
          ...event.tokens,
        ],
      };
    default:
      return unreachable(event);
  }
}
