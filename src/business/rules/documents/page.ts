/**
 * What every Business API trip document shares (4.1): an A4 page that runs on, a title with the
 * trip's reference beside it, the reference as a Code 128 barcode, and a footer on each page.
 * Pure.
 */
import type { PDFDocument } from "pdf-lib";
import { footers } from "../../../domain/documents/blocks.ts";
import { code128Modules } from "../../../domain/documents/barcode.ts";
import { type Fonts, newDocument, saved } from "../../../domain/documents/draw.ts";
import { a4RunningLayout, PageWriter } from "../../../domain/documents/page_writer.ts";
import { clip } from "../../../domain/documents/text.ts";
import { formatMinor } from "../../../domain/money.ts";
import type { TripFacts } from "./facts.ts";

export const MARGIN = 40;
const BARCODE_HEIGHT = 44;
/** The footer's type size (blocks.ts `footers`). */
const FOOTER_SIZE = 8;
/** Points per narrow bar at most: a short reference is not stretched past a scanner's liking. */
const BARCODE_MODULE_MAX = 1.6;

export interface Opened {
  readonly doc: PDFDocument;
  readonly fonts: Fonts;
}

export async function openDocument(title: string, f: TripFacts): Promise<Opened> {
  const [doc, fonts] = await newDocument({
    title: `${title} ${f.reference}`,
    subject: f.order_number,
    author: f.sender.name ?? "Business API",
    keywords: [f.reference, f.order_number],
    at: f.booked_at,
  });
  return { doc, fonts };
}

/** A new page (of a document that runs on) headed `title` and the reference, with its bars. */
export function titledPage(o: Opened, title: string, f: TripFacts, aside?: string): PageWriter {
  const w = new PageWriter(o.doc, o.fonts, a4RunningLayout(MARGIN, `${title} ${f.reference}`));
  const heading = title.toUpperCase();
  // spec: business 8: an order number runs to 80 characters: it is cut to the room left.
  const room = w.width - o.fonts.bold.widthOfTextAtSize(heading, 18) - 20;
  w.right(clip(aside ?? f.reference, o.fonts.bold, 12, room), { size: 12, line: 18 });
  w.text(heading, { font: o.fonts.bold, size: 18 });
  w.gap(4);
  w.bars(code128Modules(f.reference), { height: BARCODE_HEIGHT, moduleMax: BARCODE_MODULE_MAX });
  w.text(f.reference, { font: o.fonts.mono, size: 11 });
  w.rule();
  return w;
}

/** Footers on every page, then the bytes. */
export async function finished(o: Opened, label: string): Promise<Uint8Array<ArrayBuffer>> {
  const width = o.doc.getPage(0).getWidth() - 2 * MARGIN;
  footers(o.doc, o.fonts, {
    margin: MARGIN,
    text: (page, pages) => {
      // A long label is cut, never the page count after it.
      const count = ` - page ${page} of ${pages}`;
      const room = width - o.fonts.regular.widthOfTextAtSize(count, FOOTER_SIZE);
      return `${clip(label, o.fonts.regular, FOOTER_SIZE, room)}${count}`;
    },
  });
  return await saved(o.doc);
}

/** `12.50 BWP`: amounts printed exactly, from minor units. */
export function money(minor: number, currency: string): string {
  return `${formatMinor(minor, currency)} ${currency}`;
}

/** A line to sign on, with its caption beneath. */
export function signatureLine(w: PageWriter, caption: string): void {
  w.gap(28);
  if (!w.room(24)) return;
  w.page.drawLine({
    start: { x: w.left, y: w.y },
    end: { x: w.left + w.width * 0.6, y: w.y },
    thickness: 0.8,
  });
  w.gap(2);
  w.text(caption, { size: 8, grey: true });
}
