/**
 * The packing slip of a Business API order (4.1 GET /business/trips/{id}/packing-slip), one per
 * piece ("piece n of N"): sender, the recipient's first names and surname and address, each item
 * ordered against packed with its substitution, what is missing (refunded), the business's
 * returns note (2.6) and a line to sign. Prices only when the business's `show_prices` is on.
 * Never a delivery or pickup code: the facts carry neither. Pure.
 */
import { detailRows, table } from "../../../domain/documents/blocks.ts";
import type { PageWriter } from "../../../domain/documents/page_writer.ts";
import { clip, clippedLines, dateTime } from "../../../domain/documents/text.ts";
import { sumMinor } from "../../../domain/money.ts";
import {
  missingOf,
  nameParts,
  type OrderItem,
  type PackingSlipSettings,
  type TripFacts,
} from "./facts.ts";
import { finished, money, openDocument, signatureLine, titledPage } from "./page.ts";

const LABEL_WIDTH = 110;

export interface PackingSlipInput {
  readonly facts: TripFacts;
  readonly settings: PackingSlipSettings;
  /** N: one slip (a page or more) per piece. */
  readonly pieces: number;
}

/** An item's amount: unit price times `qty`, exact in minor units; null without a price. */
function amountOf(i: OrderItem, qty: number): number | null {
  return i.unit_price_minor === null ? null : i.unit_price_minor * qty;
}

function itemsTable(w: PageWriter, f: TripFacts, prices: boolean): void {
  const price = (minor: number | null) => (minor === null ? "-" : money(minor, f.currency));
  table(w, {
    columns: prices ? [0, 190, 240, 290, 400, 460] : [0, 250, 310, 370],
    heading: ["Item", "Ordered", "Packed", "Substitution", ...(prices ? ["Unit", "Amount"] : [])],
    size: 9,
    rows: f.items.map((i) => [
      i.name,
      String(i.qty),
      // spec: business 4.1: without qty_packed the packed column stays blank.
      i.qty_packed === null ? "" : String(i.qty_packed),
      i.substitute ?? "-",
      ...(prices ? [price(i.unit_price_minor), price(amountOf(i, i.qty_packed ?? i.qty))] : []),
    ]),
  });
}

function missingLines(w: PageWriter, f: TripFacts, prices: boolean): void {
  const missing = f.items.filter((i) => missingOf(i) > 0);
  if (missing.length === 0) return;
  w.gap(4);
  w.text("Missing (refunded)", { font: w.fonts.bold, size: 10 });
  const font = w.fonts.regular;
  for (const i of missing) {
    const amount = amountOf(i, missingOf(i));
    const refund = prices && amount !== null ? `: ${money(amount, f.currency)} refunded` : "";
    const count = `${missingOf(i)} x `;
    // spec: business 4.1 missing (refunded): a long name is cut, never the refund beside it.
    const room = w.width - font.widthOfTextAtSize(`${count}${refund}`, 9);
    w.text(`${count}${clip(i.name, font, 9, room)}${refund}`, { size: 9 });
  }
}

function totals(w: PageWriter, f: TripFacts): void {
  const packed = f.items.flatMap((i) => amountOf(i, i.qty_packed ?? i.qty) ?? []);
  const refunded = f.items.flatMap((i) => amountOf(i, missingOf(i)) ?? []);
  w.gap(4);
  detailRows(w, [
    ["Goods total", money(sumMinor(packed), f.currency)],
    ["Refunded", money(sumMinor(refunded), f.currency)],
  ], { labelWidth: LABEL_WIDTH });
}

function slip(w: PageWriter, input: PackingSlipInput): void {
  const { facts: f, settings } = input;
  // spec: business 4.1: first names and surname as sent, where the order sent them apart.
  const recipient = f.recipient_names ?? nameParts(f.recipient.name);
  detailRows(w, [
    ["Order number", f.order_number],
    ["Date", dateTime(f.booked_at)],
    ["Sender", f.sender.name ?? "-"],
    ["Sent from", f.sender.address],
  ], { labelWidth: LABEL_WIDTH, maxLines: 2 });
  w.rule();
  detailRows(w, [
    ["First names", recipient.first_names],
    ["Surname", recipient.surname],
    ["Address", f.recipient.address],
  ], { labelWidth: LABEL_WIDTH, maxLines: 3 });
  w.rule();
  if (f.items.length > 0) itemsTable(w, f, settings.show_prices);
  else w.text("No items were sent with this order", { grey: true });
  missingLines(w, f, settings.show_prices);
  if (settings.show_prices && f.items.length > 0) totals(w, f);
  if (settings.returns_note) {
    w.rule();
    w.text("Returns", { font: w.fonts.bold, size: 10 });
    const lines = clippedLines(settings.returns_note, {
      font: w.fonts.regular,
      size: 9,
      width: w.width,
      max: 20,
    });
    for (const text of lines) w.text(text, { size: 9 });
  }
  signatureLine(w, "Received in good order (recipient's signature), date");
}

export async function packingSlipPdf(input: PackingSlipInput): Promise<Uint8Array<ArrayBuffer>> {
  const f = input.facts;
  const o = await openDocument("Packing slip", f);
  for (let n = 1; n <= input.pieces; n++) {
    slip(titledPage(o, "Packing slip", f, `Piece ${n} of ${input.pieces}`), input);
  }
  return await finished(o, `Packing slip ${f.order_number}`);
}
