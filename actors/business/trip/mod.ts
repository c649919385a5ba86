/**
 * The Business API trip actor (2.2, 3.1): tenant = the business, id = the trip's reference.
 * Every status change happens here, one command at a time, and adds its webhook to the outbox in
 * the same commit (outbox.ts).
 */
import type { ActorDefinition } from "../../../src/runtime/actor.ts";
import { decideTrip } from "./decide.ts";
import { evolveTrip } from "./evolve.ts";
import { tripOutbox } from "./outbox.ts";
import {
  DRIVER_APP_DEFAULTS,
  type TripCommand,
  type TripEvent,
  type TripReply,
  type TripState,
} from "./types.ts";

export type * from "./types.ts";
export { STALL_TIMER } from "./decide.ts";
export { type RefundItem, type StalledItem, tripEventData } from "./outbox.ts";

/** The index from a business's integer trip id to the trip (`<business>:<id>`). */
export const TRIP_NUMBER_INDEX = "business_trip_number";
/**
 * The index from a trip's reference to its business (the driver app names a trip by reference
 * alone, and the read table lags the trip).
 */
export const TRIP_REFERENCE_INDEX = "business_trip_reference";

export const tripActor: ActorDefinition<TripState, TripCommand, TripEvent, TripReply> = {
  type: "business_trip",
  noun: "trip",
  version: 1,
  initial: { phase: "free" },
  // Trips stored before trips named their driver had none, nor the driver app's fields.
  load: (stored) => {
    const s = stored as TripState;
    return s.phase === "booked" &&
        (s.trip.delivery_proof === undefined || s.trip.driver === undefined)
      ? { ...s, trip: { ...DRIVER_APP_DEFAULTS, ...s.trip, driver: s.trip.driver ?? null } }
      : s;
  },
  decide: decideTrip,
  evolve: evolveTrip,
  outbox: tripOutbox,
  indexes: (s) =>
    s.phase === "booked"
      ? [
        { index: TRIP_NUMBER_INDEX, key: `${s.trip.business_id}:${s.trip.id}` },
        { index: TRIP_REFERENCE_INDEX, key: s.trip.reference },
      ]
      : [],
  project: (s) => (s.phase === "booked" ? s.trip : null),
};
