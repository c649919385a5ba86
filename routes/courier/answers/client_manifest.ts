/** Courier 4.6: the client's collection manifest, the shipments to hand to the driver today. */
import type { ShipmentSnapshot } from "../../../src/courier/queries/operations_row.ts";
import { z } from "../../../src/http/route.ts";
import { CalendarDay, UtcInstant } from "../../../src/http/schemas.ts";
import { COLLECTION_MANIFEST_SHIPMENTS_MAX } from "../../../src/limits.ts";

/** Headline statuses before collection (courier 3.2). */
export const AWAITING_COLLECTION = ["booked", "awaiting_collection"] as const;
/** One shipment to hand to the driver (manifestRow). */
const ManifestRowAnswer = z.object({
  waybill: z.string(),
  status: z.enum(AWAITING_COLLECTION),
  collection_on: CalendarDay.openapi({ description: "The promised collection date: today" }),
  sender: z.object({
    name: z.string().nullable(),
    address: z.string().nullable(),
  }).openapi("CollectionManifestSender"),
  recipient: z.object({
    name: z.string().nullable(),
    address: z.string().nullable(),
    phone: z.string().nullable(),
  }).openapi("CollectionManifestRecipient"),
  pieces: z.number().int(),
  weight_kg: z.number().openapi({ description: "The parcels' actual weights added up" }),
  service: z.object({ code: z.string(), name: z.string() }).openapi("CollectionManifestService"),
  references: z.object({
    external_customer_code: z.string().nullable(),
    external_billing_reference: z.string().nullable(),
    client_order_reference: z.string().nullable(),
  }).openapi("CollectionManifestReferences"),
}).openapi("CollectionManifestShipment");

export const ManifestAnswer = z.object({
  generated_at: UtcInstant,
  shipments: z.array(ManifestRowAnswer).openapi({
    description: `Earliest booked first, at most ${COLLECTION_MANIFEST_SHIPMENTS_MAX}`,
  }),
  totals: z.object({
    shipments: z.number().int(),
    pieces: z.number().int(),
    weight_kg: z.number(),
  }).openapi("CollectionManifestTotals"),
  truncated: z.boolean().openapi({
    description: "true: the list may be cut short (more than " +
      `${COLLECTION_MANIFEST_SHIPMENTS_MAX} shipments awaiting collection within a day of ` +
      "today); the totals are of those listed",
  }),
}).openapi("CollectionManifest");

/** Weights summed in grams, so totals are exact. */
export function grams(kg: number): number {
  return Math.round(kg * 1000);
}

export function manifestRow(s: ShipmentSnapshot) {
  const weight = s.parcels.reduce((n, p) => n + grams(p.weight_kg), 0);
  return {
    waybill: s.waybill,
    status: s.status,
    collection_on: s.pricing.promise.collection_on,
    sender: { name: s.sender.name, address: s.sender.address },
    recipient: {
      name: s.recipient.name,
      address: s.recipient.address,
      phone: s.recipient.phone,
    },
    pieces: s.parcels.length,
    weight_kg: weight / 1000,
    service: { code: s.pricing.service.code, name: s.pricing.service.name },
    references: {
      external_customer_code: s.references.external_customer_code,
      external_billing_reference: s.references.external_billing_reference,
      client_order_reference: s.references.client_order_reference,
    },
  };
}
