/**
 * The trip's decisions (Business API 3.1, appendix 1-2): the booking's claim, its creation, and
 * every status change. Refusals are the spec's codes; events state what was decided.
 */
import {
  accept,
  type Ctx,
  type Decision,
  reject,
  type Rejection,
  type TimerFired,
  unreachable,
} from "../../../src/runtime/actor.ts";
import { isAccepted, TRIP_STATUS_FLAGS } from "../../../src/business/rules/trip_status.ts";
import { BOOKING_STALL_MS } from "../../../src/business/rules/booking.ts";
import { ACCEPT_TIMERS, decideDispatch, dispatchTimer, refuseAccept } from "./dispatch.ts";
import type {
  Claim,
  DriverAction,
  Trip,
  TripCommand,
  TripEvent,
  TripReply,
  TripState,
} from "./types.ts";

type D = Decision<TripState, TripEvent, TripReply>;

/** The timer that hands a booking stopped between its steps to the completing sweep. */
export const STALL_TIMER = "booking_stalled";

export const replyOf = (s: TripState): TripReply =>
  s.phase === "booked"
    ? { phase: "booked", trip: s.trip }
    : s.phase === "booking"
    ? { phase: "booking", claimed_at: s.claim.claimed_at, new_claim: false, claim: s.claim }
    : { phase: "free" };

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
      return accept([], replyOf);
    case "ready":
    case "cancel":
    case "refunded":
    case "accept":
    case "arrive":
    case "collect":
    case "deliver":
    case "fail":
    case "refuse_id":
    case "complete_return":
    case "offer":
    case "decline":
    case "offer_after":
      if (state.phase !== "booked") return notFound();
      return onTrip(state.trip, command, ctx);
    default:
      return unreachable(command);
  }
}

function notFound(): Rejection {
  return reject("not_found", "trip not found");
}

/** spec: business appendix 1, 2: the first booking of a reference or key owns it for good. */
function claim(state: TripState, c: Omit<Claim, "claimed_at">, ctx: Ctx): D {
  const byRef = c.key_kind === "external_reference";
  if (state.phase === "free") {
    return accept(
      [{ kind: "booking_claimed", claim: { ...c, claimed_at: ctx.now } }],
      (s) =>
        s.phase === "booking"
          ? { phase: "booking", claimed_at: s.claim.claimed_at, new_claim: true, claim: s.claim }
          : replyOf(s),
      [{ op: "set", name: STALL_TIMER, at: ctx.now + BOOKING_STALL_MS }],
    );
  }
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
    return byRef
      ? reject(
        "booking_in_progress",
        `the first booking of this external_reference is still ` +
          `being processed: retry after 5 seconds`,
        { retry_after: 5 },
      )
      : reject(
        "request_in_progress",
        `the first request with this Idempotency-Key is still ` +
          `running: retry after 5 seconds`,
        { retry_after: 5 },
      );
  }
  return accept([], () => ({ phase: "booked", trip: state.trip, replayed: true }));
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
  const trip: Trip = {
    ...d,
    id: c.id,
    // spec: business 3.1: booked for later until offered shortly before scheduled_at.
    status: d.scheduled_at !== null ? "scheduled" : "pending",
    created_at: ctx.now,
    charge: c.charge,
    ready_at: null,
    accepted_at: null,
    driver: null,
    offer: null,
    dispatch: { first_offer_at: null, excluded: [], offer_after: null },
    arrived_at: null,
    collected_at: null,
    completed_at: null,
    returning: false,
    return_reason: null,
    delivery_outcome: null,
    cancelled_at: null,
    cancelled_by: null,
    cancel_reason: null,
    refund: null,
  };
  return accept([{ kind: "trip_created", trip }], replyOf, [{ op: "cancel", name: STALL_TIMER }]);
}

type TripOnly = Exclude<
  TripCommand,
  { kind: "claim" | "release" | "create" | "get" | "claim_state" }
>;

function onTrip(t: Trip, command: TripOnly, ctx: Ctx): D {
  switch (command.kind) {
    case "ready":
      // spec: business 3.1: calling ready twice is harmless.
      return accept(t.ready_at === null ? [{ kind: "trip_ready", at: ctx.now }] : [], replyOf);
    case "cancel":
      return cancel(t, command, ctx);
    case "refunded":
      return accept(t.refund ? [] : [{ kind: "trip_refunded", refund: command.refund }], replyOf);
    case "offer":
    case "decline":
    case "offer_after":
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
  return accept([{
    kind: "trip_cancelled",
    at: ctx.now,
    by: c.by,
    reason: c.reason,
    refund_due: t.charge,
  }], replyOf);
}

function wrongStatus(t: Trip, action: string): Rejection {
  return reject(
    "invalid_transition",
    `cannot ${action} a trip that is ${t.status}: ${t.reference}`,
  );
}

/** The transitions a driver makes (spec: business 3.1 table). */
function drive(t: Trip, a: DriverAction, ctx: Ctx): D {
  const at = ctx.now;
  switch (a.kind) {
    case "accept":
      // A retry of the holder's own acceptance (lost signal) answers the trip as it is.
      if (t.driver !== null && t.driver.id === a.driver.id) return accept([], replyOf);
      // spec: business 3.1: a trip never has two drivers.
      if (t.driver !== null) {
        return reject("already_accepted", `another driver accepted the trip: ${t.reference}`);
      }
      if (!["pending", "scheduled", "queued"].includes(t.status)) return wrongStatus(t, "accept");
      return refuseAccept(t, a) ?? accept(
        [{ kind: "trip_accepted", at, driver: a.driver, ...(a.queued ? { queued: true } : {}) }],
        replyOf,
        ACCEPT_TIMERS,
      );
    case "arrive":
      if (!isAccepted(t.status)) return wrongStatus(t, "arrive at");
      return accept([{ kind: "trip_arrived", at }], replyOf);
    case "collect":
      if (t.status !== "arrived") return wrongStatus(t, "collect");
      if (t.handover_required && t.ready_at === null) {
        return reject(
          "awaiting_handover",
          `the store has not marked the order ready: ${t.reference}`,
        );
      }
      return accept([{ kind: "trip_collected", at }], replyOf);
    case "deliver":
      if (t.status !== "active" || t.returning) return wrongStatus(t, "deliver");
      return accept([{
        kind: "trip_delivered",
        at,
        age_verified: t.age_verification_required,
        cod_collected_minor: t.cod_amount_minor === null
          ? null
          : a.cod_collected_amount_minor ?? t.cod_amount_minor,
      }], replyOf);
    case "fail":
    case "refuse_id":
      if (t.status !== "active" || t.returning) return wrongStatus(t, "fail");
      if (a.kind === "refuse_id" && !t.age_verification_required) {
        return wrongStatus(t, "refuse ID for");
      }
      return accept([{
        kind: "delivery_failed",
        at,
        reason: a.reason,
        id_refused: a.kind === "refuse_id",
      }], replyOf);
    case "complete_return":
      if (t.status !== "active" || !t.returning) return wrongStatus(t, "complete the return of");
      return accept([{ kind: "return_completed", at }], replyOf);
    default:
      return unreachable(a);
  }
}
