/**
 * Blocks printed documents are built of (courier 4.5, 4.6; Business API 4.1): label and value
 * rows, tables whose heading repeats on a new page, and a footer on every page. Pure.
 */
import type { PDFDocument, PDFFont } from "pdf-lib";
import { type Fonts, GREY } from "./draw.ts";
import type { PageWriter } from "./page_writer.ts";
import { clip, clippedLines, winAnsiText } from "./text.ts";

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
