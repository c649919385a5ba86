/** What the checkout routes answer (Business API 4.1 checkouts): the option held, its price. */
import type { Checkout } from "../../../actors/business/checkout.ts";
import { CHECKOUT_STATUSES } from "../../../src/business/rules/checkout.ts";
import { iso } from "../../../src/domain/iso.ts";
import { z } from "../../../src/http/route.ts";
import { orNull } from "../../../src/http/schemas.ts";
import { FareEstimateAnswer, fareEstimateView } from "./reference_data.ts";
import { PlaceAnswer } from "./trips.ts";

export const CheckoutAnswer = FareEstimateAnswer.extend({
  reference: z.string().openapi({ example: "CO-7Q2M9X4K1C0D" }),
  status: z.enum(CHECKOUT_STATUSES).openapi({
    description: "open: the price is held until expires_at; booking: a booking naming it is " +
      "being made; booked: trip_reference is its trip; cancelled or expired: released",
  }),
  cart_reference: orNull(z.string()),
  cart: orNull(z.record(z.string(), z.unknown())),
  pickup: PlaceAnswer,
  stops: z.array(PlaceAnswer),
  dest: PlaceAnswer,
  created_at: z.string(),
  expires_at: z.string().openapi({ description: "Until then the price is held (UTC)" }),
  released_at: orNull(z.string()),
  cancel_reason: orNull(z.string()),
  trip_reference: orNull(z.string()),
  replayed: z.boolean().optional().openapi({
    description: "true: the same request answered again (nothing changed)",
  }),
}).openapi("Checkout");

export function checkoutView(
  c: Checkout,
  o: { readonly replayed?: boolean } = {},
): z.infer<typeof CheckoutAnswer> {
  return {
    ...fareEstimateView(c.price),
    reference: c.reference,
    status: c.status,
    cart_reference: c.cart_reference,
    cart: c.cart ? { ...c.cart } : null,
    pickup: { ...c.pickup },
    stops: c.stops.map((s) => ({ ...s })),
    dest: { ...c.dest },
    created_at: iso(c.created_at),
    expires_at: iso(c.expires_at),
    released_at: c.released_at === null ? null : iso(c.released_at),
    cancel_reason: c.cancel_reason,
    trip_reference: c.trip_reference,
    ...(o.replayed ? { replayed: true } : {}),
  };
}
