/**
 * Blocks the courier's paper is built of (courier 4.5, 4.6): two party columns, label and value
 * rows, tables whose heading repeats on a new page, and a footer on every page. Pure.
 */
import type { PDFDocument, PDFFont } from "pdf-lib";
import { type Fonts, GREY } from "../../../domain/documents/draw.ts";
import type { DocumentParty } from "./facts.ts";
import type { Cell, PageWriter } from "../../../domain/documents/page_writer.ts";
import { clip, clippedLines, winAnsiText } from "../../../domain/documents/text.ts";

export interface PartyColumn {
  readonly label: string;
  readonly party: DocumentParty;
  /** A line after the phone (the country, on the client's paper); omitted when null. */
  readonly extra?: string | null;
}

/** Two parties side by side: label, name, address (at most `addressLines`), phone. */
export function partyColumns(
  w: PageWriter,
  left: PartyColumn,
  right: PartyColumn,
  o: { size?: number; addressLines: number },
): void {
  const size = o.size ?? 10;
  const columnWidth = w.width / 2 - 10;
  const { regular, bold } = w.fonts;
  const column = (c: PartyColumn, x: number): Cell[] => [
    { text: c.label, font: bold, x },
    { text: clip(c.party.name ?? "-", bold, size, columnWidth), font: bold, x },
    ...clippedLines(c.party.address ?? "-", {
      font: regular,
      size,
      width: columnWidth,
      max: o.addressLines,
    }).map((text) => ({ text, font: regular, x })),
    { text: c.party.phone ? `Tel ${c.party.phone}` : "", font: regular, x },
    ...(c.extra ? [{ text: clip(c.extra, regular, size, columnWidth), font: regular, x }] : []),
  ];
  const a = column(left, w.left);
  const b = column(right, w.left + w.width / 2 + 10);
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    w.row([a[i], b[i]].filter((cell) => cell !== undefined), { size });
  }
}

/** Label and value rows, the value wrapped beside the label (at most `maxLines` lines). */
export function detailRows(
  w: PageWriter,
  rows: readonly (readonly [string, string])[],
  o: { labelWidth: number; size?: number; maxLines?: number },
): void {
  const size = o.size ?? 10;
  for (const [label, value] of rows) {
    const lines = clippedLines(value, {
      font: w.fonts.regular,
      size,
      width: w.width - o.labelWidth,
      max: o.maxLines ?? Number.MAX_SAFE_INTEGER,
    });
    (lines.length > 0 ? lines : ["-"]).forEach((line, i) => {
      const text = { text: line, font: w.fonts.regular, x: w.left + o.labelWidth };
      w.row(i === 0 ? [{ text: label, font: w.fonts.bold, x: w.left }, text] : [text], { size });
    });
  }
}

/**
 * A table: a bold heading, then one line per row, each cell clipped to its column; a page that
 * starts within the rows repeats the heading.
 */
export function table(
  w: PageWriter,
  o: {
    readonly columns: readonly number[];
    readonly heading: readonly string[];
    readonly rows: readonly (readonly string[])[];
    readonly size?: number;
  },
): void {
  const size = o.size ?? 10;
  const line = (cells: readonly string[], font: PDFFont) =>
    w.row(
      cells.map((text, i) => {
        const x = o.columns[i] ?? 0;
        const width = (o.columns[i + 1] ?? w.width) - x - 6;
        return { text: clip(text, font, size, width), font, x: w.left + x };
      }),
      { size },
    );
  line(o.heading, w.fonts.bold);
  for (const cells of o.rows) {
    const before = w.page;
    w.room(size * 1.4);
    if (w.page !== before) line(o.heading, w.fonts.bold);
    line(cells, w.fonts.regular);
  }
}

/** One grey line at the foot of every page: `text(page, pages)`. */
export function footers(
  doc: PDFDocument,
  fonts: Fonts,
  o: { margin: number; text: (page: number, pages: number) => string },
): void {
  const pages = doc.getPages();
  pages.forEach((page, i) => {
    page.drawText(winAnsiText(o.text(i + 1, pages.length)), {
      x: o.margin,
      y: o.margin,
      size: 8,
      font: fonts.regular,
      color: GREY,
    });
  });
}
