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
  reject,
  unreachable,
} from "../../src/runtime/actor.ts";
import type { SavedPlace as Place } from "../../src/business/rules/geocode.ts";
import type { TripPrice } from "../../src/business/rules/fare.ts";
import type { BodyType, CapacityClass } from "../../src/business/rules/catalogue.ts";
import { CHECKOUT_EXPIRY_TIMER, type CheckoutStatus } from "../../src/business/rules/checkout.ts";

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
}

export type CheckoutState = Checkout | null;

export type CheckoutCommand =
  | { kind: "open"; draft: CheckoutDraft }
  | { kind: "get" }
  | { kind: "cancel"; reason: string | null }
  | { kind: "hold_for_booking"; attempt: string }
  | { kind: "booked"; attempt: string; trip_reference: string }
  | { kind: "booking_refused"; attempt: string };

export type CheckoutEvent =
  | { kind: "checkout_opened"; draft: CheckoutDraft; at: number }
  | { kind: "checkout_held_for_booking"; attempt: string }
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

/** spec: business 4.1: a released checkout is refused 409; a held one books once. */
function hold(s: Checkout, attempt: string, now: number): Decided {
  if (s.status === "cancelled") {
    return reject("checkout_cancelled", `checkout ${s.reference} was cancelled: open another`);
  }
  if (s.status === "expired" || (s.status === "open" && now >= s.expires_at)) {
    const at = new Date(s.expires_at).toISOString();
    return reject("checkout_expired", `checkout ${s.reference} expired at ${at}: open another`);
  }
  if (s.status === "open") {
    return accept([{ kind: "checkout_held_for_booking", attempt }], answer(false));
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
    );
  }
  // A refused booking (the wallet, say) gives the hold back, or lets it lapse when past expiry.
  return accept(
    [now >= s.expires_at ? { kind: "checkout_expired", at: now } : { kind: "checkout_reopened" }],
    answer(false),
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
      return hold(state, command.attempt, now);
    case "booked":
    case "booking_refused":
      return settle(state, command, now);
    case "timer":
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
      return { ...s, status: "booking", booking_attempt: e.attempt };
    case "checkout_booked":
      return { ...s, status: "booked", trip_reference: e.trip_reference };
    case "checkout_reopened":
      return { ...s, status: "open", booking_attempt: null };
    case "checkout_cancelled":
      return { ...s, status: "cancelled", released_at: e.at, cancel_reason: e.reason };
    case "checkout_expired":
      return { ...s, status: "expired", released_at: e.at, booking_attempt: null };
    default:
      return unreachable(e);
  }
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
  // The checkouts list's typed read table (migration 0026) is written from the snapshot.
  project: (s) => s,
};
