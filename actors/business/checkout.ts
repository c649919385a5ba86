/**
 * A checkout (Business API 4.1): a delivery option held for a shop's cart. Tenant = the business,
 * id = its reference. Opened with its price (the fare calculator's, decided by the flow) and an
 * expiry timer; booked by one booking at a time (`booking` holds it while the trip is made, so
 * neither a cancel nor the expiry releases a price being billed); released on cancel or expiry.
 */
import {
  accept,
  type ActorDefinition,
  type Decision,
  type OutboxAdd,
  reject,
  type TimerOp,
  unreachable,
} from "../../src/runtime/actor.ts";
import type { SavedPlace as Place } from "../../src/business/rules/geocode.ts";
import type { TripPrice } from "../../src/business/rules/fare.ts";
import type { BodyType, CapacityClass } from "../../src/business/rules/catalogue.ts";
import {
  CHECKOUT_BOOKING_STALL_MS,
  CHECKOUT_EXPIRY_TIMER,
  CHECKOUT_STALL_TIMER,
  CHECKOUT_STALLED_OUTBOX,
  type CheckoutStatus,
  holdLapsed,
} from "../../src/business/rules/checkout.ts";

/** What the booking declares about the goods, as the checkout priced them. */
export interface CheckoutGoods {
  readonly segment: "parcel" | "cargo" | null;
  readonly vehicle_type_id: number | null;
  readonly parcel_size: string | null;
  readonly parcel_weight_kg: number | null;
  readonly cargo_body_type: BodyType | null;
  readonly cargo_capacity_class: CapacityClass | null;
}

export interface CheckoutDraft {
  readonly reference: string;
  readonly business_id: string;
  readonly cart_reference: string | null;
  readonly cart: Readonly<Record<string, unknown>> | null;
  readonly pickup: Place;
  readonly stops: readonly Place[];
  readonly dest: Place;
  readonly goods: CheckoutGoods;
  readonly price: TripPrice;
  readonly expires_at: number;
  /** The creating request's body: a retry with other details is a conflict. */
  readonly fingerprint: string;
}

export interface Checkout extends CheckoutDraft {
  readonly status: CheckoutStatus;
  readonly created_at: number;
  /** The booking holding or having booked it: its body's fingerprint. */
  readonly booking_attempt: string | null;
  readonly trip_reference: string | null;
  readonly released_at: number | null;
  readonly cancel_reason: string | null;
  /** The trip the holding booking makes, and its claim allowed to charge (absent: held before). */
  readonly booking_trip?: BookingTrip | null;
}

/** The trip a booking of the checkout books: where the stalled-booking sweep looks for it. */
export interface BookingTrip {
  readonly reference: string;
  /** The booking's body, as the trip's claim holds it. */
  readonly fingerprint: string;
  /** The trip's claim let through to its charge (confirm_claim); null: none yet. */
  readonly claimed_at: number | null;
}

/** A stalled booking of a checkout, handed to the sweep (CHECKOUT_STALLED_OUTBOX). */
export interface CheckoutStalledItem {
  readonly business_id: string;
  readonly reference: string;
}

export type CheckoutState = Checkout | null;

export type CheckoutCommand =
  | { kind: "open"; draft: CheckoutDraft }
  | { kind: "get" }
  | { kind: "cancel"; reason: string | null }
  | {
    kind: "hold_for_booking";
    attempt: string;
    trip: { readonly reference: string; readonly fingerprint: string };
  }
  | { kind: "booked"; attempt: string; trip_reference: string }
  | { kind: "booking_refused"; attempt: string }
  /** The booking's trip claim asks leave to charge: refused once the hold was released. */
  | { kind: "confirm_claim"; attempt: string; claimed_at: number }
  /**
   * The sweep found no trip claim of this booking on its way to a charge: the hold is released,
   * unless a claim (other than the one the sweep saw, `claimed_at`) was let through meanwhile.
   */
  | { kind: "release_stalled"; attempt: string; claimed_at: number | null };

export type CheckoutEvent =
  | { kind: "checkout_opened"; draft: CheckoutDraft; at: number }
  | {
    kind: "checkout_held_for_booking";
    attempt: string;
    trip?: { readonly reference: string; readonly fingerprint: string };
  }
  | { kind: "checkout_claim_confirmed"; claimed_at: number }
  | { kind: "checkout_booking_stalled"; at: number }
  | { kind: "checkout_booked"; trip_reference: string }
  | { kind: "checkout_reopened" }
  | { kind: "checkout_cancelled"; reason: string | null; at: number }
  | { kind: "checkout_expired"; at: number };

export interface CheckoutReply {
  readonly checkout: Checkout;
  /** The same creation or booking answered again. */
  readonly replayed: boolean;
}

type Decided = Decision<CheckoutState, CheckoutEvent, CheckoutReply>;

const answer = (replayed: boolean) => (s: CheckoutState): CheckoutReply => ({
  checkout: s!,
  replayed,
});

function notFound(): Decided {
  return reject("not_found", "checkout not found");
}

function open(state: CheckoutState, draft: CheckoutDraft, now: number): Decided {
  if (state) {
    if (state.fingerprint === draft.fingerprint) return accept([], answer(true));
    return reject(
      "reference_conflict",
      `checkout ${state.reference} was opened with other details: nothing changed`,
      { reference: state.reference },
    );
  }
  return accept(
    [{ kind: "checkout_opened", draft, at: now }],
    answer(false),
    [{ op: "set", name: CHECKOUT_EXPIRY_TIMER, at: draft.expires_at }],
  );
}

/** The sweep's timer, set while a booking holds the checkout and cancelled once it settles. */
const STALL_CANCEL: TimerOp = { op: "cancel", name: CHECKOUT_STALL_TIMER };

/** spec: business 4.1: a released checkout is refused 409; a held one books once. */
function hold(
  s: Checkout,
  { attempt, trip }: Extract<CheckoutCommand, { kind: "hold_for_booking" }>,
  now: number,
): Decided {
  if (s.status === "cancelled") {
    return reject("checkout_cancelled", `checkout ${s.reference} was cancelled: open another`);
  }
  if (s.status === "expired" || holdLapsed(s, now)) {
    const at = new Date(s.expires_at).toISOString();
    return reject("checkout_expired", `checkout ${s.reference} expired at ${at}: open another`);
  }
  if (s.status === "open") {
    // A crash between two steps leaves state that a retry or a sweep completes (spec: business
    // 4.1, 7): the sweep looks at a booking still holding the checkout after the bound.
    return accept(
      [{ kind: "checkout_held_for_booking", attempt, trip }],
      answer(false),
      [{ op: "set", name: CHECKOUT_STALL_TIMER, at: now + CHECKOUT_BOOKING_STALL_MS }],
    );
  }
  if (s.booking_attempt === attempt) return accept([], answer(true));
  return reject(
    "checkout_booked",
    `checkout ${s.reference} is booked by another request` +
      (s.trip_reference ? `: trip ${s.trip_reference}` : ""),
    s.trip_reference ? { trip_reference: s.trip_reference } : {},
  );
}

function cancel(s: Checkout, reason: string | null, now: number): Decided {
  // As a booking is refused checkout_expired once the hold lapsed, a cancel finds it expired.
  if (holdLapsed(s, now)) {
    return accept(
      [{ kind: "checkout_expired", at: s.expires_at }],
      answer(true),
      [{ op: "cancel", name: CHECKOUT_EXPIRY_TIMER }],
    );
  }
  if (s.status === "open") {
    return accept(
      [{ kind: "checkout_cancelled", reason, at: now }],
      answer(false),
      [{ op: "cancel", name: CHECKOUT_EXPIRY_TIMER }],
    );
  }
  if (s.status === "cancelled" || s.status === "expired") return accept([], answer(true));
  return reject(
    "checkout_booked",
    `checkout ${s.reference} is booked: cancel its trip instead` +
      (s.trip_reference ? ` (${s.trip_reference})` : ""),
    s.trip_reference ? { trip_reference: s.trip_reference } : {},
  );
}

/** The booking's outcome, once its trip exists or was refused. */
function settle(s: Checkout, command: CheckoutCommand & { attempt: string }, now: number): Decided {
  if (s.status !== "booking" || s.booking_attempt !== command.attempt) {
    return accept([], answer(true));
  }
  if (command.kind === "booked") {
    return accept(
      [{ kind: "checkout_booked", trip_reference: command.trip_reference }],
      answer(false),
      [STALL_CANCEL],
    );
  }
  // A refused booking (the wallet, say) gives the hold back, or lets it lapse when past expiry.
  return accept([givenBack(s, now)], answer(false), [STALL_CANCEL]);
}

function givenBack(s: Checkout, now: number): CheckoutEvent {
  return now >= s.expires_at
    ? { kind: "checkout_expired", at: now }
    : { kind: "checkout_reopened" };
}

/**
 * The fence (as courier 4.1's withdrawn charge): a trip claim of the holding booking charges only
 * once the checkout let it through, and never after the sweep gave the hold back; the checkout
 * decides one command at a time, so of the two the first wins and the other is told.
 */
function confirmClaim(s: Checkout, attempt: string, claimedAt: number): Decided {
  if (s.booking_attempt === attempt && s.status === "booked") return accept([], answer(true));
  if (s.status !== "booking" || s.booking_attempt !== attempt) return releasedFrom(s);
  if (s.booking_trip?.claimed_at === claimedAt) return accept([], answer(true));
  return accept([{ kind: "checkout_claim_confirmed", claimed_at: claimedAt }], answer(false));
}

/** What a booking is told once its hold is no longer its own. */
function releasedFrom(s: Checkout): Decided {
  if (s.status === "expired" || s.status === "cancelled") {
    return reject(`checkout_${s.status}`, `checkout ${s.reference} was ${s.status}: open another`);
  }
  if (s.status === "open") {
    return reject(
      "checkout_released",
      `checkout ${s.reference} was given back from a booking that stopped before its charge: ` +
        "nothing charged, book it again",
    );
  }
  return reject("checkout_booked", `checkout ${s.reference} is booked by another request`);
}

/**
 * The sweep gives back the hold of a booking it found with no trip on its way to a charge, unless
 * a claim other than the one it saw (`claimedAt`) was let through since it looked.
 */
function releaseStalled(s: Checkout, attempt: string, claimedAt: number | null, now: number) {
  const seen = s.booking_trip?.claimed_at ?? null;
  if (s.status !== "booking" || s.booking_attempt !== attempt || seen !== claimedAt) {
    return accept([], answer(true));
  }
  return accept([givenBack(s, now)], answer(false), [STALL_CANCEL]);
}

/** A booking still holding the checkout is handed to the sweep, and looked at again later. */
function stalled(s: Checkout, now: number): Decided {
  if (s.status !== "booking") return accept([]);
  return accept(
    [{ kind: "checkout_booking_stalled", at: now }],
    undefined,
    [{ op: "set", name: CHECKOUT_STALL_TIMER, at: now + CHECKOUT_BOOKING_STALL_MS }],
  );
}

function decide(
  state: CheckoutState,
  command: CheckoutCommand | TimerCommand,
  now: number,
): Decided {
  if (command.kind === "open") return open(state, command.draft, now);
  if (!state) return command.kind === "timer" ? accept([]) : notFound();
  switch (command.kind) {
    case "get":
      return accept([], answer(false));
    case "cancel":
      return cancel(state, command.reason, now);
    case "hold_for_booking":
      return hold(state, command, now);
    case "booked":
    case "booking_refused":
      return settle(state, command, now);
    case "confirm_claim":
      return confirmClaim(state, command.attempt, command.claimed_at);
    case "release_stalled":
      return releaseStalled(state, command.attempt, command.claimed_at, now);
    case "timer":
      if (command.name === CHECKOUT_STALL_TIMER) return stalled(state, now);
      // A checkout being booked is not released under its booking: the booking settles it.
      return state.status === "open" ? accept([{ kind: "checkout_expired", at: now }]) : accept([]);
    default:
      return unreachable(command);
  }
}

type TimerCommand = { kind: "timer"; name: string; payload: unknown };

function evolve(state: CheckoutState, e: CheckoutEvent): CheckoutState {
  if (e.kind === "checkout_opened") {
    return {
      ...e.draft,
      status: "open",
      created_at: e.at,
      booking_attempt: null,
      trip_reference: null,
      released_at: null,
      cancel_reason: null,
    };
  }
  const s = state!;
  switch (e.kind) {
    case "checkout_held_for_booking":
      return {
        ...s,
        status: "booking",
        booking_attempt: e.attempt,
        booking_trip: e.trip ? { ...e.trip, claimed_at: null } : null,
      };
    case "checkout_claim_confirmed":
      return s.booking_trip
        ? { ...s, booking_trip: { ...s.booking_trip, claimed_at: e.claimed_at } }
        : s;
    case "checkout_booking_stalled":
      return s;
    case "checkout_booked":
      return { ...s, status: "booked", trip_reference: e.trip_reference };
    case "checkout_reopened":
      return { ...s, status: "open", booking_attempt: null, booking_trip: null };
    case "checkout_cancelled":
      return { ...s, status: "cancelled", released_at: e.at, cancel_reason: e.reason };
    case "checkout_expired":
      return {
        ...s,
        status: "expired",
        released_at: e.at,
        booking_attempt: null,
        booking_trip: null,
      };
    default:
      return unreachable(e);
  }
}

function stalledOutbox(e: CheckoutEvent, next: CheckoutState): readonly OutboxAdd[] {
  if (e.kind !== "checkout_booking_stalled" || !next) return [];
  const item: CheckoutStalledItem = { business_id: next.business_id, reference: next.reference };
  return [{ outbox: CHECKOUT_STALLED_OUTBOX, payload: item }];
}

export const checkoutActor: ActorDefinition<
  CheckoutState,
  CheckoutCommand,
  CheckoutEvent,
  CheckoutReply
> = {
  type: "business_checkout",
  noun: "checkout",
  version: 1,
  initial: null,
  decide: (state, command, ctx) => decide(state, command, ctx.now),
  evolve,
  outbox: stalledOutbox,
  // The checkouts list's typed read table (migration 0026) is written from the snapshot.
  project: (s) => s,
};
