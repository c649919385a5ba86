/**
 * The Business API trip actor (2.2, 3.1): tenant = the business, id = the trip's reference.
 * Every status change happens here, one command at a time, and adds its webhook to the outbox in
 * the same commit (outbox.ts).
 */
import type { ActorDefinition } from "../../../src/runtime/actor.ts";
import { decideTrip } from "./decide.ts";
import { evolveTrip } from "./evolve.ts";
import { tripOutbox } from "./outbox.ts";
import type { Trip, TripCommand, TripEvent, TripReply, TripState } from "./types.ts";

export type * from "./types.ts";
export { STALL_TIMER } from "./decide.ts";
export { dispatchable, DUE_TIMER, OFFER_TIMER, WINDOW_TIMER } from "./dispatch.ts";

/** The index from a driver to the trip whose offer waits for them (one at a time). */
export const DRIVER_OFFER_INDEX = "pool_driver_offer";
export { type RefundItem, type StalledItem, tripEventData } from "./outbox.ts";

/** The index from a business's integer trip id to the trip (`<business>:<id>`). */
export const TRIP_NUMBER_INDEX = "business_trip_number";

export const tripActor: ActorDefinition<TripState, TripCommand, TripEvent, TripReply> = {
  type: "business_trip",
  noun: "trip",
  version: 1,
  initial: { phase: "free" },
  // Trips stored before trips named their driver, or were dispatched, had none.
  load: (stored) => {
    const s = stored as TripState;
    if (s.phase !== "booked") return s;
    const t = s.trip as Partial<Trip> & Trip;
    if (t.driver !== undefined && t.offer !== undefined && t.dispatch !== undefined) return s;
    return {
      ...s,
      trip: {
        ...t,
        driver: t.driver ?? null,
        offer: t.offer ?? null,
        dispatch: t.dispatch ?? { first_offer_at: null, excluded: [], offer_after: null },
      },
    };
  },
  decide: decideTrip,
  evolve: evolveTrip,
  outbox: tripOutbox,
  indexes: (s) =>
    s.phase !== "booked" ? [] : [
      { index: TRIP_NUMBER_INDEX, key: `${s.trip.business_id}:${s.trip.id}` },
      ...(s.trip.offer === null ? [] : [
        { index: DRIVER_OFFER_INDEX, key: s.trip.offer.driver_id },
      ]),
    ],
  project: (s) => (s.phase === "booked" ? s.trip : null),
};
