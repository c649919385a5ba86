/**
 * What every document of the courier's paper starts from (courier 4.5, 4.6): the standard fonts,
 * fixed metadata, barcode bars (encoded by bwip-js, `barcode.ts`) drawn as rectangles. Pure: pdf-lib in memory, no I/O, no clock.
 */
import {
  fill,
  PDFDocument,
  type PDFFont,
  type PDFPage,
  popGraphicsState,
  pushGraphicsState,
  rectangle,
  rgb,
  setFillingRgbColor,
  StandardFonts,
} from "pdf-lib";
import { winAnsiText } from "./text.ts";

export const INK = rgb(0, 0, 0);
export const GREY = rgb(0.35, 0.35, 0.35);

export interface Fonts {
  readonly regular: PDFFont;
  readonly bold: PDFFont;
  readonly mono: PDFFont;
}

/** Helvetica, Helvetica Bold and Courier Bold (for waybills): standard, nothing embedded. */
export async function embedFonts(doc: PDFDocument): Promise<Fonts> {
  return {
    regular: await doc.embedFont(StandardFonts.Helvetica),
    bold: await doc.embedFont(StandardFonts.HelveticaBold),
    mono: await doc.embedFont(StandardFonts.CourierBold),
  };
}

export interface BarsBox {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
  /** The widest narrow module, in points: a short symbol is not stretched further. */
  readonly moduleMax: number;
}

/**
 * Barcode modules (`barcode.ts`) drawn as one filled rectangle per bar, after a quiet zone of
 * ten narrow modules, as wide as the box allows.
 */
export function drawBars(page: PDFPage, modules: string, box: BarsBox): void {
  const module = Math.min(box.moduleMax, box.width / (modules.length + 20));
  const bars = [];
  let x = box.x + 10 * module;
  for (const run of modules.match(/1+|0+/g) ?? []) {
    const width = run.length * module;
    if (run[0] === "1") bars.push(rectangle(x, box.y, width, box.height));
    x += width;
  }
  page.pushOperators(
    pushGraphicsState(),
    setFillingRgbColor(INK.red, INK.green, INK.blue),
    ...bars,
    fill(),
    popGraphicsState(),
  );
}

export interface DocumentMetadata {
  readonly title: string;
  readonly subject: string;
  readonly author: string;
  readonly keywords: readonly string[];
  /** Creation and modification date: a fact of the shipment, so the bytes repeat. */
  readonly at: number;
}

export function setMetadata(doc: PDFDocument, m: DocumentMetadata): void {
  const when = new Date(m.at);
  doc.setTitle(winAnsiText(m.title));
  doc.setSubject(winAnsiText(m.subject));
  doc.setAuthor(winAnsiText(m.author));
  doc.setKeywords(m.keywords.map(winAnsiText));
  doc.setCreator(winAnsiText(m.author));
  doc.setProducer("Courier platform");
  doc.setCreationDate(when);
  doc.setModificationDate(when);
}

/** A new document with the standard fonts and fixed metadata. */
export async function newDocument(m: DocumentMetadata): Promise<[PDFDocument, Fonts]> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  setMetadata(doc, m);
  return [doc, await embedFonts(doc)];
}

/** A copy on its own ArrayBuffer: what a Response body takes. */
export async function saved(doc: PDFDocument): Promise<Uint8Array<ArrayBuffer>> {
  return new Uint8Array(await doc.save());
}
