/** The crossing's events applied. */
import { unreachable } from "../../../src/runtime/actor.ts";
import { withDue, withoutConfirmed } from "../../../src/courier/rules/charges_due.ts";
import { chargesDueOf } from "./charges.ts";
import { AWAITING_PAPERS_BEFORE } from "./transitions.ts";
import type { CrossingEvent, CrossingState } from "./types.ts";

export function evolve(state: CrossingState, event: CrossingEvent): CrossingState {
  if (event.kind === "crossing_opened") return event.crossing;
  if (state === null) throw new Error(`customs crossing: ${event.kind} before opened`);
  switch (event.kind) {
    case "documents_supplied":
      return {
        ...state,
        status: event.status ??
          (AWAITING_PAPERS_BEFORE.has(state.status) ? "presented" : state.status),
        supplies: [...state.supplies, event.supply],
        documents: [...state.documents, ...event.documents],
        updated_at: event.supply.at,
      };
    case "moved": {
      const m = event.move;
      return {
        ...state,
        status: event.status,
        history: [...state.history, m],
        duties: event.duty ? [...state.duties, event.duty] : state.duties,
        customs_reference: m.action === "clear" ? m.customs_reference : state.customs_reference,
        cleared_at: m.action === "clear" ? m.at : state.cleared_at,
        released_at: m.action === "release" ? m.at : state.released_at,
        refused_at: m.action === "refuse" ? m.at : state.refused_at,
        released_after_departure: state.released_after_departure ||
          (m.action === "release" && state.vehicle_left_at !== null),
        updated_at: m.at,
      };
    }
    case "vehicle_left":
      return { ...state, vehicle_left_at: event.at, updated_at: event.at };
    case "crossed":
      return event.side === "exit"
        ? { ...state, exit_at: event.at, updated_at: event.at }
        : { ...state, entry_at: event.at, updated_at: event.at };
    case "presented_at_stop":
      return {
        ...state,
        run_id: event.at_stop.run_id,
        stop_id: event.at_stop.stop_id,
        border_post: event.at_stop.border_post,
        country: event.at_stop.country,
        to_country: event.at_stop.to_country,
        before_stop: {
          border_post: state.border_post,
          country: state.country,
          to_country: state.to_country,
        },
        presentations: (state.presentations ?? 0) + 1,
        updated_at: event.at,
      };
    case "presentation_withdrawn":
      return {
        ...state,
        ...event.border,
        run_id: null,
        stop_id: null,
        before_stop: null,
        updated_at: event.at,
      };
    case "charge_due":
      return { ...state, charges_due: withDue(chargesDueOf(state), event.charge) };
    case "charges_confirmed":
      return {
        ...state,
        charges_due: withoutConfirmed(chargesDueOf(state), event.source_events),
      };
    case "duty_withdrawn":
      return {
        ...state,
        history: state.history.filter((h) => h.n !== event.move),
        duties: state.duties.filter((d) => d.move !== event.move),
        // Taken back, the duties are no longer due on the client's account.
        charges_due: chargesDueOf(state).filter((c) => c.move !== event.move),
        updated_at: event.at,
      };
    case "delivery_reserved":
      return { ...state, delivery_under_way: event.delivery };
    case "delivery_voided":
      return { ...state, delivery_under_way: null };
    case "scan_reserved":
      return {
        ...state,
        scans_under_way: [
          ...(state.scans_under_way ?? []).filter((t) => !event.dropped.includes(t)),
          event.token,
        ],
      };
    case "scans_voided":
      return {
        ...state,
        scans_under_way: (state.scans_under_way ?? []).filter((t) => !event.tokens.includes(t)),
      };
    default:
      return unreachable(event);
  }
}
