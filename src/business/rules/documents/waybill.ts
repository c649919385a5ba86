/**
 * The printable waybill of a Business API trip (4.1 GET /business/trips/{id}/waybill): the
 * reference as a barcode, sender and recipient, what travels and how, cash to collect, and lines
 * for the driver's and the recipient's signatures. Never the delivery code (the recipient's
 * secret) or the custody code: the paper travels on the parcel. Pure.
 */
import { detailRows } from "../../../domain/documents/blocks.ts";
import { dateTime } from "../../../domain/documents/text.ts";
import type { TripFacts } from "./facts.ts";
import { finished, money, openDocument, signatureLine, titledPage } from "./page.ts";

const LABEL_WIDTH = 120;

export async function waybillPdf(f: TripFacts): Promise<Uint8Array<ArrayBuffer>> {
  const o = await openDocument("Waybill", f);
  const w = titledPage(o, "Waybill", f);
  detailRows(w, [
    ["Booked", dateTime(f.booked_at)],
    ["Order number", f.order_number],
    ["Collection", f.pickup_at === null ? "As soon as booked" : dateTime(f.pickup_at)],
  ], { labelWidth: LABEL_WIDTH });
  w.rule();
  detailRows(w, [
    ["Sender", f.sender.name ?? "-"],
    ["Collect from", f.sender.address],
    ["Recipient", f.recipient.name ?? "-"],
    ["Phone", f.recipient.phone ?? "-"],
    ...f.stops.map((s, i): [string, string] => [`Stop ${i + 1}`, s]),
    ["Deliver to", f.recipient.address],
  ], { labelWidth: LABEL_WIDTH, maxLines: 3 });
  w.rule();
  detailRows(w, [
    ["Service", f.service],
    ["Vehicle", f.vehicle],
    ["Parcel size", f.parcel_size ?? "-"],
    ["Weight", f.weight_kg === null ? "-" : `${f.weight_kg} kg`],
    ["Pieces", String(f.pieces ?? 1)],
    [
      "Cash on delivery",
      f.cod_amount_minor === null ? "None" : money(f.cod_amount_minor, f.currency),
    ],
    ["At the door", f.age_verification_required ? "Check the recipient's photo ID" : "-"],
    ["Handover", f.handover_required ? "Collect once the store marks the order ready" : "-"],
  ], { labelWidth: LABEL_WIDTH });
  w.rule();
  signatureLine(w, "Collected by (driver), date and time");
  signatureLine(w, "Received by (recipient's name and signature), date and time");
  return await finished(o, `Waybill ${f.reference}`);
}
