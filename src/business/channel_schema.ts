/**
 * A partner sales channel's event as a schema (Business API 5.9, 6 last line), and its order as a
 * booking of 2.1: a parcel from the pickup to the drop-off for the recipient, its items the
 * order's lines, the order's external_reference the booking's (the retry contract).
 */
import { z } from "../http/route.ts";
import type { BookingRequest } from "./flows/book.ts";
import { EXTERNAL_REFERENCE_CHARS_MAX } from "./rules/booking.ts";
import { Text } from "./booking_schema.ts";

const Place = z.object({
  address: Text(300),
  lat: z.number().min(-90).max(90),
  lng: z.number().min(-180).max(180),
});

export const ChannelOrder = z.object({
  external_reference: Text(EXTERNAL_REFERENCE_CHARS_MAX).openapi({
    description: "The channel's order number: the trip's external_reference, so the same event " +
      "again answers the first trip",
  }),
  pickup: Place,
  dropoff: Place,
  recipient: z.object({ name: Text(200), phone: Text(40).optional() }),
  items: z.array(z.object({ name: Text(200), qty: z.number().int().min(1).max(10_000) }))
    .min(1).max(200),
  note: z.string().max(1_000).optional(),
  cod_amount: z.number().min(0).max(1_000_000).optional(),
  age_verification_required: z.boolean().optional(),
  parcel_size: Text(32).optional(),
}).openapi("ChannelOrder");

export const ChannelEvent = z.object({
  type: Text(60).openapi({ description: "order.created; any other type is refused (422)" }),
  id: Text(120).openapi({ description: "The channel's id of this event" }),
  order: ChannelOrder.optional().openapi({ description: "Required by order.created" }),
}).openapi("ChannelEvent");

export type ChannelOrderBody = z.infer<typeof ChannelOrder>;

/** The booking an order asks for: a parcel for its recipient, sold by the channel `source`. */
export function channelOrderBooking(source: string, o: ChannelOrderBody): BookingRequest {
  return {
    type: "parcel",
    passenger_name: o.recipient.name,
    passenger_phone: o.recipient.phone,
    pickup: o.pickup,
    dest: o.dropoff,
    external_reference: o.external_reference,
    order_payload: { store_name: source, items: o.items },
    item_names: o.items.map((i) => i.name),
    note: o.note,
    cod_amount: o.cod_amount,
    age_verification_required: o.age_verification_required,
    parcel_size: o.parcel_size,
  };
}
