/**
 * The pick list of a Business API order (4.1 GET /business/trips/{id}/pick-list): the items by
 * store then aisle, each with its quantity, barcode or SKU, substitution preference and a tick
 * box; the order number, store and pickup time above. Never prices: the facts carry them (the
 * packing slip may show them) and nothing here reads them. Pure.
 */
import { popGraphicsState, pushGraphicsState, rectangle, setLineWidth, stroke } from "pdf-lib";
import { detailRows } from "../../../domain/documents/blocks.ts";
import type { PageWriter } from "../../../domain/documents/page_writer.ts";
import { clip, dateTime } from "../../../domain/documents/text.ts";
import type { OrderItem, TripFacts } from "./facts.ts";
import { finished, openDocument, titledPage } from "./page.ts";

/** Column starts, in points from the left margin: tick box, qty, item, code, aisle, preference. */
const COLUMNS = [0, 22, 56, 270, 380, 425] as const;
const HEADING = ["", "Qty", "Item", "Barcode / SKU", "Aisle", "If missing"];
const SIZE = 9;
/** The tick box's side, in points. */
export const TICK_BOX = 8;

const byText = (a: string | null, b: string | null) =>
  (a ?? "\uffff").localeCompare(b ?? "\uffff", "en", { numeric: true });

/** spec: business 4.1: by store, then aisle (aisle 2 before aisle 10), then name. */
export function pickOrder(items: readonly OrderItem[]): OrderItem[] {
  return [...items].sort((a, b) =>
    byText(a.store, b.store) || byText(a.aisle, b.aisle) || byText(a.name, b.name)
  );
}

function line(w: PageWriter, cells: readonly string[], bold: boolean): void {
  const font = bold ? w.fonts.bold : w.fonts.regular;
  w.row(
    cells.map((text, i) => {
      const x = COLUMNS[i] ?? 0;
      const width = (COLUMNS[i + 1] ?? w.width) - x - 4;
      return { text: clip(text, font, SIZE, width), font, x: w.left + x };
    }),
    { size: SIZE },
  );
}

/** One item: its tick box drawn at the start of the line, on the line's baseline. */
function itemLine(w: PageWriter, i: OrderItem): void {
  const before = w.page;
  w.room(SIZE * 1.6);
  if (w.page !== before) line(w, HEADING, true);
  line(w, ["", String(i.qty), i.name, i.code ?? "-", i.aisle ?? "-", i.preference ?? "-"], false);
  const baseline = w.y + SIZE * 0.35;
  w.page.pushOperators(
    pushGraphicsState(),
    setLineWidth(0.8),
    rectangle(w.left + 2, baseline - 1, TICK_BOX, TICK_BOX),
    stroke(),
    popGraphicsState(),
  );
  w.gap(3);
}

export async function pickListPdf(f: TripFacts): Promise<Uint8Array<ArrayBuffer>> {
  const o = await openDocument("Pick list", f);
  const w = titledPage(o, "Pick list", f, f.order_number);
  detailRows(w, [
    ["Order number", f.order_number],
    ["Store", f.store_name ?? "-"],
    ["Pickup time", f.pickup_at === null ? "As soon as possible" : dateTime(f.pickup_at)],
    ["Items", String(f.items.reduce((n, i) => n + i.qty, 0))],
  ], { labelWidth: 110 });
  let store: string | null | undefined;
  for (const item of pickOrder(f.items)) {
    if (item.store !== store || store === undefined) {
      store = item.store;
      w.gap(6);
      const heading = `Store: ${store ?? f.store_name ?? "-"}`;
      w.text(clip(heading, w.fonts.bold, 11, w.width), { font: w.fonts.bold, size: 11 });
      w.rule();
      line(w, HEADING, true);
    }
    itemLine(w, item);
  }
  if (f.items.length === 0) w.text("No items were sent with this order", { grey: true });
  return await finished(o, `Pick list ${f.order_number}`);
}
