/**
 * Courier 4.6, the client's paper: the label (one 4 x 6 in page per piece), the waybill (with the
 * client's own price lines) and the packing slip (one page per piece), as PDFs. Only the calling
 * client's shipments: another client's waybill is not found.
 */
import type { Context } from "hono";
import {
  type DocumentContext,
  shipmentFacts,
  waybillFacts,
} from "../../src/courier/flows/documents.ts";
import { clientShipmentPaper } from "../../src/courier/flows/paper.ts";
import type { DocumentResult } from "../../src/courier/rules/documents/facts.ts";
import type { Shipment } from "../../actors/courier/shipment/mod.ts";
import type { Api } from "../../src/http/app.ts";
import { client, clientPrincipalOf } from "../../src/courier/auth.ts";
import type { AppEnv } from "../../src/http/context.ts";
import { ApiError } from "../../src/http/errors.ts";
import { define, z } from "../../src/http/route.ts";
import { Waybill } from "../../src/http/schemas.ts";
import { trackingUrl } from "./answers/tracking.ts";

const tag = "Client documents";

// Each drawing loaded on first use: pdf-lib's import costs every start and every test file's
// isolate about 450 ms, and most never draw a document.
const label = () => import("../../src/courier/rules/documents/label.ts");
const waybill = () => import("../../src/courier/rules/documents/waybill.ts");
const packingSlip = () => import("../../src/courier/rules/documents/client_packing_slip.ts");

/** spec: courier 4.6: each document, its path suffix and its layout. */
const DOCUMENTS: readonly {
  readonly name: "label" | "waybill" | "packing-slip";
  readonly summary: string;
  readonly make: (s: Shipment, o: DocumentContext) => Promise<DocumentResult>;
}[] = [
  {
    name: "label",
    summary: "The shipping label (PDF, 4 x 6 in), one page per piece, each with the piece's " +
      "Code 39 barcode (`{waybill}-{n}`); no money",
    make: async (s, o) => (await label()).labelPdf(shipmentFacts(s, o)),
  },
  {
    name: "waybill",
    summary: "The waybill (consignment note, PDF, A4): parties, references, pieces, service and " +
      "promise, contents, dangerous goods, the waybill barcode, and the frozen price lines",
    make: async (s, o) => (await waybill()).waybillPdf(waybillFacts(s, o)),
  },
  {
    name: "packing-slip",
    summary: "The packing slip (PDF, A4), one page per piece with what that piece holds; no money",
    make: async (s, o) => (await packingSlip()).clientPackingSlipPdf(shipmentFacts(s, o)),
  },
];

/** The caller's own shipment and what its paper needs besides: the courier's name, the link. */
async function ownShipment(c: Context<AppEnv>, waybill: string) {
  const p = clientPrincipalOf(c);
  const { shipment, courierName } = await clientShipmentPaper(c.get("env").runtime, {
    tenant: p.business.id,
    clientId: p.client_id,
    waybill,
  });
  const context: DocumentContext = {
    courierName,
    trackingUrl: trackingUrl(c, shipment.tracking_token),
  };
  return { shipment, context };
}

export function clientDocumentRoutes(api: Api): void {
  for (const doc of DOCUMENTS) {
    define(api, {
      method: "get",
      path: `/client/shipments/{waybill}/${doc.name}`,
      summary: doc.summary,
      tag,
      security: "client",
      middleware: [client()],
      params: z.object({ waybill: Waybill }),
      produces: "application/pdf",
      refusals: {
        barcode_unencodable: "the waybill or a piece id has a character a Code 39 barcode " +
          "cannot carry",
        shipment_cancelled: "the shipment was cancelled: it will not be carried",
      },
    }, async (c, { params }) => {
      const { shipment, context } = await ownShipment(c, params.waybill);
      // spec: courier 4.6: the paper is for handing the parcels over; a cancelled shipment is not
      // collected or carried (3.2), and a label printed for it would send a parcel nobody pays for.
      if (shipment.status === "cancelled") {
        throw new ApiError(
          "shipment_cancelled",
          `the shipment was cancelled, so it has no ${doc.name}: ${shipment.waybill}`,
        );
      }
      const made = await doc.make(shipment, context);
      if (!made.ok) throw new ApiError(made.code, made.message);
      return new Response(made.pdf, {
        headers: {
          "Content-Type": "application/pdf",
          "Content-Disposition": `inline; filename="${shipment.waybill}-${doc.name}.pdf"`,
          "Cache-Control": "private, no-store",
        },
      });
    });
  }
}
