/**
 * Checkouts (Business API 4.1): open one (the route placed and priced by the booking's calculator,
 * held for a stated time), read, cancel, and book one: POST /business/book naming
 * `checkout_reference` holds the checkout for its booking, books the trip at the price held, and
 * marks the checkout booked; a refused booking gives the hold back. A crash between the steps
 * leaves the checkout held for that booking: its retry (the same body) completes it, and if none
 * comes, the checkout's sweep (sweepStalledCheckout) completes it or gives the hold back.
 */
import {
  type Checkout,
  checkoutActor,
  type CheckoutDraft,
  type CheckoutGoods,
  type CheckoutReply,
  type CheckoutStalledItem,
} from "../../../actors/business/checkout.ts";
import { tripActor } from "../../../actors/business/trip/mod.ts";
import type { Deps } from "../../environment.ts";
import { foundOrNull, lastingRefusal, orRefuse, Refused } from "../../runtime/actor.ts";
import { tooLarge } from "../../runtime/too_large.ts";
import { bookingReference, fingerprintOf } from "../rules/booking.ts";
import { businessOf } from "../../platform/flows/businesses.ts";
import {
  CHECKOUT_CART_BYTES_MAX,
  CHECKOUT_HOLD_MINUTES_DEFAULT,
  checkoutAsOf,
  checkoutReference,
} from "../rules/checkout.ts";
import { type Booked, type BookingInput, type BookingRequest, bookTrip, keyOf } from "./book.ts";
import type { CompleteDeps } from "./complete_booking.ts";
import { estimateFare } from "./fares.ts";
import { locatePlaces, type PlaceToLocate } from "./geocode.ts";

export interface CheckoutRequest {
  readonly cart_reference?: string | undefined;
  readonly cart?: Readonly<Record<string, unknown>> | undefined;
  readonly pickup: PlaceToLocate;
  readonly stops: readonly PlaceToLocate[];
  readonly dest: PlaceToLocate;
  readonly goods: CheckoutGoods;
  readonly hold_minutes?: number | undefined;
}

export interface OpenInput {
  readonly request: CheckoutRequest;
  readonly body: unknown;
  readonly idempotencyKey: string | null;
}

/** Opens a checkout, or answers the one a retry of the same request opened (`replayed`). */
export async function openCheckout(
  deps: Pick<Deps, "runtime" | "clock" | "requestId">,
  business: string,
  input: OpenInput,
): Promise<CheckoutReply> {
  const r = input.request;
  refuseLargeCart(r.cart);
  const [pickup, dest, ...stops] = await locatePlaces(deps, business, [
    r.pickup,
    r.dest,
    ...r.stops,
  ]);
  const price = await estimateFare(deps, business, {
    route: { pickup: pickup!, stops, dest: dest! },
    declared: { type: "parcel", ...definedOf(r.goods) },
  });
  // spec: business 4.1: a retry of the same cart (else Idempotency-Key) reaches the same checkout.
  const key = r.cart_reference
    ? { kind: "cart_reference" as const, value: r.cart_reference }
    : input.idempotencyKey
    ? { kind: "idempotency_key" as const, value: input.idempotencyKey }
    : null;
  const reference = checkoutReference(business, key, () => crypto.randomUUID());
  const minutes = r.hold_minutes ?? CHECKOUT_HOLD_MINUTES_DEFAULT;
  const draft: CheckoutDraft = {
    reference,
    business_id: business,
    cart_reference: r.cart_reference ?? null,
    cart: r.cart ?? null,
    pickup: pickup!,
    stops,
    dest: dest!,
    goods: r.goods,
    price,
    expires_at: deps.clock.now() + minutes * 60_000,
    fingerprint: fingerprintOf(input.body),
  };
  return orRefuse(
    await deps.runtime.ask(checkoutActor, business, reference, { kind: "open", draft }, {
      requestId: deps.requestId,
      ...(key ? {} : { fresh: true }),
    }),
  );
}

/**
 * A cart past its bound is refused naming the cart, before anything is located or priced: past it
 * the checkout's whole record would be, and that refusal names a store record the caller never
 * sent.
 */
function refuseLargeCart(cart: CheckoutRequest["cart"]): void {
  if (!cart) return;
  const size = new TextEncoder().encode(JSON.stringify(cart)).length;
  if (size <= CHECKOUT_CART_BYTES_MAX) return;
  throw new Refused(tooLarge("cart", size, CHECKOUT_CART_BYTES_MAX, "CHECKOUT_CART_BYTES_MAX"));
}

/** The goods fields that were declared (null ones left out), as the fare calculator takes them. */
function definedOf(g: CheckoutGoods) {
  return Object.fromEntries(Object.entries(g).filter(([, v]) => v !== null)) as {
    [K in keyof CheckoutGoods]?: Exclude<CheckoutGoods[K], null>;
  };
}

/** The checkout as it stands now: one whose hold lapsed reads expired before its timer fires. */
export async function getCheckout(
  deps: Pick<Deps, "runtime" | "clock">,
  business: string,
  reference: string,
): Promise<Checkout> {
  const r = await deps.runtime.read(checkoutActor, business, reference, { kind: "get" });
  return checkoutAsOf(orRefuse(r).checkout, deps.clock.now());
}

/** Releases an open checkout; one already released answers as it is (`replayed`). */
export async function cancelCheckout(
  deps: Pick<Deps, "runtime" | "requestId">,
  business: string,
  reference: string,
  reason: string | null,
): Promise<CheckoutReply> {
  return orRefuse(
    await deps.runtime.ask(checkoutActor, business, reference, { kind: "cancel", reason }, {
      requestId: deps.requestId,
    }),
  );
}

/**
 * What tells one booking of a checkout from another: its body and, when no external_reference
 * names the trip, its Idempotency-Key (appendix 2: one value per attempt). The body alone let an
 * order sent again under a new key through the hold and book a second trip at the held price.
 */
function attemptOf(input: BookingInput): string {
  const key = input.request.external_reference ? null : input.idempotencyKey;
  return key === null
    ? fingerprintOf(input.body)
    : fingerprintOf({ body: input.body, idempotency_key: key });
}

/** spec: business 4.1: books the checkout's delivery at the price it holds, once. */
export async function bookCheckout(
  deps:
    & Pick<Deps, "runtime" | "clock" | "name" | "requestId" | "referenceKey">
    & Pick<CompleteDeps, "offers" | "numbers">,
  business: string,
  reference: string,
  input: BookingInput,
): Promise<Booked> {
  const attempt = attemptOf(input);
  const options = { requestId: deps.requestId };
  const ask = (command: Parameters<typeof deps.runtime.ask<typeof checkoutActor>>[3]) =>
    deps.runtime.ask(checkoutActor, business, reference, command, options).then(orRefuse);
  // The trip is named by the checkout when the order names nothing else: a retry finds it.
  const keyed = { ...input, idempotencyKey: input.idempotencyKey ?? `checkout:${reference}` };
  // Where the trip will be, so the checkout's sweep finds it if this request stops.
  const trip = {
    reference: bookingReference(
      deps.referenceKey,
      await businessOf(deps.runtime, business),
      keyOf(keyed),
      () => crypto.randomUUID(),
    ),
    fingerprint: fingerprintOf(input.body),
  };
  const { checkout } = await ask({ kind: "hold_for_booking", attempt, trip });
  const request: BookingRequest = {
    ...input.request,
    ...definedOf(checkout.goods),
    type: "parcel",
    pickup: checkout.pickup,
    stops: checkout.stops,
    dest: checkout.dest,
  };
  const booked = await bookTrip(deps, business, {
    ...keyed,
    request,
    held: {
      price: checkout.price,
      pickup: checkout.pickup,
      stops: checkout.stops,
      dest: checkout.dest,
    },
    gate: { kind: "checkout", reference, attempt },
  }).catch(async (e) => {
    // A refused booking gives the hold back; one still in progress, or met by an actor too busy
    // (its claim, maybe its charge, stand: the booking's sweep may yet make the trip), keeps it
    // for its retry, so the checkout books once.
    if (
      e instanceof Refused && !e.rejection.code.endsWith("_in_progress") && lastingRefusal(e)
    ) {
      await ask({ kind: "booking_refused", attempt });
    }
    throw e;
  });
  await ask({ kind: "booked", attempt, trip_reference: booked.trip.reference });
  return booked;
}

/**
 * The sweep of a booking that stopped while holding its checkout (spec: business 4.1, 7: a crash
 * between two steps leaves state that a retry or a sweep completes). Its trip booked: the checkout
 * is marked booked, as the request would have. Its trip's claim let through to its charge: the
 * trip's own sweep completes it, and the next look finds the outcome. Anything else: the hold is
 * given back; the fence (confirm_claim) keeps a late wake-up of the request from charging after.
 */
export async function sweepStalledCheckout(
  deps: Pick<Deps, "runtime">,
  item: CheckoutStalledItem,
): Promise<void> {
  const { runtime } = deps;
  const got = await runtime.read(checkoutActor, item.business_id, item.reference, { kind: "get" });
  // A busy or failed read says nothing of the booking: thrown, so the item is tried again.
  const checkout = foundOrNull(got)?.checkout;
  if (!checkout) return;
  const { status, booking_attempt: attempt, booking_trip: trip } = checkout;
  if (status !== "booking" || attempt === null || !trip) return;
  const ask = (command: Parameters<typeof runtime.ask<typeof checkoutActor>>[3]) =>
    runtime.ask(checkoutActor, item.business_id, item.reference, command).then(orRefuse);
  const made = orRefuse(
    await runtime.read(tripActor, item.business_id, trip.reference, { kind: "claim_state" }),
  );
  if (made.phase === "booked" && made.fingerprint === trip.fingerprint) {
    await ask({ kind: "booked", attempt, trip_reference: made.trip.reference });
    return;
  }
  const charging = made.phase === "booking" && made.claim.fingerprint === trip.fingerprint &&
    made.claim.claimed_at === trip.claimed_at;
  if (charging) return;
  await ask({ kind: "release_stalled", attempt, claimed_at: trip.claimed_at });
}
