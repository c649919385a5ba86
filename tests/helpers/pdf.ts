/**
 * Reading the courier's PDFs back as a person or a scanner would, with MuPDF (WebAssembly, from
 * npm: no system binary): the text in reading order, a page as pixels, and a small Code 39
 * reader over bar widths, from the rectangles a page draws or from one row of its pixels.
 */
import * as mupdf from "mupdf";
import { decodePDFRawStream, PDFArray, type PDFDocument, PDFRawStream, type PDFRef } from "pdf-lib";

/** Code 39 characters in table order (the start and stop `*` apart). */
export const CODE39_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ-. $/+%";
/**
 * The standard Code 39 patterns the reader checks bars against, independent of the encoder: 9
 * elements (bar, space, ... bar), most significant bit first, 1 for a wide element.
 */
// deno-fmt-ignore
const CODE39_PATTERNS = [
  0x034, 0x121, 0x061, 0x160, 0x031, 0x130, 0x070, 0x025, 0x124, 0x064, // 0-9
  0x109, 0x049, 0x148, 0x019, 0x118, 0x058, 0x00D, 0x10C, 0x04C, 0x01C, // A-J
  0x103, 0x043, 0x142, 0x013, 0x112, 0x052, 0x007, 0x106, 0x046, 0x016, // K-T
  0x181, 0x0C1, 0x1C0, 0x091, 0x190, 0x0D0, 0x085, 0x184, 0x0C4, 0x0A8, // U-$
  0x0A2, 0x08A, 0x02A, // /-%
] as const;
const CODE39_START_STOP = 0x094;

/** PDF user space is 72 units an inch. */
const POINTS_PER_INCH = 72;

function openPdf(bytes: Uint8Array): mupdf.Document {
  return mupdf.Document.openDocument(bytes, "application/pdf");
}

interface TextLine {
  readonly x: number;
  readonly y: number;
  readonly h: number;
  readonly text: string;
}

/**
 * One page's text laid out as rows: the lines MuPDF finds, those sharing a baseline joined left
 * to right (a label and its value side by side stay on one row, as a person reads them).
 */
function pageLayoutText(page: mupdf.Page): string {
  const json = JSON.parse(page.toStructuredText("preserve-whitespace").asJSON()) as {
    blocks: { lines?: { bbox: { x: number; y: number; h: number }; text: string }[] }[];
  };
  const lines: TextLine[] = json.blocks.flatMap((b) =>
    (b.lines ?? []).map((l) => ({ x: l.bbox.x, y: l.bbox.y, h: l.bbox.h, text: l.text }))
  );
  lines.sort((a, b) => a.y - b.y || a.x - b.x);
  const rows: TextLine[][] = [];
  for (const line of lines) {
    const row = rows.at(-1);
    const top = row?.[0];
    if (row && top && Math.abs(line.y + line.h - (top.y + top.h)) < Math.min(line.h, top.h) / 2) {
      row.push(line);
    } else rows.push([line]);
  }
  return rows.map((row) => row.sort((a, b) => a.x - b.x).map((l) => l.text).join("  "))
    .join("\n");
}

/** The PDF's text in reading order, each page followed by a form feed. */
export function pdfText(bytes: Uint8Array): Promise<string> {
  const doc = openPdf(bytes);
  try {
    const pages: string[] = [];
    for (let i = 0; i < doc.countPages(); i++) {
      const page = doc.loadPage(i);
      try {
        pages.push(`${pageLayoutText(page)}\n\f`);
      } finally {
        page.destroy();
      }
    }
    return Promise.resolve(pages.join(""));
  } finally {
    doc.destroy();
  }
}

/**
 * The text lines that run into the outer half of a `margin` on any side of a page, or off it, as
 * `page n: text`: a line a reader of the printed page would find cut off at the edge. Half the
 * margin is slack: MuPDF measures the standard fonts with its own metrics, which across a whole
 * line come out a few points wider than what the writer fitted.
 */
export function linesPastMargins(bytes: Uint8Array, margin: number): string[] {
  const doc = openPdf(bytes);
  try {
    const past: string[] = [];
    for (let i = 0; i < doc.countPages(); i++) {
      const page = doc.loadPage(i);
      try {
        const [x0, y0, x1, y1] = page.getBounds();
        const json = JSON.parse(page.toStructuredText("preserve-whitespace").asJSON()) as {
          blocks: {
            lines?: { bbox: { x: number; y: number; w: number; h: number }; text: string }[];
          }[];
        };
        const slack = margin / 2;
        for (const l of json.blocks.flatMap((b) => b.lines ?? [])) {
          const { x, y, w, h } = l.bbox;
          const inside = x >= x0 + slack && x + w <= x1 - slack && y >= y0 && y + h <= y1;
          if (!inside) past.push(`page ${i + 1}: ${l.text}`);
        }
      } finally {
        page.destroy();
      }
    }
    return past;
  } finally {
    doc.destroy();
  }
}

/** One page's text: pdfText ends each page with a form feed. */
export function pageTexts(text: string): string[] {
  return text.split("\f").slice(0, -1);
}

/** Page `page` (1-based) at `dpi`, in `colorspace`, without alpha. */
function renderPixmap(bytes: Uint8Array, page: number, dpi: number, colorspace: mupdf.ColorSpace) {
  const doc = openPdf(bytes);
  try {
    const p = doc.loadPage(page - 1);
    try {
      const scale = dpi / POINTS_PER_INCH;
      return p.toPixmap(mupdf.Matrix.scale(scale, scale), colorspace, false, true);
    } finally {
      p.destroy();
    }
  } finally {
    doc.destroy();
  }
}

/** Renders page `page` (1-based) to `${prefix}.png` at `dpi`; answers the PNG's path. */
export async function renderPng(
  bytes: Uint8Array,
  o: { page: number; dpi: number; prefix: string },
): Promise<string> {
  const pixmap = renderPixmap(bytes, o.page, o.dpi, mupdf.ColorSpace.DeviceRGB);
  try {
    await Deno.writeFile(`${o.prefix}.png`, pixmap.asPNG());
  } finally {
    pixmap.destroy();
  }
  return `${o.prefix}.png`;
}

export interface Gray {
  readonly width: number;
  readonly height: number;
  readonly pixels: Uint8Array;
}

/** Page `page` (1-based) as 8-bit grey pixels, one byte a pixel, row after row. */
export function renderGray(bytes: Uint8Array, o: { page: number; dpi: number }): Promise<Gray> {
  const pixmap = renderPixmap(bytes, o.page, o.dpi, mupdf.ColorSpace.DeviceGray);
  try {
    const [width, height, stride] = [pixmap.getWidth(), pixmap.getHeight(), pixmap.getStride()];
    const all = pixmap.getPixels();
    const pixels = new Uint8Array(width * height);
    for (let y = 0; y < height; y++) {
      pixels.set(all.subarray(y * stride, y * stride + width), y * width);
    }
    return Promise.resolve({ width, height, pixels });
  } finally {
    pixmap.destroy();
  }
}

/**
 * Every text a horizontal scan of the image reads as Code 39, with how many rows read it: dark
 * runs and light runs between the first and last dark pixel of a row, decoded.
 */
export function scanRows(image: Gray): Map<string, number> {
  const found = new Map<string, number>();
  for (let y = 0; y < image.height; y++) {
    const row = image.pixels.subarray(y * image.width, (y + 1) * image.width);
    const widths: number[] = [];
    let dark: boolean | null = null;
    for (const px of row) {
      const isDark = px < 128;
      if (dark === null && !isDark) continue;
      if (isDark === dark) widths[widths.length - 1]!++;
      else widths.push(1);
      dark = isDark;
    }
    if (dark === false) widths.pop();
    const text = decodeCode39Widths(widths);
    if (text !== null) found.set(text, (found.get(text) ?? 0) + 1);
  }
  return found;
}

/**
 * Reads Code 39 from element widths (bar, space, bar, ..., bar): each character is 9 elements,
 * 3 of them wide, then a narrow gap; the symbol starts and ends with `*`. Null when the widths
 * are not such a symbol.
 */
export function decodeCode39Widths(widths: readonly number[]): string | null {
  if (widths.length < 19 || (widths.length + 1) % 10 !== 0) return null;
  const narrow = Math.min(...widths);
  const wide = Math.max(...widths);
  if (wide < narrow * 1.8) return null;
  const threshold = (narrow + wide) / 2;
  let text = "";
  for (let at = 0; at < widths.length; at += 10) {
    let pattern = 0;
    for (let e = 0; e < 9; e++) pattern = (pattern << 1) | (widths[at + e]! > threshold ? 1 : 0);
    const first = at === 0;
    const last = at + 9 === widths.length;
    if (first || last) {
      if (pattern !== CODE39_START_STOP) return null;
      continue;
    }
    if (widths[at - 1]! > threshold) return null; // the gap between characters is narrow
    const i = CODE39_PATTERNS.indexOf(pattern as typeof CODE39_PATTERNS[number]);
    if (i < 0) return null;
    text += CODE39_ALPHABET[i];
  }
  return text;
}

/** Modules (`1` bar, `0` space) as element widths. */
export function moduleWidths(modules: string): number[] {
  return (modules.match(/1+|0+/g) ?? []).map((run) => run.length);
}

/** The filled rectangles (`x y w h re`) a page's content streams draw. */
export function pageRectangles(doc: PDFDocument, page: number) {
  const contents = doc.getPages()[page]!.node.Contents();
  const streams = contents instanceof PDFArray
    ? contents.asArray().map((ref) => doc.context.lookup(ref as PDFRef))
    : [contents];
  const rects: { x: number; y: number; w: number; h: number }[] = [];
  for (const stream of streams) {
    if (!(stream instanceof PDFRawStream)) continue;
    const ops = new TextDecoder("latin1").decode(decodePDFRawStream(stream).decode());
    for (const m of ops.matchAll(/(-?[\d.]+) (-?[\d.]+) (-?[\d.]+) (-?[\d.]+) re\b/g)) {
      const [x, y, w, h] = m.slice(1, 5).map(Number) as [number, number, number, number];
      rects.push({ x, y, w, h });
    }
  }
  return rects;
}

/** The Code 39 text the page's bars carry: bar widths and the spaces between, read back. */
export function drawnBarcode(doc: PDFDocument, page: number): string | null {
  const bars = pageRectangles(doc, page).sort((a, b) => a.x - b.x);
  const widths: number[] = [];
  bars.forEach((bar, i) => {
    if (i > 0) widths.push(bar.x - (bars[i - 1]!.x + bars[i - 1]!.w));
    widths.push(bar.w);
  });
  // Floating point: round to a thousandth of a point before comparing widths.
  return decodeCode39Widths(widths.map((w) => Math.round(w * 1000) / 1000));
}
