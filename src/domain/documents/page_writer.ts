/**
 * A writer that fills the courier's paper top down (courier 4.5, 4.6): lines of text, rules and
 * bars; a document that runs on starts a continuation page, a fixed page (a label, a slip per
 * piece) leaves off what does not fit. Pure.
 */
import { PageSizes, type PDFDocument, type PDFFont, type PDFPage } from "pdf-lib";
import { drawBars, type Fonts, GREY, INK } from "./draw.ts";
import { clip, winAnsiText } from "./text.ts";

export interface Cell {
  readonly text: string;
  readonly x: number;
  readonly font: PDFFont;
}

export interface PageLayout {
  readonly size: readonly [number, number];
  readonly margin: number;
  /** Body lines stop above this (a footer may be drawn below it). */
  readonly bottom: number;
  /**
   * Called on each page started because the last one was full. Absent: the document has a fixed
   * page (a label, one slip per piece) and a line that does not fit is left off.
   */
  readonly continuation?: (w: PageWriter) => void;
}

/**
 * An A4 document that runs on: each continuation page starts with `heading` (bold, one line) and
 * a rule; body lines stop 30 points above the bottom margin, leaving room for the footer.
 */
export function a4RunningLayout(margin: number, heading: string): PageLayout {
  return {
    size: PageSizes.A4,
    margin,
    bottom: margin + 30,
    continuation: (w) => {
      w.text(clip(heading, w.fonts.bold, 11, w.width), { font: w.fonts.bold, size: 11 });
      w.rule();
    },
  };
}

/** Writes lines top down from the top margin. */
export class PageWriter {
  readonly doc: PDFDocument;
  readonly fonts: Fonts;
  readonly #layout: PageLayout;
  page: PDFPage;
  y: number;

  constructor(doc: PDFDocument, fonts: Fonts, layout: PageLayout) {
    this.doc = doc;
    this.fonts = fonts;
    this.#layout = layout;
    this.page = doc.addPage([...layout.size]);
    this.y = layout.size[1] - layout.margin;
  }

  get left(): number {
    return this.#layout.margin;
  }

  get width(): number {
    return this.#layout.size[0] - 2 * this.#layout.margin;
  }

  text(text: string, o: { size?: number; font?: PDFFont; x?: number; grey?: boolean } = {}) {
    this.row([{ text, x: o.x ?? this.left, font: o.font ?? this.fonts.regular }], o);
  }

  /** Cells side by side on one line (on one page). */
  row(cells: readonly Cell[], o: { size?: number; grey?: boolean } = {}) {
    const size = o.size ?? 10;
    if (!this.room(size * 1.35)) return;
    this.y -= size;
    for (const cell of cells) {
      this.page.drawText(winAnsiText(cell.text), {
        x: cell.x,
        y: this.y,
        size,
        font: cell.font,
        color: o.grey ? GREY : INK,
      });
    }
    this.y -= size * 0.35;
  }

  /**
   * Text right-aligned on the next line, without moving down; `line` is the size of the text the
   * line's `text()` call draws (the same baseline), `size` by default.
   */
  right(text: string, o: { size: number; line?: number; font?: PDFFont; grey?: boolean }) {
    const font = o.font ?? this.fonts.bold;
    const safe = winAnsiText(text);
    this.page.drawText(safe, {
      x: this.left + this.width - font.widthOfTextAtSize(safe, o.size),
      y: this.y - (o.line ?? o.size),
      size: o.size,
      font,
      color: o.grey ? GREY : INK,
    });
  }

  gap(points: number) {
    this.y -= points;
  }

  rule() {
    if (!this.room(8)) return;
    this.y -= 4;
    this.page.drawLine({
      start: { x: this.left, y: this.y },
      end: { x: this.left + this.width, y: this.y },
      thickness: 0.5,
      color: GREY,
    });
    this.y -= 4;
  }

  /** Barcode modules (`barcode.ts`) as bars across the line, `height` tall. */
  bars(modules: string, o: { height: number; moduleMax: number }) {
    if (!this.room(o.height + 6)) return;
    this.y -= o.height;
    drawBars(this.page, modules, {
      x: this.left,
      y: this.y,
      width: this.width,
      height: o.height,
      moduleMax: o.moduleMax,
    });
    this.gap(6);
  }

  /**
   * Whether `height` more points fit above the bottom; when not, a document that continues
   * starts a new page (and answers true), a fixed page answers false.
   */
  room(height: number): boolean {
    if (this.y - height >= this.#layout.bottom) return true;
    const continuation = this.#layout.continuation;
    if (!continuation) return false;
    this.page = this.doc.addPage([...this.#layout.size]);
    this.y = this.#layout.size[1] - this.#layout.margin;
    continuation(this);
    return true;
  }
}
