/**
 * The client's packing slip (courier 4.6): A4, one page per piece, packed inside it. Each page
 * says which piece it belongs in (`piece n of N`, the piece's barcode), what that piece holds
 * (the parcel's own contents when the booking gives them, else the shipment's), the parties and
 * the references. No money: the input has none. Pure: the same facts give the same bytes.
 */
import { PageSizes } from "pdf-lib";
import { code39Modules } from "../../../domain/documents/barcode.ts";
import { detailRows, footers, partyColumns } from "./blocks.ts";
import { newDocument, saved } from "../../../domain/documents/draw.ts";
import { type PageLayout, PageWriter } from "../../../domain/documents/page_writer.ts";
import { clip, clippedLines, dateTime } from "../../../domain/documents/text.ts";
import {
  type DocumentPiece,
  type DocumentResult,
  type ShipmentFacts,
  unencodableBarcode,
} from "./facts.ts";

const MARGIN = 40;
/** A fixed page: every piece's slip is exactly one page, long text is cut to fit. */
const LAYOUT: PageLayout = { size: PageSizes.A4, margin: MARGIN, bottom: 70 };
const BARCODE_HEIGHT = 48;
const BARCODE_MODULE_MAX = 1.7;
const ADDRESS_LINES_MAX = 5;
const CONTENTS_LINES_MAX = 12;
const LABEL_WIDTH = 150;

/** The packing slip, one A4 page per piece; refused when a barcode cannot be encoded. */
export async function clientPackingSlipPdf(facts: ShipmentFacts): Promise<DocumentResult> {
  const refused = unencodableBarcode(facts);
  if (refused) return { ok: false, ...refused };
  const [doc, fonts] = await newDocument({
    title: `Packing slip ${facts.waybill}`,
    subject: facts.waybill,
    author: facts.courier_name,
    keywords: [facts.waybill, ...facts.pieces.map((p) => p.id)],
    at: facts.booked_at,
  });
  facts.pieces.forEach((piece, i) => {
    slipPage(new PageWriter(doc, fonts, LAYOUT), facts, piece, i + 1);
  });
  const total = facts.pieces.length;
  footers(doc, fonts, {
    margin: MARGIN,
    text: (page) =>
      `${facts.waybill}    Piece ${page} of ${total}    Booked ${dateTime(facts.booked_at)}`,
  });
  return { ok: true, pdf: await saved(doc), pages: doc.getPageCount() };
}

function slipPage(w: PageWriter, facts: ShipmentFacts, piece: DocumentPiece, n: number) {
  const { bold, mono, regular } = w.fonts;
  const title = "PACKING SLIP";
  w.right(title, { size: 12, line: 16, grey: true });
  const nameWidth = w.width - bold.widthOfTextAtSize(title, 12) - 20;
  w.text(clip(facts.courier_name, bold, 16, nameWidth), { font: bold, size: 16 });
  w.gap(8);
  w.right(`Piece ${n} of ${facts.pieces.length}`, { size: 16, line: 30 });
  w.text(facts.waybill, { font: mono, size: 30 });
  w.gap(6);
  // Checked encodable before the document was started.
  w.bars(code39Modules(piece.id)!, { height: BARCODE_HEIGHT, moduleMax: BARCODE_MODULE_MAX });
  w.text(piece.id, { font: mono, size: 11 });
  const service = `${facts.service.name} (${facts.service.code})`;
  const line = `Booked ${dateTime(facts.booked_at)}    Service ${service}    ` +
    `${facts.from_country} > ${facts.to_country}`;
  w.text(clip(line, regular, 10, w.width));
  w.rule();
  partyColumns(
    w,
    { label: "FROM", party: facts.sender },
    { label: "TO", party: facts.recipient },
    { addressLines: ADDRESS_LINES_MAX },
  );
  w.rule();

  w.text("In this piece", { font: bold, size: 12 });
  const contents = piece.contents ?? facts.contents ?? "-";
  const lines = { font: regular, size: 11, width: w.width, max: CONTENTS_LINES_MAX };
  for (const text of clippedLines(contents, lines)) w.text(text, { size: 11 });
  w.gap(4);
  const r = facts.references;
  detailRows(w, [
    ["Weight", `${piece.weight_kg} kg`],
    ["Dimensions (L x W x H)", `${piece.length_cm} x ${piece.width_cm} x ${piece.height_cm} cm`],
    ...(piece.contents !== null && facts.contents !== null
      ? [["Shipment contents", facts.contents] as const]
      : []),
    ["Client order reference", r.client_order_reference ?? "-"],
    ["External customer code", r.external_customer_code ?? "-"],
    ["External billing reference", r.external_billing_reference ?? "-"],
    ["Dangerous goods confirmed", facts.dangerous_goods_confirmed ? "Yes" : "No"],
  ], { labelWidth: LABEL_WIDTH, maxLines: 3 });
  w.rule();
  w.text("Track this shipment", { font: bold, size: 9 });
  const url = { font: regular, size: 9, width: w.width, max: 3 };
  for (const text of clippedLines(facts.tracking_url, url)) w.text(text, { size: 9 });
}
