/** The trip's state after each event: applies what was decided, never a rule. */
import { unreachable } from "../../../src/runtime/actor.ts";
import type { Trip, TripEvent, TripState } from "./types.ts";

export function evolveTrip(state: TripState, event: TripEvent): TripState {
  switch (event.kind) {
    case "booking_claimed":
      return { phase: "booking", claim: event.claim };
    case "booking_released":
      return { phase: "free" };
    case "booking_stalled":
      return state;
    case "trip_created":
      return {
        phase: "booked",
        trip: event.trip,
        fingerprint: state.phase === "booking" ? state.claim.fingerprint : "",
      };
    default:
      return state.phase === "booked" ? { ...state, trip: evolveBooked(state.trip, event) } : state;
  }
}

type OnTrip = Exclude<
  TripEvent,
  { kind: "booking_claimed" | "booking_released" | "booking_stalled" | "trip_created" }
>;

function evolveBooked(t: Trip, e: OnTrip): Trip {
  switch (e.kind) {
    case "trip_ready":
      return { ...t, ready_at: e.at };
    case "trip_accepted":
      return {
        ...t,
        status: e.queued ? "queued" : "accepted",
        accepted_at: e.at,
        driver: e.driver,
        offer: null,
      };
    case "trip_offered":
      return {
        ...t,
        offer: e.offer,
        dispatch: { ...t.dispatch, first_offer_at: t.dispatch.first_offer_at ?? e.at },
      };
    case "offer_ended":
      return {
        ...t,
        offer: null,
        dispatch: { ...t.dispatch, excluded: [...t.dispatch.excluded, e.driver_id] },
      };
    case "offer_after_set":
      return { ...t, dispatch: { ...t.dispatch, offer_after: e.at } };
    case "offer_due":
      return t;
    case "trip_arrived":
      return { ...t, status: "arrived", arrived_at: e.at };
    case "trip_collected":
      return { ...t, status: "active", collected_at: e.at };
    case "trip_delivered":
      return { ...t, status: "completed", completed_at: e.at, delivery_outcome: "delivered" };
    case "delivery_failed":
      return {
        ...t,
        returning: true,
        return_reason: e.id_refused ? "age_verification_refused" : e.reason,
      };
    case "return_completed":
      return { ...t, status: "completed", completed_at: e.at, delivery_outcome: "returned" };
    case "trip_cancelled":
      return {
        ...t,
        status: "cancelled",
        offer: null,
        cancelled_at: e.at,
        cancelled_by: e.by,
        cancel_reason: e.reason,
      };
    case "trip_refunded":
      return { ...t, refund: e.refund };
    default:
      return unreachable(e);
  }
}
