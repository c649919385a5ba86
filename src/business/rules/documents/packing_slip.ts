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
/** The items table's type size. */
const SIZE = 9;
/**
 * A money column's width bounds, in points: at least as wide as the column always was, at most
 * an amount of 15 digits with its currency (an item's price is the shop's, of any size).
 */
const MONEY_COLUMN_MIN = 55;
const MONEY_COLUMN_MAX = 110;

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

/** The table's columns: with prices, the two money columns as wide as their widest amount. */
function itemColumns(w: PageWriter, money: readonly string[]): number[] {
  if (money.length === 0) return [0, 250, 310, 370];
  const widest = Math.max(...money.map((m) => w.fonts.regular.widthOfTextAtSize(m, SIZE)));
  // Each money column: its widest amount and the gap after it, at most MONEY_COLUMN_MAX.
  const column = Math.min(MONEY_COLUMN_MAX, Math.max(MONEY_COLUMN_MIN, widest + 8));
  const unit = w.width - 2 * column;
  return [0, unit - 200, unit - 155, unit - 110, unit, unit + column];
}

function itemsTable(w: PageWriter, f: TripFacts, prices: boolean): void {
  const price = (minor: number | null) => (minor === null ? "-" : money(minor, f.currency));
  const priced = f.items.map((
    i,
  ) => [price(i.unit_price_minor), price(amountOf(i, i.qty_packed ?? i.qty))]);
  table(w, {
    columns: itemColumns(w, prices ? priced.flat() : []),
    heading: ["Item", "Ordered", "Packed", "Substitution", ...(prices ? ["Unit", "Amount"] : [])],
    size: SIZE,
    rows: f.items.map((i, n) => [
      i.name,
      String(i.qty),
      // spec: business 4.1: without qty_packed the packed column stays blank.
      i.qty_packed === null ? "" : String(i.qty_packed),
      i.substitute ?? "-",
      ...(prices ? priced[n]! : []),
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
