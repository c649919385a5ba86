/**
 * Courier 4.5: the courier's packing slip, a PDF that travels with the parcel (no money on it).
 * Another courier's waybill is not found; a cancelled shipment's is refused, as the client's is.
 */
import { asBusiness, businessActor } from "../../actors/platform/business/mod.ts";
import { asShipment, shipmentActor } from "../../actors/courier/shipment/mod.ts";
import { shipmentFacts } from "../../src/courier/flows/documents.ts";
import type { Api } from "../../src/http/app.ts";
import { business } from "../../src/platform/auth/auth.ts";
import { businessCall } from "../../src/platform/auth/caller.ts";
import { courierPlatform } from "../../src/courier/auth.ts";
import { define, z } from "../../src/http/route.ts";
import { Waybill } from "../../src/http/schemas.ts";
import { read } from "../../src/http/ask.ts";
import { ApiError } from "../../src/http/errors.ts";
import { trackingUrl } from "./answers/tracking.ts";

const tag = "Packing slips";
const view = [business({ scope: "shipments:view-own" }), courierPlatform];

export function packingSlipRoutes(api: Api): void {
  define(api, {
    method: "get",
    path: "/business/shipments/{waybill}/packing-slip",
    summary: "The courier's packing slip (PDF, A4): parties, pieces, references, barcode; " +
      "never prices or declared value",
    tag,
    security: "business",
    middleware: view,
    params: z.object({ waybill: Waybill }),
    produces: "application/pdf",
    refusals: {
      shipment_cancelled: "the shipment was cancelled: it will not be carried",
    },
  }, async (c, { params }) => {
    const { env, tenant } = businessCall(c);
    const shipment = asShipment(
      await read(c, shipmentActor, tenant, params.waybill, { kind: "get" }),
    );
    // spec: courier 4.6, 3.2: a cancelled shipment is not carried; its slip would go with a parcel
    // nobody ships, so the courier's refuses as the client's own paper does.
    if (shipment.status === "cancelled") {
      throw new ApiError(
        "shipment_cancelled",
        `the shipment was cancelled, so it has no packing-slip: ${shipment.waybill}`,
      );
    }
    const courier = asBusiness(await read(c, businessActor, tenant, tenant, { kind: "get" }));
    // Loaded on first use: pdf-lib's import costs every start about 450 ms.
    const { packingSlipPdf } = await import(
      "../../src/courier/rules/documents/courier_packing_slip.ts"
    );
    const pdf = await packingSlipPdf({
      ...shipmentFacts(shipment, {
        courierName: courier.profile.name,
        trackingUrl: trackingUrl(c, shipment.tracking_token),
      }),
      printed_at: env.clock.now(),
    });
    return new Response(pdf, {
      headers: {
        "Content-Type": "application/pdf",
        "Content-Disposition": `inline; filename="packing-slip-${shipment.waybill}.pdf"`,
        "Cache-Control": "no-store",
      },
    });
  });
}
