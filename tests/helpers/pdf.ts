/**
 * Reading the courier's PDFs back as a person or a scanner would: the text through poppler's
 * `pdftotext`, a page as pixels through `pdftoppm`, and a small Code 39 reader over bar widths,
 * from the rectangles a page draws or from one row of its pixels.
 */
import { decodePDFRawStream, PDFArray, type PDFDocument, PDFRawStream, type PDFRef } from "pdf-lib";
import {
  CODE39_ALPHABET,
  CODE39_PATTERNS,
  CODE39_START_STOP,
} from "../../src/domain/documents/code39.ts";

const POPPLER = "/usr/bin";

async function run(cmd: string, args: string[]): Promise<Uint8Array> {
  const out = await new Deno.Command(`${POPPLER}/${cmd}`, {
    args,
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  if (!out.success) throw new Error(`${cmd} failed: ${new TextDecoder().decode(out.stderr)}`);
  return out.stdout;
}

/** The PDF's text in reading order (`pdftotext -layout file -`). */
export async function pdfText(bytes: Uint8Array): Promise<string> {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeFile(`${dir}/doc.pdf`, bytes);
    return new TextDecoder().decode(await run("pdftotext", ["-layout", `${dir}/doc.pdf`, "-"]));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** One page's text: pdftotext separates pages with a form feed. */
export function pageTexts(text: string): string[] {
  return text.split("\f").slice(0, -1);
}

/** Renders page `page` (1-based) to `${prefix}.png` at `dpi`; answers the PNG's path. */
export async function renderPng(
  bytes: Uint8Array,
  o: { page: number; dpi: number; prefix: string },
): Promise<string> {
  const pdf = `${o.prefix}.pdf`;
  await Deno.writeFile(pdf, bytes);
  const p = String(o.page);
  await run("pdftoppm", [
    "-png",
    "-r",
    String(o.dpi),
    "-f",
    p,
    "-l",
    p,
    "-singlefile",
    pdf,
    o.prefix,
  ]);
  return `${o.prefix}.png`;
}

export interface Gray {
  readonly width: number;
  readonly height: number;
  readonly pixels: Uint8Array;
}

/** Page `page` as 8-bit grey pixels (`pdftoppm -gray`, a binary PGM). */
export async function renderGray(bytes: Uint8Array, o: { page: number; dpi: number }) {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeFile(`${dir}/doc.pdf`, bytes);
    const p = String(o.page);
    const args = ["-gray", "-r", String(o.dpi), "-f", p, "-l", p, "-singlefile"];
    await run("pdftoppm", [...args, `${dir}/doc.pdf`, `${dir}/page`]);
    return parsePgm(await Deno.readFile(`${dir}/page.pgm`));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

function parsePgm(data: Uint8Array): Gray {
  // Header: P5, width, height, maxval, each separated by whitespace, then one whitespace byte.
  const fields: string[] = [];
  let i = 0;
  while (fields.length < 4) {
    while (/\s/.test(String.fromCharCode(data[i]!))) i++;
    let field = "";
    while (!/\s/.test(String.fromCharCode(data[i]!))) field += String.fromCharCode(data[i++]!);
    fields.push(field);
  }
  if (fields[0] !== "P5" || fields[3] !== "255") throw new Error(`not an 8-bit PGM: ${fields}`);
  const [width, height] = [Number(fields[1]), Number(fields[2])];
  return { width, height, pixels: data.subarray(i + 1, i + 1 + width * height) };
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
