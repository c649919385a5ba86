/**
 * The client's waybill, the consignment note (courier 4.6): A4, the parties, references, service
 * and delivery promise, contents, dangerous goods confirmation, the pieces and the waybill's
 * Code 39 barcode, and the price lines and total of the frozen pricing snapshot (courier 2.3): it
 * is the client's own paper, so its own money is on it. Pure: the same facts give the same bytes.
 */
import { formatMinor } from "../../../domain/money.ts";
import { code39Modules } from "../../../domain/documents/barcode.ts";
import { detailRows, footers, partyColumns, table } from "./blocks.ts";
import { newDocument, saved } from "../../../domain/documents/draw.ts";
import { a4RunningLayout, PageWriter } from "../../../domain/documents/page_writer.ts";
import { clip, dateTime, wrapText } from "../../../domain/documents/text.ts";
import { type DocumentResult, unencodableBarcode, type WaybillFacts } from "./facts.ts";

const MARGIN = 40;
const BARCODE_HEIGHT = 48;
const BARCODE_MODULE_MAX = 1.7;
const ADDRESS_LINES_MAX = 6;
const LABEL_WIDTH = 150;
/** Where the piece table's columns start, from the left margin. */
const PIECE_COLUMNS = [0, 130, 200, 320];

/** The waybill as PDF bytes: one A4 page, more when the pieces run on. */
export async function waybillPdf(facts: WaybillFacts): Promise<DocumentResult> {
  const refused = unencodableBarcode(facts);
  if (refused) return { ok: false, ...refused };
  const [doc, fonts] = await newDocument({
    title: `Waybill ${facts.waybill}`,
    subject: facts.waybill,
    author: facts.courier_name,
    keywords: [facts.waybill, ...facts.pieces.map((p) => p.id)],
    at: facts.booked_at,
  });
  const layout = a4RunningLayout(
    MARGIN,
    `${facts.courier_name}  -  waybill ${facts.waybill} (continued)`,
  );
  const w = new PageWriter(doc, fonts, layout);
  header(w, facts);
  partyColumns(
    w,
    { label: "SENDER", party: facts.sender, extra: `Country ${facts.from_country}` },
    { label: "RECIPIENT", party: facts.recipient, extra: `Country ${facts.to_country}` },
    { addressLines: ADDRESS_LINES_MAX },
  );
  w.rule();
  details(w, facts);
  w.gap(6);
  w.text("Pieces", { font: fonts.bold, size: 11 });
  table(w, {
    columns: PIECE_COLUMNS,
    heading: ["Piece", "Weight", "Dimensions (L x W x H)", "Contents"],
    rows: facts.pieces.map((p) => [
      p.id,
      `${p.weight_kg} kg`,
      `${p.length_cm} x ${p.width_cm} x ${p.height_cm} cm`,
      p.contents ?? facts.contents ?? "-",
    ]),
  });
  w.rule();
  charges(w, facts);
  w.gap(10);
  w.text("Track this shipment", { font: fonts.bold, size: 9 });
  for (const line of wrapText(facts.tracking_url, fonts.regular, 9, w.width)) {
    w.text(line, { size: 9 });
  }
  footers(doc, fonts, {
    margin: MARGIN,
    text: (page, pages) =>
      `${facts.waybill}    Page ${page} of ${pages}    Booked ${dateTime(facts.booked_at)}`,
  });
  return { ok: true, pdf: await saved(doc), pages: doc.getPageCount() };
}

function header(w: PageWriter, facts: WaybillFacts) {
  const { bold, mono, regular } = w.fonts;
  const title = "WAYBILL";
  w.right(title, { size: 12, line: 16, grey: true });
  const nameWidth = w.width - bold.widthOfTextAtSize(title, 12) - 20;
  w.text(clip(facts.courier_name, bold, 16, nameWidth), { font: bold, size: 16 });
  w.gap(8);
  w.text(facts.waybill, { font: mono, size: 30 });
  w.gap(6);
  // Checked encodable before the document was started.
  w.bars(code39Modules(facts.waybill)!, {
    height: BARCODE_HEIGHT,
    moduleMax: BARCODE_MODULE_MAX,
  });
  const line = `Booked ${dateTime(facts.booked_at)}    Pieces ${facts.pieces.length}    ` +
    `${facts.from_country} > ${facts.to_country}`;
  w.text(clip(line, regular, 10, w.width));
  w.rule();
}

function details(w: PageWriter, facts: WaybillFacts) {
  const r = facts.references;
  const p = facts.pricing;
  const money = (minor: number) => `${p.currency} ${formatMinor(minor, p.currency)}`;
  const yes = (b: boolean) => b ? "Yes" : "No";
  detailRows(w, [
    ["Service", `${facts.service.name} (${facts.service.code})`],
    ["Collection on", facts.promise.collection_on],
    [
      "Delivery promise",
      `${facts.promise.earliest_delivery} to ${facts.promise.latest_delivery}`,
    ],
    ["Chargeable weight", `${p.chargeable_kg} kg`],
    ["Client order reference", r.client_order_reference ?? "-"],
    ["External customer code", r.external_customer_code ?? "-"],
    ["External billing reference", r.external_billing_reference ?? "-"],
    ["Contents", facts.contents ?? "-"],
    [
      "Declared value",
      facts.declared_value_minor === null ? "-" : money(facts.declared_value_minor),
    ],
    ["Liability cover", yes(facts.liability_cover)],
    ["Dangerous goods confirmed", yes(facts.dangerous_goods_confirmed)],
  ], { labelWidth: LABEL_WIDTH });
  w.rule();
}

/** The frozen price lines, tax last, amounts right-aligned, then the total (courier 2.2). */
function charges(w: PageWriter, facts: WaybillFacts) {
  const { bold, regular } = w.fonts;
  const p = facts.pricing;
  const money = (minor: number) => `${p.currency} ${formatMinor(minor, p.currency)}`;
  const line = (label: string, amount: string, font = regular) => {
    w.room(10 * 1.4);
    w.right(amount, { size: 10, font });
    w.text(clip(label, font, 10, w.width - 120), { font });
  };
  w.text("Charges", { font: bold, size: 11 });
  // The lines add up to the total; inclusive tax is within the lines above, its line adds 0.
  for (const l of p.lines) {
    const tax = l.included === undefined
      ? ""
      : l.included
      ? ` (included above: ${money(l.tax_minor ?? 0)})`
      : " (added)";
    line(`${l.label}${tax}`, money(l.amount_minor));
  }
  line("Total", money(p.total_minor), bold);
  w.gap(4);
  w.text(
    clip(
      `Paid by the ${p.payer}, ${p.settlement_mode}    Prices ${p.prices_reference}, ` +
        `rate card version ${p.rate_card_version}`,
      regular,
      9,
      w.width,
    ),
    { size: 9, grey: true },
  );
}
