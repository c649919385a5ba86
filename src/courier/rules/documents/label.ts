/**
 * The client's shipping label (courier 4.6): 4 x 6 in, one page per piece, stuck on the piece.
 * Each page carries the piece's Code 39 barcode (`{waybill}-{n}`, its piece id), the waybill,
 * "piece n of N", both parties, the service, the route by country and the piece's weight. No money:
 * the input has none. Pure: the same facts give the same bytes.
 */
import { code39Modules } from "../../../domain/documents/barcode.ts";
import { newDocument, saved } from "../../../domain/documents/draw.ts";
import { type PageLayout, PageWriter } from "../../../domain/documents/page_writer.ts";
import { clip, clippedLines, dateTime } from "../../../domain/documents/text.ts";
import {
  type DocumentPiece,
  type DocumentResult,
  type ShipmentFacts,
  unencodableBarcode,
} from "./facts.ts";

/** 4 x 6 in, the common thermal label. */
export const LABEL_SIZE = [288, 432] as const;
const LAYOUT: PageLayout = { size: LABEL_SIZE, margin: 14, bottom: 14 };
const BARCODE_HEIGHT = 90;
/** Widest narrow bar, in points: a short id is not stretched further. */
const BARCODE_MODULE_MAX = 1.5;
const SENDER_ADDRESS_LINES = 2;
const RECIPIENT_ADDRESS_LINES = 3;

/** The label, one 4 x 6 in page per piece; refused when a barcode cannot be encoded. */
export async function labelPdf(facts: ShipmentFacts): Promise<DocumentResult> {
  const refused = unencodableBarcode(facts);
  if (refused) return { ok: false, ...refused };
  const [doc, fonts] = await newDocument({
    title: `Label ${facts.waybill}`,
    subject: facts.waybill,
    author: facts.courier_name,
    keywords: [facts.waybill, ...facts.pieces.map((p) => p.id)],
    at: facts.booked_at,
  });
  facts.pieces.forEach((piece, i) => {
    labelPage(new PageWriter(doc, fonts, LAYOUT), facts, piece, i + 1);
  });
  return { ok: true, pdf: await saved(doc), pages: doc.getPageCount() };
}

function labelPage(w: PageWriter, facts: ShipmentFacts, piece: DocumentPiece, n: number) {
  const { regular, bold, mono } = w.fonts;
  // A service level's code runs to 40 characters (courier 2.8): cut to half the label's width.
  const service = clip(facts.service.code.toUpperCase(), bold, 14, w.width / 2);
  w.right(service, { size: 14, line: 11 });
  const serviceWidth = bold.widthOfTextAtSize(service, 14) + 10;
  w.text(clip(facts.courier_name, bold, 11, w.width - serviceWidth), { font: bold, size: 11 });
  w.gap(4);
  w.rule();

  // Sender, small.
  const s = facts.sender;
  w.text(clip(`FROM  ${s.name ?? "-"}`, bold, 8, w.width), { font: bold, size: 8 });
  const size = { font: regular, size: 8, width: w.width };
  for (const line of clippedLines(s.address ?? "-", { ...size, max: SENDER_ADDRESS_LINES })) {
    w.text(line, { size: 8 });
  }
  w.text(clip(`${s.phone ? `Tel ${s.phone}    ` : ""}${facts.from_country}`, regular, 8, w.width), {
    size: 8,
  });
  w.rule();

  // Recipient, large.
  const r = facts.recipient;
  w.text("TO", { font: bold, size: 8 });
  w.text(clip(r.name ?? "-", bold, 13, w.width), { font: bold, size: 13 });
  const big = { font: regular, size: 11, width: w.width, max: RECIPIENT_ADDRESS_LINES };
  for (const line of clippedLines(r.address ?? "-", big)) w.text(line, { size: 11 });
  if (r.phone) w.text(clip(`Tel ${r.phone}`, regular, 11, w.width), { size: 11 });
  w.text(facts.to_country, { font: bold, size: 14 });
  w.rule();

  // Route, piece and weight.
  w.right(`${piece.weight_kg} kg`, { size: 16 });
  w.text(`${facts.from_country} > ${facts.to_country}`, { font: bold, size: 16 });
  const dims = `${piece.length_cm} x ${piece.width_cm} x ${piece.height_cm} cm`;
  w.right(dims, { size: 9, line: 14, font: regular });
  w.text(`Piece ${n} of ${facts.pieces.length}`, { font: bold, size: 14 });
  const serviceLine = `${facts.service.name} (${facts.service.code})`;
  w.text(clip(serviceLine, regular, 9, w.width), { size: 9 });
  w.gap(4);

  // The piece's barcode: checked encodable before any page was drawn.
  w.bars(code39Modules(piece.id)!, { height: BARCODE_HEIGHT, moduleMax: BARCODE_MODULE_MAX });
  w.text(piece.id, { font: mono, size: 11 });
  w.gap(2);
  w.text(facts.waybill, { font: mono, size: 20 });
  const order = facts.references.client_order_reference;
  const foot = `${order ? `Order ${order}    ` : ""}Booked ${dateTime(facts.booked_at)}`;
  w.text(clip(foot, regular, 7, w.width), { size: 7, grey: true });
}
