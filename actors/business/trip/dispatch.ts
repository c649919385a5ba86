/**
 * The trip's dispatch (Business API 3.1): one offer at a time, each ending accepted, declined or
 * expired on the trip's own durable timer; a driver who declined or let an offer expire is never
 * asked again; no acceptance within the dispatch window, begun when the trip is first due to be
 * offered, cancels the trip (`cancelled_by: system`, refunded by the cancellation's outbox), on
 * its timer or, for a trip left without one, when the dispatcher finds the window over. The
 * dispatcher picks the driver and the commands bring the settings' times: the trip only keeps
 * the rules of its own state.
 */
import {
  accept,
  type Ctx,
  type Decision,
  reject,
  type TimerOp,
} from "../../../src/runtime/actor.ts";
import { type DispatchTimes, dispatchWindow } from "../../../src/business/rules/dispatch.ts";
import type {
  DispatchCommand,
  Trip,
  TripDispatch,
  TripOffer,
  TripReply,
  TripState,
} from "./types.ts";
import type { TripEvent } from "./events.ts";

type D = Decision<TripState, TripEvent, TripReply>;

/** The trip's dispatch timers. */
export const OFFER_TIMER = "offer_expiry";
export const WINDOW_TIMER = "dispatch_window";
export const DUE_TIMER = "offer_due";

/** spec: business 3.1: the statuses a driver can still be offered a trip in. */
export function dispatchable(t: Trip): boolean {
  return t.driver === null && (t.status === "pending" || t.status === "scheduled");
}

const replyOf = (s: TripState): TripReply =>
  s.phase === "booked" ? { phase: "booked", trip: s.trip } : { phase: "free" };

export function decideDispatch(t: Trip, c: DispatchCommand, ctx: Ctx): D {
  switch (c.kind) {
    case "offer":
      return offer(t, c, ctx);
    case "decline": {
      // A replay of a decline, or of an offer that ended meanwhile, answers the trip as it is.
      if (t.offer?.offer_id !== c.offer_id || t.offer.driver_id !== c.driver_id) {
        // The driver's own acceptance won the race: the offer they decline is theirs.
        if (t.driver?.id === c.driver_id) {
          return reject("already_accepted", `the driver accepted this offer: ${c.offer_id}`);
        }
        return t.dispatch.excluded.includes(c.driver_id) ? accept([], replyOf) : offerGone();
      }
      return accept([ended(t, ctx.now, true)], replyOf, [{ op: "cancel", name: OFFER_TIMER }]);
    }
    case "offer_after":
      if (t.dispatch.offer_after !== null || !dispatchable(t)) return accept([], replyOf);
      return accept([{ kind: "offer_after_set", at: c.at }], replyOf, [
        { op: "set", name: DUE_TIMER, at: c.at },
      ]);
    case "window_ended": {
      // The trip's own window when decided at booking; else one counted from the first offer,
      // not begun for a trip never offered (a prep order or a scheduled trip waiting for its
      // time is not ended by this).
      const ends = t.dispatch.window_ends_at ??
        (t.dispatch.first_offer_at === null ? null : c.window_ends_at);
      if (ends === null || ctx.now < ends) return accept([], replyOf);
      return windowEnded(t, ctx.now);
    }
    case "time_dispatch": {
      if (t.dispatch.window_ends_at !== null || !dispatchable(t)) return accept([], replyOf);
      const { timed, timers } = bookedDispatch(t, c.times);
      return accept([{ kind: "dispatch_timed", at: ctx.now, ...timed }], replyOf, timers);
    }
  }
}

/**
 * spec: business 3.1: a trip's dispatch decided at its booking: when it is first due to be
 * offered (a prep order's or a scheduled trip's due timer) and when its window ends, on the
 * trip's own timer, so a trip no driver is ever offered (none online or in range) ends too.
 */
export function bookedDispatch(
  t: Trip,
  times: DispatchTimes,
): { timed: Timed; dispatch: TripDispatch; timers: TimerOp[] } {
  const w = dispatchWindow(t, times);
  const timers: TimerOp[] = [{ op: "set", name: WINDOW_TIMER, at: w.window_ends_at }];
  if (w.offer_after !== null) timers.push({ op: "set", name: DUE_TIMER, at: w.offer_after });
  const timed: Timed = { ...w, window_ms: times.dispatch_window_minutes * 60_000 };
  return { timed, dispatch: { ...t.dispatch, ...timed }, timers };
}

/** What deciding a trip's dispatch times decides. */
type Timed = Pick<TripDispatch, "offer_after"> & { window_ends_at: number; window_ms: number };

/**
 * spec: business 3.1: a prep order marked ready is due at once: one ready before its offer time
 * begins its window now (its new end and timer); null when the window stays as it is (a
 * scheduled trip is offered shortly before scheduled_at, ready or not).
 */
export function readyWindow(t: Trip, at: number): { ends_at: number; timer: TimerOp } | null {
  const { window_ends_at: ends, window_ms: ms } = t.dispatch;
  if (!dispatchable(t) || t.scheduled_at !== null) return null;
  if (ends === null || ms === null || at + ms >= ends) return null;
  return { ends_at: at + ms, timer: { op: "set", name: WINDOW_TIMER, at: at + ms } };
}

function offerGone() {
  return reject("not_found", "offer not found");
}

function ended(t: Trip, at: number, declined: boolean): TripEvent {
  const o = t.offer!;
  return { kind: "offer_ended", at, offer_id: o.offer_id, driver_id: o.driver_id, declined };
}

/**
 * The waiting offer ended by the trip's cancellation, recorded so its driver's answer is refused
 * offer_expired, as for any offer no longer open, not taken for a stranger's (CONTRACT "Driver
 * app"); with its timer. Nothing when no offer waits.
 */
export function offerEndedByCancel(
  t: Trip,
  at: number,
): { events: TripEvent[]; timers: TimerOp[] } {
  if (t.offer === null) return { events: [], timers: [] };
  return { events: [ended(t, at, false)], timers: [{ op: "cancel", name: OFFER_TIMER }] };
}

function offer(t: Trip, c: Extract<DispatchCommand, { kind: "offer" }>, ctx: Ctx): D {
  if (t.offer?.offer_id === c.offer.offer_id) return accept([], replyOf);
  if (!dispatchable(t)) return reject("invalid_transition", `the trip is ${t.status}`);
  // Its window over, its timer not yet fired: an offer now would be over as it is made (offerMade
  // ends none past the window), and would ask driver after driver until the timer fires.
  const ends = t.dispatch.window_ends_at;
  if (ends !== null && ctx.now >= ends) {
    return reject("invalid_transition", "the trip's dispatch window is over");
  }
  if (t.offer !== null) return reject("offer_waiting", "the trip's offer is still waiting");
  if (t.dispatch.excluded.includes(c.offer.driver_id)) {
    return reject("driver_excluded", "the driver was already asked for this trip");
  }
  const made = offerMade(t, c, ctx.now);
  return accept(made.events, replyOf, made.timers);
}

/**
 * The event and timers of an offer the trip may take (its checks made by the caller): the offer's
 * expiry, and the dispatch window when it is the first. The trip's creation uses it too.
 */
export function offerMade(
  t: Trip,
  c: { offer: TripOffer; window_ends_at: number },
  at: number,
): { events: TripEvent[]; timers: TimerOp[] } {
  // spec: business 3.1: no offer outlives the window the trip is cancelled at, so a driver is
  // never refused before the expiry they were shown.
  const ends = t.dispatch.window_ends_at ?? c.window_ends_at;
  const offer = c.offer.expires_at > ends ? { ...c.offer, expires_at: ends } : c.offer;
  const timers: TimerOp[] = [{ op: "set", name: OFFER_TIMER, at: offer.expires_at }];
  // spec: business 3.1: a trip stored before its window was decided at booking counts it from
  // the first offer.
  if (t.dispatch.first_offer_at === null && t.dispatch.window_ends_at === null) {
    timers.push({ op: "set", name: WINDOW_TIMER, at: c.window_ends_at });
  }
  return { events: [{ kind: "trip_offered", at, offer }], timers };
}

/** A dispatch timer came due; false when the timer is not one of dispatch's. */
export function dispatchTimer(t: Trip, name: string, ctx: Ctx): D | null {
  switch (name) {
    case OFFER_TIMER:
      // An offer answered before its timer left nothing to expire.
      return accept(t.offer === null ? [] : [ended(t, ctx.now, false)], replyOf);
    case DUE_TIMER:
      return accept(dispatchable(t) ? [{ kind: "offer_due", at: ctx.now }] : [], replyOf);
    case WINDOW_TIMER:
      return windowEnded(t, ctx.now);
    default:
      return null;
  }
}

/**
 * spec: business 3.1 "pending, no driver answers: cancelled with cancelled_by system", its charge
 * refunded (the cancellation's outbox): the end of the window, by its timer or the dispatcher's
 * `window_ended`. A trip taken or ended meanwhile is left as it is, so the second of the two to
 * come finds nothing to end.
 */
function windowEnded(t: Trip, at: number): D {
  if (!dispatchable(t)) return accept([], replyOf);
  const offer = offerEndedByCancel(t, at);
  return accept(
    [...offer.events, {
      kind: "trip_cancelled",
      at,
      by: "system",
      reason: "no driver accepted within the dispatch window",
      refund_due: t.charge,
    }],
    replyOf,
    [{ op: "cancel", name: OFFER_TIMER }],
  );
}

/** spec: business 3.1: only the driver offered may accept while an offer waits. */
export function refuseAccept(
  t: Trip,
  a: { driver: { id: string }; offer_id?: string | undefined },
  at: number,
): D | null {
  if (a.offer_id === undefined) {
    return t.offer !== null && t.offer.driver_id !== a.driver.id ? offerGone() : null;
  }
  const mine = t.offer?.offer_id === a.offer_id && t.offer.driver_id === a.driver.id;
  // Its expiry is the offer's end, not its timer's firing (timers are polled, some ms late).
  if (mine && at < t.offer!.expires_at) return null;
  if (mine || t.dispatch.excluded.includes(a.driver.id)) {
    return reject(
      "offer_expired",
      `the offer ended, declined or expired unanswered: ${a.offer_id}`,
    );
  }
  return offerGone();
}

/**
 * spec: business 3.1 "put back for another driver" and "pending, no driver answers: cancelled by
 * system": a trip given back inside its window is dispatched again until that window ends, then
 * cancelled as one nobody took. Its acceptance cancelled the window's timer: this sets it again.
 */
export function windowReopened(endsAt: number): TimerOp {
  return { op: "set", name: WINDOW_TIMER, at: endsAt };
}

/** Timers an acceptance ends. */
export const ACCEPT_TIMERS: readonly TimerOp[] = [
  { op: "cancel", name: OFFER_TIMER },
  { op: "cancel", name: WINDOW_TIMER },
];
