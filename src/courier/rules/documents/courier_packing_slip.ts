/**
 * The courier's packing slip (courier 4.5): an A4 PDF that travels with the parcel. It shows
 * who sends what to whom and how many pieces, never a price, a declared value or any money.
 * Pure: the slip is laid out from the facts given; the same input gives the same bytes.
 */
import { code39Modules } from "../../../domain/documents/barcode.ts";
import { detailRows, footers, partyColumns, table } from "./blocks.ts";
import { newDocument, saved } from "../../../domain/documents/draw.ts";
import { a4RunningLayout, PageWriter } from "../../../domain/documents/page_writer.ts";
import { clip, dateTime, wrapText } from "../../../domain/documents/text.ts";
import type { ShipmentFacts } from "./facts.ts";

/** What a slip is made from: no money field exists here, so none can be printed. */
export interface PackingSlipInput extends ShipmentFacts {
  readonly printed_at: number;
}

const MARGIN = 40;
const BARCODE_HEIGHT = 56;
/** Widest narrow bar, in points (about 0.6 mm): short waybills are not stretched further. */
const BARCODE_MODULE_MAX = 1.7;
/** Lines an address may take on the slip; longer ones end with an ellipsis. */
const ADDRESS_LINES_MAX = 6;
/** Where the piece table's columns start, from the left margin. */
const PIECE_COLUMNS = [0, 190, 300];

/** The packing slip, A4, as PDF bytes. */
export async function packingSlipPdf(input: PackingSlipInput): Promise<Uint8Array<ArrayBuffer>> {
  const [doc, fonts] = await newDocument({
    title: `Packing slip ${input.waybill}`,
    subject: input.waybill,
    author: input.courier_name,
    keywords: [input.waybill, ...input.pieces.map((p) => p.id)],
    at: input.printed_at,
  });
  const layout = a4RunningLayout(
    MARGIN,
    `${input.courier_name}  -  packing slip ${input.waybill} (continued)`,
  );
  const w = new PageWriter(doc, fonts, layout);
  header(w, input);
  partyColumns(w, { label: "FROM", party: input.sender }, { label: "TO", party: input.recipient }, {
    addressLines: ADDRESS_LINES_MAX,
  });
  w.rule();
  const r = input.references;
  detailRows(w, [
    ["Contents", input.contents ?? "-"],
    ["Client order reference", r.client_order_reference ?? "-"],
    ["External customer code", r.external_customer_code ?? "-"],
    ["External billing reference", r.external_billing_reference ?? "-"],
    ["Dangerous goods confirmed", input.dangerous_goods_confirmed ? "Yes" : "No"],
  ], { labelWidth: 150 });
  w.rule();
  table(w, {
    columns: PIECE_COLUMNS,
    heading: ["Piece", "Weight", "Dimensions (L x W x H)"],
    rows: input.pieces.map((p) => [
      p.id,
      `${p.weight_kg} kg`,
      `${p.length_cm} x ${p.width_cm} x ${p.height_cm} cm`,
    ]),
  });
  w.gap(10);
  w.text("Track this shipment", { font: fonts.bold, size: 9 });
  for (const line of wrapText(input.tracking_url, fonts.regular, 9, w.width)) {
    w.text(line, { size: 9 });
  }
  footers(doc, fonts, {
    margin: MARGIN,
    text: (page, pages) =>
      `${input.waybill}    Page ${page} of ${pages}    Printed ${dateTime(input.printed_at)}`,
  });
  return await saved(doc);
}

function header(w: PageWriter, input: PackingSlipInput) {
  const { bold, mono, regular } = w.fonts;
  const title = "PACKING SLIP";
  w.right(title, { size: 12, line: 16, grey: true });
  const nameWidth = w.width - bold.widthOfTextAtSize(title, 12) - 20;
  w.text(clip(input.courier_name, bold, 16, nameWidth), { font: bold, size: 16 });
  w.gap(8);
  w.text(input.waybill, { font: mono, size: 30 });
  w.gap(6);
  // The waybill as a Code 39 barcode; skipped when it cannot be encoded.
  const modules = code39Modules(input.waybill);
  if (modules !== null) {
    w.bars(modules, { height: BARCODE_HEIGHT, moduleMax: BARCODE_MODULE_MAX });
  }
  const service = `${input.service.name} (${input.service.code})`;
  const facts = `Booked ${dateTime(input.booked_at)}    Pieces ${input.pieces.length}    ` +
    `Service ${service}`;
  w.text(clip(facts, regular, 10, w.width));
  w.rule();
}
