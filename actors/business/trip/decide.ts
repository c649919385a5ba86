/**
 * The trip's decisions (Business API 3.1, appendix 1-2): the booking's claim, its creation, and
 * every status change. Refusals are the spec's codes; events state what was decided.
 */
import {
  accept,
  type Ctx,
  type Decision,
  reject,
  type TimerFired,
  type TimerOp,
  unreachable,
} from "../../../src/runtime/actor.ts";
import { TRIP_STATUS_FLAGS } from "../../../src/business/rules/trip_status.ts";
import { BOOKING_STALL_MS } from "../../../src/business/rules/booking.ts";
import {
  bookedDispatch,
  decideDispatch,
  dispatchable,
  dispatchTimer,
  offerEndedByCancel,
  offerMade,
  readyWindow,
} from "./dispatch.ts";
import { trackingLink } from "./tracking_link.ts";
import { createdTrip } from "./creation.ts";
import { drive, replyOf, tripNotFound, wrongStatus } from "./drive.ts";
import {
  type Claim,
  type KeyKind,
  type Trip,
  type TripCommand,
  type TripCreation,
  type TripReply,
  type TripState,
} from "./types.ts";
import type { TripEvent } from "./events.ts";

type D = Decision<TripState, TripEvent, TripReply>;

/** The timer that hands a booking stopped between its steps to the completing sweep. */
export const STALL_TIMER = "booking_stalled";

export { replyOf };

export function decideTrip(state: TripState, command: TripCommand | TimerFired, ctx: Ctx): D {
  switch (command.kind) {
    case "claim":
      return claim(state, command.claim, ctx);
    case "release":
      return release(state, command.fingerprint, ctx);
    case "create":
      return create(state, command, ctx);
    case "timer":
      if (state.phase === "booked") {
        return dispatchTimer(state.trip, command.name, ctx) ?? accept([], replyOf);
      }
      return state.phase === "booking"
        ? accept([{ kind: "booking_stalled", at: ctx.now }], replyOf)
        : accept([], replyOf);
    case "get":
      return state.phase === "free" ? notFound() : accept([], replyOf);
    case "claim_state":
      return accept([], claimStateOf);
    case "replay":
      return state.phase === "free" ? accept([], replyOf) : retried(state, command);
    case "cancel":
    case "ready":
    case "rotate_tracking":
    case "revoke_tracking":
      // spec: business 7 booking_in_progress: the business's own action on a trip whose first
      // attempt may have taken the charge, the trip made moments later (or by its sweep): wait
      // and retry, not "absent" (the action would be lost).
      if (state.phase === "booking") return bookingInProgress("the trip's booking");
      if (state.phase !== "booked") return notFound();
      return onTrip(state.trip, command, ctx);
    case "refunded":
    case "accept":
    case "start":
    case "arrive":
    case "collect":
    case "arrive_dropoff":
    case "deliver":
    case "withdraw":
    case "fail":
    case "refuse_id":
    case "complete_return":
    case "offer":
    case "decline":
    case "offer_after":
    case "window_ended":
    case "time_dispatch":
      if (state.phase !== "booked") return notFound();
      return onTrip(state.trip, command, ctx);
    default:
      return unreachable(command);
  }
}

const notFound = tripNotFound;

/**
 * The booking's state with the fingerprint that holds the reference, booked too: a flow that
 * booked through this reference tells its own booking from another's (spec: business appendix 1).
 */
function claimStateOf(s: TripState): TripReply {
  return s.phase === "booked"
    ? { phase: "booked", trip: s.trip, fingerprint: s.fingerprint }
    : replyOf(s);
}

/** spec: business appendix 1, 2: the first booking of a reference or key owns it for good. */
function claim(state: TripState, c: Omit<Claim, "claimed_at">, ctx: Ctx): D {
  if (state.phase !== "free") return retried(state, c);
  return accept(
    [{ kind: "booking_claimed", claim: { ...c, claimed_at: ctx.now } }],
    (s) =>
      s.phase === "booking"
        ? { phase: "booking", claimed_at: s.claim.claimed_at, new_claim: true, claim: s.claim }
        : replyOf(s),
    [{ op: "set", name: STALL_TIMER, at: ctx.now + BOOKING_STALL_MS }],
  );
}

/** spec: business 7, appendix 1, 2: a held reference or key: replay, conflict or in progress. */
function retried(
  state: Exclude<TripState, { phase: "free" }>,
  c: { readonly fingerprint: string; readonly key_kind: KeyKind },
): D {
  const byRef = c.key_kind === "external_reference";
  const held = state.phase === "booking" ? state.claim.fingerprint : state.fingerprint;
  const reference = state.phase === "booking" ? state.claim.draft.reference : state.trip.reference;
  if (held !== c.fingerprint) {
    return byRef
      ? reject(
        "external_reference_conflict",
        `external_reference already booked with other details: ${reference}`,
        { reference },
      )
      : reject(
        "reference_conflict",
        `Idempotency-Key already used with another body: ${reference}`,
        { reference },
      );
  }
  if (state.phase === "booking") {
    return byRef ? bookingInProgress() : reject(
      "request_in_progress",
      `the first request with this Idempotency-Key is still ` +
        `running: retry after 5 seconds`,
      { retry_after: 5 },
    );
  }
  return accept([], () => ({ phase: "booked", trip: state.trip, replayed: true }));
}

/** spec: business 7: the first attempt is still being processed: retry after 5 seconds. */
function bookingInProgress(what = "the first booking of this external_reference"): D {
  return reject(
    "booking_in_progress",
    `${what} is still being processed: retry after 5 seconds`,
    { retry_after: 5 },
  );
}

/** A refused booking leaves its reference free (spec: business appendix 1). */
function release(state: TripState, fingerprint: string, ctx: Ctx): D {
  if (state.phase !== "booking" || state.claim.fingerprint !== fingerprint) {
    return accept([], replyOf);
  }
  return accept([{ kind: "booking_released", at: ctx.now }], replyOf, [
    { op: "cancel", name: STALL_TIMER },
  ]);
}

function create(
  state: TripState,
  c: Extract<TripCommand, { kind: "create" }>,
  ctx: Ctx,
): D {
  if (state.phase === "booked") return accept([], replyOf);
  if (state.phase === "free" || state.claim.fingerprint !== c.fingerprint) return notFound();
  const d = state.claim.draft;
  const decided: TripCreation = {
    id: c.id,
    // spec: business 3.1: booked for later until offered shortly before scheduled_at.
    status: d.scheduled_at !== null ? "scheduled" : "pending",
    created_at: ctx.now,
    charge: c.charge,
    scan_code: c.scan_code ?? null,
  };
  // spec: business 3.1: its window begins when it is first due to be offered, on its own timer.
  const timed = c.times ? bookedDispatch(createdTrip(d, decided), c.times) : null;
  const creation = timed ? { ...decided, dispatch: timed.dispatch } : decided;
  const trip = createdTrip(d, creation);
  const created: TripEvent = { kind: "trip_created", ...creation };
  const timers: TimerOp[] = [{ op: "cancel", name: STALL_TIMER }, ...(timed?.timers ?? [])];
  // spec: business 3.1: a trip due at once may be offered in its creation's commit.
  if (!c.offer || !dispatchable(trip)) return accept([created], replyOf, timers);
  const made = offerMade(trip, c.offer, ctx.now);
  return accept([created, ...made.events], replyOf, [...timers, ...made.timers]);
}

type TripOnly = Exclude<
  TripCommand,
  { kind: "claim" | "release" | "create" | "get" | "claim_state" | "replay" }
>;

function onTrip(t: Trip, command: TripOnly, ctx: Ctx): D {
  switch (command.kind) {
    case "ready": {
      // spec: business 3.1: completed and cancelled are final: a finished trip changes no more.
      if (TRIP_STATUS_FLAGS[t.status].final) return wrongStatus(t, "mark ready");
      // spec: business 3.1: calling ready twice is harmless.
      if (t.ready_at !== null) return accept([], replyOf);
      const w = readyWindow(t, ctx.now);
      if (w === null) return accept([{ kind: "trip_ready", at: ctx.now }], replyOf);
      return accept([{ kind: "trip_ready", at: ctx.now, window_ends_at: w.ends_at }], replyOf, [
        w.timer,
      ]);
    }
    case "cancel":
      return cancel(t, command, ctx);
    case "refunded":
      return accept(
        t.refund ? [] : [{ kind: "trip_refunded", refund: command.refund, at: ctx.now }],
        replyOf,
      );
    case "rotate_tracking":
    case "revoke_tracking":
      return accept(trackingLink(t, command, ctx.now), replyOf);
    case "offer":
    case "decline":
    case "offer_after":
    case "window_ended":
    case "time_dispatch":
      return decideDispatch(t, command, ctx);
    default:
      return drive(t, command, ctx);
  }
}

/** spec: business 3.1: cancel before collection; again answers already_cancelled. */
function cancel(t: Trip, c: { by: string; reason: string | null }, ctx: Ctx): D {
  if (t.status === "cancelled") {
    return accept([], () => ({ phase: "booked", trip: t, already_cancelled: true }));
  }
  if (!TRIP_STATUS_FLAGS[t.status].cancellable) {
    return reject(
      "not_cancellable",
      `the trip cannot be cancelled once ${t.status}: ${t.reference}`,
    );
  }
  const offer = offerEndedByCancel(t, ctx.now);
  return accept(
    [...offer.events, {
      kind: "trip_cancelled",
      at: ctx.now,
      by: c.by,
      reason: c.reason,
      refund_due: t.charge,
    }],
    replyOf,
    offer.timers,
  );
}
