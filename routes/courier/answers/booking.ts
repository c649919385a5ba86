/**
 * Courier 2.1, 2.2, 4.1, 4.6: the price request and one-call booking request schemas, and the
 * answers of pricing and booking (held prices, a saved quote, a booking) with their views.
 */
import type { Context } from "hono";
import type { OfferOption, PriceOffer } from "../../../actors/courier/price_offer.ts";
import {
  type Booked,
  REQUEST_RETRY_AFTER_SECONDS,
} from "../../../src/courier/flows/booking/mod.ts";
import { HEADLINES } from "../../../src/courier/rules/lifecycle.ts";
import { PRICE_LINE_CODES } from "../../../src/courier/rules/pricing.ts";
import { decimal } from "../../../src/domain/money.ts";
import type { AppEnv } from "../../../src/http/context.ts";
import { retryAfter } from "../../../src/http/errors.ts";
import { IdempotencyKey } from "../../../src/http/idempotency.ts";
import { z } from "../../../src/http/route.ts";
import {
  CalendarDay,
  Country,
  Currency,
  Money,
  Phone,
  UtcInstant,
} from "../../../src/http/schemas.ts";
import { Settlement } from "./schemas.ts";
import { trackingUrl } from "./tracking.ts";

const PARCELS_MAX = 50;

/**
 * For a one-call booking's `.catch`: request_in_progress answered with `Retry-After`, as business
 * 7 defines the code (another request holding the key is usually done within it).
 */
export const withRequestRetryAfter = retryAfter(
  ["request_in_progress"],
  REQUEST_RETRY_AFTER_SECONDS,
);

const Decimal = z.union([z.number().nonnegative(), z.string().regex(/^\d+(\.\d+)?$/)]);
const Text = (max: number) => z.string().trim().min(1).max(max);

/**
 * A domestic parcel as a client sends one: the examples the documents and the Postman collection
 * show (sampled, its places were -90, -180 and its texts "string").
 */
export const PARCEL_EXAMPLE = {
  sender_name: "Molapo Pharmacy",
  sender_address: "Plot 123, Main Mall, Gaborone",
  recipient_name: "Neo Kgosi",
  recipient_phone: "+26771234567",
  recipient_address: "Plot 9, Block 8, Gaborone",
  parcels: [{ weight_kg: 2.5, length_cm: 30, width_cm: 20, height_cm: 10 }],
  contents: "Medicines",
  from_country: "BW",
  to_country: "BW",
  client_order_reference: "ORDER-1001",
};

/** spec: courier 2.1: the price request. */
export const PriceRequest = z.object({
  sender_name: Text(200).optional(),
  sender_address: Text(500).optional(),
  sender_lat: z.number().min(-90).max(90).optional(),
  sender_lng: z.number().min(-180).max(180).optional(),
  recipient_name: Text(200).optional(),
  recipient_phone: Phone.optional(),
  recipient_address: Text(500).optional(),
  recipient_lat: z.number().min(-90).max(90).optional(),
  recipient_lng: z.number().min(-180).max(180).optional(),
  parcels: z.array(z.object({
    weight_kg: z.number().positive().max(100_000),
    length_cm: z.number().positive().max(10_000),
    width_cm: z.number().positive().max(10_000),
    height_cm: z.number().positive().max(10_000),
    // spec: courier 4.6: the packing slip has one page per piece, from the parcels' contents.
    contents: Text(500).optional().openapi({
      description: "What this parcel holds (its packing slip page); else the shipment's contents",
    }),
  })).min(1).max(PARCELS_MAX),
  contents: Text(500).optional(),
  declared_value: Decimal.optional(),
  liability_cover: z.boolean().default(false),
  from_country: Country,
  to_country: Country,
  external_customer_code: Text(120).optional(),
  external_billing_reference: Text(120).optional(),
  client_order_reference: Text(120).optional(),
  sort: z.enum(["cheapest"]).optional().openapi({
    description: "`cheapest`: options by total, lowest first; options of equal total keep the " +
      "catalogue's order (service levels in their creation order), the order without sort",
  }),
}).openapi("PriceRequest", { example: PARCEL_EXAMPLE });

export type PriceRequestBody = z.infer<typeof PriceRequest>;

/** spec: courier 2.1 plus the booking fields of 4.1; one shipment of POST /client/shipments. */
export const ShipmentRequest = PriceRequest.extend({
  service_level: z.string().trim().min(1).max(64).openapi({ example: "express" }),
  dangerous_goods_confirmed: z.boolean().default(false),
  idempotency_key: IdempotencyKey.optional(),
}).openapi("ShipmentRequest", {
  example: { ...PARCEL_EXAMPLE, service_level: "express", dangerous_goods_confirmed: false },
});

export type ShipmentRequestBody = z.infer<typeof ShipmentRequest>;

/** What the OpenAPI document says of replays on the routes that price and book in one call. */
export const ONE_CALL_BOOKING_DOCS = {
  replay:
    "The same Idempotency-Key or idempotency_key, or client_order_reference under unique_external_reference",
  idempotencyKey: "Books once per key: the same request again answers 200 `already_booked: " +
    "true`; the same key with other details answers 409",
} as const;

/**
 * A row's `service_level` that is none of the courier's service levels, as its refusal; null when
 * it is one (or absent, which the row's schema reports). Bulk and CSV rows check it with their
 * other fields, so one answer names every problem of a row (pricing, which needs a valid row,
 * later refuses a known level the route does not offer).
 */
export function unknownServiceLevel(value: unknown, known: readonly string[]): string | null {
  if (typeof value !== "string" || value === "" || known.includes(value)) return null;
  return `no such service level (the courier's: ${known.join(", ")}): ${value}`;
}

/** spec: courier 2.2: one price line (optionView, pricingView). */
export const PriceLineAnswer = z.object({
  code: z.enum(PRICE_LINE_CODES).openapi({
    description: "`transport` first and `tax` last; the others only when not 0",
  }),
  label: z.string(),
  amount: Money.openapi({
    description: "What the line adds to the total (a discount is negative; inclusive tax 0)",
  }),
  included: z.boolean().optional().openapi({
    description: "Tax line only: true when the tax is already within the price",
  }),
  tax: Money.optional().openapi({ description: "Tax line only: the tax" }),
}).openapi("PriceLine");

/** What one option of held prices or a quotation shows (optionView). */
export const PriceOptionAnswer = z.object({
  code: z.string().openapi({ description: "The service level: book it as `service_level`" }),
  name: z.string(),
  chargeable_kg: z.number().openapi({
    description: "Each parcel's larger of actual and volumetric weight, added up, in kg",
  }),
  lines: z.array(PriceLineAnswer).openapi({ description: "They add up to `total`" }),
  tax: Money,
  total: Money,
  currency: Currency,
  collection_on: CalendarDay,
  earliest_delivery: CalendarDay,
  latest_delivery: CalendarDay,
  possible_later_charges: z.string().optional().openapi({
    description: "Cross-border only: what may be billed later, each as its own charge",
  }),
}).openapi("PriceOption");

const OfferAccountAnswer = z.object({
  settlement_mode: Settlement,
  currency: Currency,
  available: Money.nullable().openapi({
    description: "What the account could cover when priced; null for external settlement",
  }),
}).openapi("OfferAccount");

/** POST /client/prices (and its aliases): held prices (offerView of kind `prices`). */
export const PricesAnswer = z.object({
  prices_reference: z.string().openapi({ description: "Book an option with POST /client/book" }),
  valid_until: UtcInstant.openapi({
    description: "Bookable up to and including this instant, then 422 prices_expired: the " +
      "operator's hold (default 30 minutes), ended sooner at the last instant before a " +
      "cut-off would move an option's collection past the day shown",
  }),
  options: z.array(PriceOptionAnswer),
  account: OfferAccountAnswer,
}).openapi("Prices");

/** POST /client/quotes: a saved quotation (offerView of kind `quote`). */
export const QuoteAnswer = z.object({
  quote_reference: z.string().openapi({
    description: "Book an option with POST /client/quotes/{reference}/book",
  }),
  prices_reference: z.string().openapi({ description: "The same reference as quote_reference" }),
  valid_until: UtcInstant.openapi({ description: "Held 7 days, until then inclusive" }),
  options: z.array(PriceOptionAnswer).openapi({
    description: "Dates as of today: booked later, the dates are those of the day of booking",
  }),
  account: OfferAccountAnswer,
}).openapi("Quote");

/** A booking's answer, new (201) or the same request again (200 `already_booked`). */
export const BookingAnswer = z.object({
  waybill: z.string(),
  tracking_url: z.url().openapi({ description: "The public tracking page" }),
  status: z.enum(HEADLINES),
  service_level: z.string(),
  total: Money.openapi({ description: "What was charged (the frozen price)" }),
  currency: Currency,
  prices_reference: z.string().openapi({
    description: "The held prices or quotation the booking was made from",
  }),
  collection_on: CalendarDay.openapi({
    description: "The dates the booking froze: a quotation booked days after it was saved gets " +
      "those of the day it is booked",
  }),
  earliest_delivery: CalendarDay,
  latest_delivery: CalendarDay,
  already_booked: z.boolean().openapi({
    description: "true: the same request again, answered with the booking it made (200)",
  }),
}).openapi("Booking");

export function optionView(o: OfferOption) {
  return {
    code: o.code,
    name: o.name,
    chargeable_kg: o.chargeable_grams / 1000,
    lines: o.lines.map((l) => ({
      code: l.code,
      label: l.label,
      amount: decimal(l.amount_minor, o.currency),
      ...(l.included === undefined ? {} : { included: l.included }),
      ...(l.tax_minor === undefined ? {} : { tax: decimal(l.tax_minor, o.currency) }),
    })),
    tax: decimal(o.tax_minor, o.currency),
    total: decimal(o.total_minor, o.currency),
    currency: o.currency,
    collection_on: o.collection_on,
    earliest_delivery: o.earliest_delivery,
    latest_delivery: o.latest_delivery,
    ...(o.possible_later_charges ? { possible_later_charges: o.possible_later_charges } : {}),
  };
}

export function offerView(o: PriceOffer) {
  const key = o.kind === "quote" ? "quote_reference" : "prices_reference";
  return {
    [key]: o.reference,
    prices_reference: o.reference,
    valid_until: new Date(o.valid_until).toISOString(),
    options: o.options.map(optionView),
    account: {
      settlement_mode: o.account.settlement_mode,
      currency: o.account.currency,
      available: o.account.available_minor === null
        ? null
        : decimal(o.account.available_minor, o.account.currency),
    },
  };
}

export function bookingView(c: Context<AppEnv>, b: Booked) {
  const s = b.shipment;
  return {
    waybill: s.waybill,
    tracking_url: trackingUrl(c, s.tracking_token),
    status: s.status,
    service_level: s.pricing.service.code,
    total: decimal(s.pricing.total_minor, s.pricing.currency),
    currency: s.pricing.currency,
    prices_reference: s.pricing.prices_reference,
    // The promise the booking froze (courier 2.3): the dates the prices showed (held prices past
    // the cut-off have expired), or, for a quote booked days later, that day's dates.
    ...s.pricing.promise,
    already_booked: b.already_booked,
  };
}
/** spec: courier 4.1: a saved quotation in the list (quoteListView). */
export const SavedQuoteAnswer = z.object({
  quote_reference: z.string(),
  status: z.enum(["open", "booked", "expired"]),
  created_at: UtcInstant,
  valid_until: UtcInstant,
  options: z.array(z.object({ code: z.string(), total: Money, currency: Currency })),
  booking: z.object({ waybill: z.string() }).nullable(),
}).openapi("SavedQuote");

/** A quotation as projected (priceOfferActor.project). */
export interface QuoteRow {
  reference: string;
  /** The copy it is booked under since its first booking was withdrawn (flows/booking/rebook). */
  rebooked_as?: string;
  valid_until: number;
  created_at: number;
  options: { code: string; total_minor: number; currency: string }[];
}

/**
 * A saved quote's state (courier 4.1, 8: held 7 days): `booked` once a booking made it, else
 * `open` up to and including its valid_until (as booking checks it), then `expired`.
 */
function quoteStatus(d: QuoteRow, waybill: string | null, now: number) {
  if (waybill !== null) return "booked";
  return now > d.valid_until ? "expired" : "open";
}

/** spec: courier 4.1: a saved quote with what it prices and, once booked, its waybill. */
export function quoteListView(d: QuoteRow, waybill: string | null, now: number) {
  return {
    quote_reference: d.reference,
    status: quoteStatus(d, waybill, now),
    created_at: new Date(d.created_at).toISOString(),
    valid_until: new Date(d.valid_until).toISOString(),
    options: d.options.map((o) => ({
      code: o.code,
      total: decimal(o.total_minor, o.currency),
      currency: o.currency,
    })),
    booking: waybill === null ? null : { waybill },
  };
}
