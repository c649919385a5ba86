/**
 * Checkouts (Business API 4.1 POST, GET /business/checkouts, GET /{reference}, POST
 * /{reference}/cancel): a delivery option a shop shows at its checkout, priced by the fare
 * calculator and held for a stated time for a cart; the order's booking names it
 * (`checkout_reference` on POST /business/book) and is billed the price held.
 */
import { sha256Hex } from "../../domain/secrets.ts";

/** A price is held this long unless the shop asks otherwise (the operator's price hold, 30). */
export const CHECKOUT_HOLD_MINUTES_DEFAULT = 30;
/** A price is held at most this long: a cart left for a day is priced again. */
export const CHECKOUT_HOLD_MINUTES_MAX = 24 * 60;
/**
 * A cart is kept as sent (UTF-8 bytes of its JSON) up to this: half of what one checkout's record
 * holds (STATE_BYTES_MAX, 60,000), the rest for its places, price and goods; a shop's cart of a
 * few hundred lines fits.
 */
export const CHECKOUT_CART_BYTES_MAX = 30_000;
/** The expiry timer's name. */
export const CHECKOUT_EXPIRY_TIMER = "checkout_expiry";
/** The timer that hands a booking of the checkout stopped between its steps to the sweep. */
export const CHECKOUT_STALL_TIMER = "checkout_booking_stalled";
/** The outbox of the sweep that completes or releases a stalled booking of a checkout. */
export const CHECKOUT_STALLED_OUTBOX = "business_checkout_stalled";
/**
 * How long a booking may hold a checkout before the sweep looks at it, and again after each look
 * while its trip is being made: past the trip's own stall (BOOKING_STALL_MS, 30 s), so a claimed
 * trip is completed by its sweep first and the checkout's sweep only finds the outcome.
 */
export const CHECKOUT_BOOKING_STALL_MS = 2 * 60_000;

export const CHECKOUT_STATUSES = ["open", "booking", "booked", "cancelled", "expired"] as const;
export type CheckoutStatus = typeof CHECKOUT_STATUSES[number];

/**
 * spec: business 4.1: the hold lapsed at expires_at, whether or not the expiry timer fired yet (a
 * scheduler running late, an instance restarting): from then a booking is refused
 * checkout_expired and a cancel finds it expired.
 */
export function holdLapsed(
  c: { readonly status: CheckoutStatus; readonly expires_at: number },
  now: number,
): boolean {
  return c.status === "open" && now >= c.expires_at;
}

/** A checkout as it stands at `now`: one whose hold lapsed is expired, released at expires_at. */
export function checkoutAsOf<
  C extends {
    readonly status: CheckoutStatus;
    readonly expires_at: number;
    readonly released_at: number | null;
  },
>(c: C, now: number): C {
  return holdLapsed(c, now) ? { ...c, status: "expired", released_at: c.expires_at } : c;
}

const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/**
 * `CO-` and 12 characters of Crockford base 32: derived from the business and the shop's
 * `cart_reference` (else its Idempotency-Key), so a retry reaches the same checkout; random
 * without either.
 */
export function checkoutReference(
  businessId: string,
  key: { readonly kind: "cart_reference" | "idempotency_key"; readonly value: string } | null,
  random: () => string,
): string {
  const hex = sha256Hex(key ? `${businessId}\n${key.kind}\n${key.value}` : random());
  let out = "";
  for (let i = 0; i < 12; i++) out += ALPHABET[parseInt(hex.slice(i * 2, i * 2 + 2), 16) % 32];
  return `CO-${out}`;
}
