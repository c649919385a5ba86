/**
 * A shipment's facts for its paper (courier 4.5, 4.6): copied out of the shipment's state for the
 * pure layouts in `src/domain/documents/`. The frozen pricing (courier 2.3) goes only into the
 * waybill's facts; labels and packing slips get none of it but the service.
 */
import type { Shipment } from "../../../actors/courier/shipment/mod.ts";
import type { ShipmentFacts, WaybillFacts } from "../rules/documents/facts.ts";

export interface DocumentContext {
  readonly courierName: string;
  readonly trackingUrl: string;
}

export function shipmentFacts(s: Shipment, o: DocumentContext): ShipmentFacts {
  const party = (p: Shipment["sender"]) => ({ name: p.name, address: p.address, phone: p.phone });
  return {
    courier_name: o.courierName,
    waybill: s.waybill,
    booked_at: s.booked_at,
    service: { code: s.pricing.service.code, name: s.pricing.service.name },
    from_country: s.from_country,
    to_country: s.to_country,
    sender: party(s.sender),
    recipient: party(s.recipient),
    pieces: s.parcels.map((p, i) => ({
      id: s.pieces[i]?.id ?? `${s.waybill}-${i + 1}`,
      weight_kg: p.weight_kg,
      length_cm: p.length_cm,
      width_cm: p.width_cm,
      height_cm: p.height_cm,
      // A parcel's own contents, when the booking carries them per parcel.
      contents: p.contents ?? null,
    })),
    contents: s.contents,
    references: {
      client_order_reference: s.references.client_order_reference,
      external_customer_code: s.references.external_customer_code,
      external_billing_reference: s.references.external_billing_reference,
    },
    dangerous_goods_confirmed: s.dangerous_goods_confirmed,
    tracking_url: o.trackingUrl,
  };
}

/** The waybill's facts: the shipment's, the promise and the frozen price lines (courier 2.3). */
export function waybillFacts(s: Shipment, o: DocumentContext): WaybillFacts {
  const p = s.pricing;
  return {
    ...shipmentFacts(s, o),
    promise: p.promise,
    declared_value_minor: s.declared_value_minor,
    liability_cover: s.liability_cover,
    pricing: {
      prices_reference: p.prices_reference,
      rate_card_version: p.rate_card_version,
      chargeable_kg: p.chargeable_grams / 1000,
      lines: p.lines.map((l) => ({
        code: l.code,
        label: l.label,
        amount_minor: l.amount_minor,
        ...(l.included === undefined ? {} : { included: l.included }),
        ...(l.tax_minor === undefined ? {} : { tax_minor: l.tax_minor }),
      })),
      total_minor: p.total_minor,
      currency: p.currency,
      payer: p.payer,
      settlement_mode: p.settlement_mode,
    },
  };
}
