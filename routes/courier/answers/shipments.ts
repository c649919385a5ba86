/**
 * Courier 2.3: a shipment as booked, with its frozen pricing and service terms, and as found by
 * search with its next obligation and health.
 */
import type { Shipment } from "../../../actors/courier/shipment/mod.ts";
import {
  HEADLINES,
  HEALTHS,
  MILESTONES,
  OWNER_ROLES,
} from "../../../src/courier/rules/lifecycle.ts";
import { decimal } from "../../../src/domain/money.ts";
import { z } from "../../../src/http/route.ts";
import { CalendarDay, Country, Currency, Money, UtcInstant } from "../../../src/http/schemas.ts";
import { PriceLineAnswer } from "./booking.ts";
import { Settlement } from "./schemas.ts";
import { frozenServiceTermsView, ServiceTermsAnswer } from "./service_levels.ts";

/** spec: courier 2.3: the frozen pricing snapshot (pricingView). */
export const FrozenPricingAnswer = z.object({
  prices_reference: z.string(),
  rate_card_id: z.string(),
  rate_card_version: z.number().int(),
  service_level: z.string(),
  service_name: z.string(),
  chargeable_kg: z.number(),
  lines: z.array(PriceLineAnswer),
  tax: Money,
  total: Money,
  currency: Currency,
  payer: z.enum(["client"]),
  settlement_mode: Settlement,
  promise: z.object({
    collection_on: CalendarDay,
    earliest_delivery: CalendarDay,
    latest_delivery: CalendarDay,
  }).openapi("DeliveryPromise"),
}).openapi("FrozenPricing");

const PartyAnswer = z.object({
  name: z.string().nullable(),
  address: z.string().nullable(),
  phone: z.string().nullable(),
  lat: z.number().nullable(),
  lng: z.number().nullable(),
}).openapi("ShipmentParty");

/** A shipment as booked, with its frozen pricing and service terms (shipmentDetailView). */
const ShipmentDetailFields = {
  waybill: z.string(),
  status: z.enum(HEADLINES),
  booked_at: UtcInstant,
  from_country: Country,
  to_country: Country,
  sender: PartyAnswer,
  recipient: PartyAnswer,
  parcels: z.array(
    z.object({
      weight_kg: z.number(),
      length_cm: z.number(),
      width_cm: z.number(),
      height_cm: z.number(),
      contents: z.string().optional().openapi({ description: "As booked for this parcel" }),
    }).openapi("Parcel"),
  ),
  contents: z.string().nullable(),
  declared_value: Money.nullable().openapi({
    description: "As priced, in the pricing currency; null when none was declared",
  }),
  liability_cover: z.boolean().openapi({ description: "Whether liability cover was asked" }),
  external_customer_code: z.string().nullable(),
  external_billing_reference: z.string().nullable(),
  client_order_reference: z.string().nullable(),
  dangerous_goods_confirmed: z.boolean(),
  pricing: FrozenPricingAnswer,
  service_terms: ServiceTermsAnswer,
};

/** spec: courier 2.3: a found shipment with its next obligation and health (searchRowView). */
export const ShipmentFoundAnswer = z.object({
  ...ShipmentDetailFields,
  health: z.enum(HEALTHS).nullable(),
  next_milestone: z.enum(MILESTONES).nullable(),
  next_due_at: UtcInstant.nullable(),
  next_owner: z.enum(OWNER_ROLES).nullable(),
  estimated_delivery_on: CalendarDay,
}).openapi("ShipmentFound");

/** The fields a shipment read shows (no tracking token: callers add the tracking_url). */
export type ShipmentFields = Omit<Shipment, "tracking_token" | "tracking_token_hash">;

export function shipmentDetailView(s: ShipmentFields) {
  return {
    waybill: s.waybill,
    status: s.status,
    booked_at: new Date(s.booked_at).toISOString(),
    from_country: s.from_country,
    to_country: s.to_country,
    sender: s.sender,
    recipient: s.recipient,
    parcels: s.parcels,
    contents: s.contents,
    // spec: courier 2.3: the frozen pricing snapshot keeps its inputs, these two with the parcels.
    declared_value: s.declared_value_minor === null
      ? null
      : decimal(s.declared_value_minor, s.pricing.currency),
    liability_cover: s.liability_cover,
    external_customer_code: s.references.external_customer_code,
    external_billing_reference: s.references.external_billing_reference,
    client_order_reference: s.references.client_order_reference,
    dangerous_goods_confirmed: s.dangerous_goods_confirmed,
    pricing: pricingView(s.pricing),
    service_terms: frozenServiceTermsView(s.service_terms),
  };
}

/** A shipment's frozen pricing snapshot (courier 2.3), amounts as decimals in its currency. */
export function pricingView(pricing: Shipment["pricing"]) {
  const cur = pricing.currency;
  return {
    prices_reference: pricing.prices_reference,
    rate_card_id: pricing.rate_card_id,
    rate_card_version: pricing.rate_card_version,
    service_level: pricing.service.code,
    service_name: pricing.service.name,
    chargeable_kg: pricing.chargeable_grams / 1000,
    lines: pricing.lines.map((l) => ({
      code: l.code,
      label: l.label,
      amount: decimal(l.amount_minor, cur),
      ...(l.included === undefined ? {} : { included: l.included }),
      ...(l.tax_minor === undefined ? {} : { tax: decimal(l.tax_minor, cur) }),
    })),
    tax: decimal(pricing.tax_minor, cur),
    total: decimal(pricing.total_minor, cur),
    currency: cur,
    payer: pricing.payer,
    settlement_mode: pricing.settlement_mode,
    promise: pricing.promise,
  };
}

/**
 * spec: courier 2.3: every shipment carries next_milestone, next_due_at, next_owner,
 * estimated_delivery_on, its headline status and (3.2, what operations sees) its health.
 */
export function searchRowView(s: ShipmentFields) {
  // A row projected before the lifecycle (shipment version 1) has none of these: null.
  return {
    ...shipmentDetailView(s),
    health: s.health ?? null,
    next_milestone: s.next_milestone ?? null,
    next_due_at: typeof s.next_due_at === "number" ? new Date(s.next_due_at).toISOString() : null,
    next_owner: s.next_owner ?? null,
    estimated_delivery_on: s.estimated_delivery_on ?? s.pricing.promise.earliest_delivery,
  };
}
