/** The trip's state after each event: applies what was decided, never a rule. */
import { unreachable } from "../../../src/runtime/actor.ts";
import { createdTrip } from "./creation.ts";
import type { Trip, TripState } from "./types.ts";
import type { TripEvent } from "./events.ts";

export function evolveTrip(state: TripState, event: TripEvent): TripState {
  switch (event.kind) {
    case "booking_claimed":
      return { phase: "booking", claim: event.claim };
    case "booking_released":
      return { phase: "free" };
    case "booking_stalled":
      return state;
    case "trip_created":
      return created(state, event);
    default:
      return state.phase === "booked" ? { ...state, trip: evolveBooked(state.trip, event) } : state;
  }
}

type Created = Extract<TripEvent, { kind: "trip_created" }>;

/** The claim's draft made a trip with what the creation decided. */
function created(state: TripState, e: Created): TripState {
  const fingerprint = state.phase === "booking" ? state.claim.fingerprint : "";
  // A creation stored before its event carried only what changed holds the whole trip.
  if ("trip" in e) return { phase: "booked", trip: e.trip, fingerprint };
  // decide creates only from a claim: without one there is no draft to make a trip of.
  if (state.phase !== "booking") return state;
  const { kind: _, ...creation } = e;
  return { phase: "booked", trip: createdTrip(state.claim.draft, creation), fingerprint };
}

type OnTrip = Exclude<
  TripEvent,
  { kind: "booking_claimed" | "booking_released" | "booking_stalled" | "trip_created" }
>;

/** A trip's events until a driver is on it: readiness, offers, acceptances, a give-back. */
type OnDispatch = Extract<
  OnTrip,
  {
    kind:
      | "trip_ready"
      | "trip_accepted"
      | "trip_started"
      | "trip_offered"
      | "offer_ended"
      | "offer_after_set"
      | "dispatch_timed"
      | "offer_due"
      | "driver_withdrew";
  }
>;

function evolveBooked(t: Trip, e: OnTrip): Trip {
  switch (e.kind) {
    case "trip_ready":
    case "trip_accepted":
    case "trip_started":
    case "trip_offered":
    case "offer_ended":
    case "offer_after_set":
    case "dispatch_timed":
    case "offer_due":
    case "driver_withdrew":
      return evolveDispatch(t, e);
    case "trip_arrived":
      return { ...t, status: "arrived", arrived_at: e.at };
    case "trip_collected":
      return {
        ...t,
        status: "active",
        collected_at: e.at,
        scanned_at: e.scanned ? e.at : null,
        collect_override: e.override_reason ? { at: e.at, reason: e.override_reason } : null,
      };
    case "trip_arrived_dropoff":
      return { ...t, arrived_dropoff_at: e.at };
    case "trip_delivered":
      return {
        ...t,
        status: "completed",
        completed_at: e.at,
        delivery_outcome: "delivered",
        delivery_proof: e.proof ?? null,
      };
    case "delivery_failed":
      return {
        ...t,
        returning: true,
        return_reason: e.id_refused ? "age_verification_refused" : e.reason,
        return_due_at: e.return_due_at ?? null,
      };
    case "return_completed":
      // The goods are back (spec: business 3.1 "returning -> completed"): returned, not returning.
      return {
        ...t,
        status: "completed",
        completed_at: e.at,
        delivery_outcome: "returned",
        returning: false,
      };
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
    case "tracking_link_rotated":
      return {
        ...t,
        tracking_token: e.token,
        tracking_revoked_at: null,
        retired_tracking_hashes: e.retired_hashes,
      };
    case "tracking_link_revoked":
      return { ...t, tracking_revoked_at: e.at };
    default:
      return unreachable(e);
  }
}

function evolveDispatch(t: Trip, e: OnDispatch): Trip {
  switch (e.kind) {
    case "trip_ready":
      return {
        ...t,
        ready_at: e.at,
        dispatch: e.window_ends_at === undefined
          ? t.dispatch
          : { ...t.dispatch, window_ends_at: e.window_ends_at },
      };
    case "trip_accepted":
      return {
        ...t,
        status: e.queued ? "queued" : "accepted",
        accepted_at: e.at,
        acceptances: e.acceptance ?? t.acceptances + 1,
        // spec: business 3.1 queued: a queued trip starts once the driver's current one ends.
        started_at: e.queued ? null : e.at,
        positions_since: e.positions_since ?? e.at,
        driver: e.driver,
        offer: null,
      };
    case "trip_started":
      return { ...t, status: "accepted", started_at: e.at };
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
    case "dispatch_timed": {
      const { offer_after, window_ends_at, window_ms } = e;
      return { ...t, dispatch: { ...t.dispatch, offer_after, window_ends_at, window_ms } };
    }
    case "offer_due":
      return t;
    case "driver_withdrew":
      // spec: business 3.1: put back for another driver, as it was before acceptance.
      // The driver who gave it back is not asked again for it, as one who declined.
      return {
        ...t,
        status: "pending",
        driver: null,
        accepted_at: null,
        started_at: null,
        positions_since: null,
        arrived_at: null,
        dispatch: { ...t.dispatch, excluded: [...t.dispatch.excluded, e.driver_id] },
      };
    default:
      return unreachable(e);
  }
}
