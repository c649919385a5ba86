/**
 * Courier 4.5: the courier's packing slip, a PDF that travels with the parcel (no money on it).
 * Another courier's waybill is not found.
 */
import { asBusiness, businessActor } from "../../actors/business.ts";
import { asShipment, type Shipment, shipmentActor } from "../../actors/shipment.ts";
import { type PackingSlipInput, packingSlipPdf } from "../../src/domain/packing_slip.ts";
import type { Api } from "../../src/http/app.ts";
import { business, businessPrincipalOf, courierPlatform } from "../../src/http/auth.ts";
import { define, z } from "../../src/http/route.ts";
import { ask } from "../ask.ts";
import { trackingUrl } from "./booking_flow.ts";

const tag = "Packing slips";
const view = [business({ scope: "shipments:view-own" }), courierPlatform];

/** The slip's facts from the shipment: the frozen pricing gives only its service. */
function slipInput(
  s: Shipment,
  o: { courierName: string; trackingUrl: string; now: number },
): PackingSlipInput {
  const party = (p: Shipment["sender"]) => ({ name: p.name, address: p.address, phone: p.phone });
  return {
    courier_name: o.courierName,
    waybill: s.waybill,
    booked_at: s.booked_at,
    printed_at: o.now,
    service: { code: s.pricing.service.code, name: s.pricing.service.name },
    sender: party(s.sender),
    recipient: party(s.recipient),
    pieces: s.parcels.map((p, i) => ({
      id: s.pieces[i]?.id ?? `${s.waybill}-${i + 1}`,
      weight_kg: p.weight_kg,
      length_cm: p.length_cm,
      width_cm: p.width_cm,
      height_cm: p.height_cm,
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

export function packingSlipRoutes(api: Api): void {
  define(api, {
    method: "get",
    path: "/business/shipments/{waybill}/packing-slip",
    summary: "The courier's packing slip (PDF, A4): parties, pieces, references, barcode; " +
      "never prices or declared value",
    tag,
    security: "business",
    middleware: view,
    params: z.object({ waybill: z.string().trim().min(1).max(64) }),
  }, async (c, { params }) => {
    const courierId = businessPrincipalOf(c).business.id;
    const shipment = asShipment(
      await ask(c, shipmentActor, courierId, params.waybill, { kind: "get" }),
    );
    const courier = asBusiness(await ask(c, businessActor, courierId, courierId, { kind: "get" }));
    const pdf = await packingSlipPdf(slipInput(shipment, {
      courierName: courier.profile.name,
      trackingUrl: trackingUrl(c, shipment.tracking_token),
      now: c.get("env").clock.now(),
    }));
    return new Response(pdf, {
      headers: {
        "Content-Type": "application/pdf",
        "Content-Disposition": `inline; filename="packing-slip-${shipment.waybill}.pdf"`,
        "Cache-Control": "no-store",
      },
    });
  });
}
