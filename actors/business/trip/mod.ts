/**
 * The Business API trip actor (2.2, 3.1): tenant = the business, id = the trip's reference.
 * Every status change happens here, one command at a time, and adds its webhook to the outbox in
 * the same commit (outbox.ts).
 */
import { type ActorDefinition, type Decision, mapReply } from "../../../src/runtime/actor.ts";
import { decideTrip } from "./decide.ts";
import { evolveTrip } from "./evolve.ts";
import { tripOutbox } from "./outbox.ts";
import { noDispatch } from "./creation.ts";
import { trackingKeys, TRIP_TRACKING_INDEX } from "./tracking_link.ts";
import {
  DRIVER_APP_DEFAULTS,
  type Trip,
  type TripCommand,
  type TripReply,
  type TripState,
} from "./types.ts";
import type { TripEvent } from "./events.ts";

export type * from "./types.ts";
export type * from "./events.ts";
export { STALL_TIMER } from "./decide.ts";
export { deliverRefusal } from "./drive.ts";
export { dispatchable, DUE_TIMER, OFFER_TIMER, WINDOW_TIMER } from "./dispatch.ts";

/** The index from a driver to the trip whose offer waits for them (one at a time). */
export const DRIVER_OFFER_INDEX = "pool_driver_offer";
export { type RefundItem, type StalledItem, tripEventData } from "./outbox.ts";
export {
  endedAt,
  linkTimes,
  trackingKey,
  trackingLinkStatus,
  TRIP_TRACKING_INDEX,
} from "./tracking_link.ts";

/** The index from a business's integer trip id to the trip (`<business>:<id>`). */
export const TRIP_NUMBER_INDEX = "business_trip_number";
/**
 * The index from a trip's reference to its trip, across businesses (the driver app, public
 * tracking and chat name a trip by reference alone, and the read table lags the trip).
 */
export const TRIP_REFERENCE_INDEX = "business_trip_reference";

/** A booking's events before its trip exists (onBus). */
const IN_PROGRESS: ReadonlySet<string> = new Set([
  "booking_claimed",
  "booking_released",
  "booking_stalled",
]);

/**
 * The acceptances of a trip stored before they were counted, as far as its trip.accepted ids go:
 * every acceptance then sent the first's id, so one held or given back (its driver excluded)
 * counts 1 and the next gets an id of its own; one never accepted counts 0. A trip whose
 * excluded drivers only declined counts 1 too: its first acceptance gets a numbered id, once.
 */
function acceptancesBefore(t: Partial<Trip>): number {
  const accepted = (t.accepted_at ?? null) !== null;
  return accepted || (t.dispatch?.excluded.length ?? 0) > 0 ? 1 : 0;
}

/**
 * A decision that records events answers where they landed in the trip's log (TripReply
 * `commit`), so a flow can tell its own commit's events from those of others committed around it.
 */
function withCommit(
  d: Decision<TripState, TripEvent, TripReply>,
): Decision<TripState, TripEvent, TripReply> {
  if (!d.ok || d.events.length === 0) return d;
  const recorded = d.events.length;
  return mapReply(d, (r, at) => {
    if (r.phase !== "booked" || at === undefined) return r;
    return { ...r, commit: { first_seq: at.seq - recorded + 1, last_seq: at.seq } };
  });
}

export const tripActor: ActorDefinition<TripState, TripCommand, TripEvent, TripReply> = {
  type: "business_trip",
  noun: "trip",
  version: 1,
  initial: { phase: "free" },
  // Trips stored before trips named their driver, were dispatched, had the driver app's fields
  // or a tracking link turned off, had none; before they kept their start, a trip not queued
  // began at its acceptance (what it showed then); before they counted their acceptances, see
  // acceptancesBefore; before they kept positions_since, from their acceptance.
  load: (stored) => {
    const s = stored as TripState;
    if (s.phase !== "booked") return s;
    const t = s.trip as Partial<Trip> & Trip;
    return {
      ...s,
      trip: {
        ...DRIVER_APP_DEFAULTS,
        ...t,
        driver: t.driver ?? null,
        offer: t.offer ?? null,
        // Stored before the window was decided at booking: counted from the first offer.
        dispatch: { ...noDispatch(), ...t.dispatch },
        tracking_revoked_at: t.tracking_revoked_at ?? null,
        retired_tracking_hashes: t.retired_tracking_hashes ?? [],
        acceptances: t.acceptances ?? acceptancesBefore(t),
        started_at: t.started_at !== undefined
          ? t.started_at
          : t.status === "queued"
          ? null
          : t.accepted_at ?? null,
        // Before it was kept: no position observed before its acceptance (spec: business 2.4).
        positions_since: t.positions_since !== undefined
          ? t.positions_since
          : t.accepted_at ?? null,
      },
    };
  },
  decide: (state, command, ctx) => withCommit(decideTrip(state, command, ctx)),
  evolve: evolveTrip,
  outbox: tripOutbox,
  // Nobody downstream reacts to a booking in progress (its claim, release or stall go by the
  // flow and the stall outbox): they stay in the trip's log, and a claim's change, with no
  // snapshot either, is not put on the bus at all.
  onBus: (e) => !IN_PROGRESS.has(e.kind),
  // spec: business 3.1: one offer at a time per driver, whichever instance's dispatcher makes it
  // (each knows every driver's position): a second trip's offer to a driver is `index_taken`.
  uniqueIndexes: [DRIVER_OFFER_INDEX],
  indexes: (s) =>
    s.phase !== "booked" ? [] : [
      { index: TRIP_NUMBER_INDEX, key: `${s.trip.business_id}:${s.trip.id}` },
      { index: TRIP_REFERENCE_INDEX, key: s.trip.reference },
      ...trackingKeys(s.trip).map((key) => ({ index: TRIP_TRACKING_INDEX, key })),
      ...(s.trip.offer === null ? [] : [
        { index: DRIVER_OFFER_INDEX, key: s.trip.offer.driver_id },
      ]),
    ],
  // A trip is seen once booked, and stays booked: before, a claim (or a released one) has no
  // row to write or clear, so its changes carry no snapshot (a refused booking leaves no row).
  project: (s) => (s.phase === "booked" ? s.trip : undefined),
};
