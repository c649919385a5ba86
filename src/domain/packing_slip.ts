/**
 * The courier's packing slip (courier 4.5): an A4 PDF that travels with the parcel. It shows
 * who sends what to whom and how many pieces, never a price, a declared value or any money.
 * Pure: the slip is laid out from the facts given; the same input gives the same bytes.
 */
import { PageSizes, PDFDocument, type PDFFont, type PDFPage, rgb, StandardFonts } from "pdf-lib";

export interface SlipParty {
  readonly name: string | null;
  readonly address: string | null;
  readonly phone: string | null;
}

export interface SlipPiece {
  readonly id: string;
  readonly weight_kg: number;
  readonly length_cm: number;
  readonly width_cm: number;
  readonly height_cm: number;
}

/** What a slip is made from: no money field exists here, so none can be printed. */
export interface PackingSlipInput {
  readonly courier_name: string;
  readonly waybill: string;
  readonly booked_at: number;
  readonly printed_at: number;
  readonly service: { readonly code: string; readonly name: string };
  readonly sender: SlipParty;
  readonly recipient: SlipParty;
  readonly pieces: readonly SlipPiece[];
  readonly contents: string | null;
  readonly references: {
    readonly client_order_reference: string | null;
    readonly external_customer_code: string | null;
    readonly external_billing_reference: string | null;
  };
  readonly dangerous_goods_confirmed: boolean;
  readonly tracking_url: string;
}

const [PAGE_WIDTH, PAGE_HEIGHT] = PageSizes.A4;
const MARGIN = 40;
const CONTENT_WIDTH = PAGE_WIDTH - 2 * MARGIN;
/** Below this the footer is drawn: body lines stop above it. */
const BODY_BOTTOM = MARGIN + 30;
const BARCODE_HEIGHT = 56;
/** Code 39 allows a wide to narrow ratio of 2 to 3; 3 reads most reliably. */
const CODE39_WIDE_MODULES = 3;
/** Widest narrow bar, in points (about 0.6 mm): short waybills are not stretched further. */
const BARCODE_MODULE_MAX = 1.7;
/** Lines an address may take on the slip; longer ones end with an ellipsis. */
const ADDRESS_LINES_MAX = 6;
/** Where the piece table's columns start, from the left margin. */
const PIECE_COLUMNS = [0, 190, 300];
const INK = rgb(0, 0, 0);
const GREY = rgb(0.35, 0.35, 0.35);

/** Code 39 characters in table order (the start and stop `*` apart). */
const CODE39_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ-. $/+%";
/**
 * The standard Code 39 patterns: 9 elements (bar, space, ... bar), most significant bit first,
 * 1 for a wide element; exactly three are wide.
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

/**
 * A Code 39 symbol for `text` (start and stop `*` added, lower case read as upper case) as
 * modules, `1` for bar and `0` for space; characters are separated by one narrow space. Null
 * when a character has no Code 39 pattern.
 */
export function code39Modules(text: string, wide: number = CODE39_WIDE_MODULES): string | null {
  const patterns = [CODE39_START_STOP];
  for (const ch of text.toUpperCase()) {
    const i = CODE39_ALPHABET.indexOf(ch);
    const pattern = CODE39_PATTERNS[i];
    if (pattern === undefined) return null;
    patterns.push(pattern);
  }
  patterns.push(CODE39_START_STOP);
  return patterns.map((pattern) => {
    let modules = "";
    for (let element = 0; element < 9; element++) {
      const isWide = (pattern >> (8 - element)) & 1;
      modules += (element % 2 === 0 ? "1" : "0").repeat(isWide ? wide : 1);
    }
    return modules;
  }).join("0");
}

/** WinAnsi characters outside Latin-1 (0x80 to 0x9F): the standard fonts can draw these. */
const WIN_ANSI_EXTRA = new Set(
  "€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ".split("").map((ch) => ch.codePointAt(0)),
);

function isWinAnsi(code: number): boolean {
  return (code >= 0x20 && code <= 0x7e) || (code >= 0xa0 && code <= 0xff) ||
    WIN_ANSI_EXTRA.has(code);
}

/**
 * Text the standard PDF fonts (WinAnsi) can draw: control characters and other spaces become
 * spaces, a letter with an accent WinAnsi lacks loses the accent (`ő` reads `o`), a compatibility
 * form becomes its plain one (`ﬁ` reads `fi`), anything else (`ł`, `中`, an emoji) is `?`.
 */
export function winAnsiText(text: string): string {
  let out = "";
  for (const ch of text.normalize("NFC")) {
    const code = ch.codePointAt(0)!;
    if (isWinAnsi(code)) {
      out += ch;
    } else if (/[\s\p{Cc}]/u.test(ch)) {
      out += " ";
    } else {
      const base = ch.normalize("NFKD").replace(/\p{M}+/gu, "");
      out += base.length > 0 && [...base].every((b) => isWinAnsi(b.codePointAt(0)!)) ? base : "?";
    }
  }
  return out;
}

/** `text` broken into lines no wider than `width`; a word wider than a line is cut. */
export function wrapText(text: string, font: PDFFont, size: number, width: number): string[] {
  const fits = (s: string) => font.widthOfTextAtSize(s, size) <= width;
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter((w) => w.length > 0)) {
    const joined = line ? `${line} ${word}` : word;
    if (fits(joined)) {
      line = joined;
      continue;
    }
    if (line) lines.push(line);
    line = "";
    for (const ch of word) {
      if (line && !fits(line + ch)) {
        lines.push(line);
        line = "";
      }
      line += ch;
    }
  }
  if (line) lines.push(line);
  return lines;
}

interface Cell {
  readonly text: string;
  readonly x: number;
  readonly font: PDFFont;
}

interface Fonts {
  readonly regular: PDFFont;
  readonly bold: PDFFont;
  readonly mono: PDFFont;
}

/** Writes lines top down, starting a continuation page when one is full. */
class SlipWriter {
  readonly #doc: PDFDocument;
  readonly #fonts: Fonts;
  readonly #input: PackingSlipInput;
  page: PDFPage;
  y: number;

  constructor(doc: PDFDocument, fonts: Fonts, input: PackingSlipInput) {
    this.#doc = doc;
    this.#fonts = fonts;
    this.#input = input;
    this.page = doc.addPage(PageSizes.A4);
    this.y = PAGE_HEIGHT - MARGIN;
  }

  text(text: string, o: { size?: number; font?: PDFFont; x?: number; grey?: boolean } = {}) {
    this.row([{ text, x: o.x ?? MARGIN, font: o.font ?? this.#fonts.regular }], o);
  }

  /** Cells side by side on one line (on one page). */
  row(cells: readonly Cell[], o: { size?: number; grey?: boolean } = {}) {
    const size = o.size ?? 10;
    this.room(size * 1.35);
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

  gap(points: number) {
    this.y -= points;
  }

  rule() {
    this.room(8);
    this.y -= 4;
    this.page.drawLine({
      start: { x: MARGIN, y: this.y },
      end: { x: PAGE_WIDTH - MARGIN, y: this.y },
      thickness: 0.5,
      color: GREY,
    });
    this.y -= 4;
  }

  /** A new page when `height` more points would run into the footer. */
  room(height: number) {
    if (this.y - height >= BODY_BOTTOM) return;
    this.page = this.#doc.addPage(PageSizes.A4);
    this.y = PAGE_HEIGHT - MARGIN;
    const { courier_name, waybill } = this.#input;
    const line = `${courier_name}  -  packing slip ${waybill} (continued)`;
    this.text(clip(line, this.#fonts.bold, 11, CONTENT_WIDTH), {
      font: this.#fonts.bold,
      size: 11,
    });
    this.rule();
  }
}

/** The packing slip, A4, as PDF bytes. */
export async function packingSlipPdf(input: PackingSlipInput): Promise<Uint8Array<ArrayBuffer>> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  const fonts: Fonts = {
    regular: await doc.embedFont(StandardFonts.Helvetica),
    bold: await doc.embedFont(StandardFonts.HelveticaBold),
    mono: await doc.embedFont(StandardFonts.CourierBold),
  };
  setMetadata(doc, input);
  const w = new SlipWriter(doc, fonts, input);
  header(w, fonts, input);
  parties(w, fonts, input);
  details(w, fonts, input);
  pieces(w, fonts, input);
  w.gap(10);
  w.text("Track this shipment", { font: fonts.bold, size: 9 });
  for (const line of wrapText(winAnsiText(input.tracking_url), fonts.regular, 9, CONTENT_WIDTH)) {
    w.text(line, { size: 9 });
  }
  footers(doc, fonts, input);
  // A copy on its own ArrayBuffer: what a Response body takes.
  return new Uint8Array(await doc.save());
}

function setMetadata(doc: PDFDocument, input: PackingSlipInput) {
  const when = new Date(input.printed_at);
  doc.setTitle(`Packing slip ${input.waybill}`);
  doc.setSubject(input.waybill);
  doc.setAuthor(winAnsiText(input.courier_name));
  doc.setKeywords([input.waybill, ...input.pieces.map((p) => p.id)]);
  doc.setCreator(winAnsiText(input.courier_name));
  doc.setProducer("Courier platform");
  doc.setCreationDate(when);
  doc.setModificationDate(when);
}

function header(w: SlipWriter, fonts: Fonts, input: PackingSlipInput) {
  const title = "PACKING SLIP";
  const titleSize = 12;
  w.page.drawText(title, {
    x: PAGE_WIDTH - MARGIN - fonts.bold.widthOfTextAtSize(title, titleSize),
    y: w.y - titleSize,
    size: titleSize,
    font: fonts.bold,
    color: GREY,
  });
  const nameWidth = CONTENT_WIDTH - fonts.bold.widthOfTextAtSize(title, titleSize) - 20;
  w.text(clip(input.courier_name, fonts.bold, 16, nameWidth), { font: fonts.bold, size: 16 });
  w.gap(8);
  w.text(input.waybill, { font: fonts.mono, size: 30 });
  w.gap(6);
  barcode(w, input.waybill);
  const service = `${input.service.name} (${input.service.code})`;
  const facts = `Booked ${dateTime(input.booked_at)}    Pieces ${input.pieces.length}    ` +
    `Service ${service}`;
  w.text(clip(facts, fonts.regular, 10, CONTENT_WIDTH));
  w.rule();
}

/** The waybill as a Code 39 barcode, as wide as fits; skipped when it cannot be encoded. */
function barcode(w: SlipWriter, waybill: string) {
  const modules = code39Modules(waybill);
  if (modules === null) return;
  // Ten narrow modules of quiet zone each side.
  const module = Math.min(BARCODE_MODULE_MAX, CONTENT_WIDTH / (modules.length + 20));
  w.room(BARCODE_HEIGHT + 6);
  w.y -= BARCODE_HEIGHT;
  let x = MARGIN + 10 * module;
  for (const run of modules.match(/1+|0+/g) ?? []) {
    const width = run.length * module;
    if (run[0] === "1") {
      w.page.drawRectangle({ x, y: w.y, width, height: BARCODE_HEIGHT, color: INK });
    }
    x += width;
  }
  w.gap(6);
}

function parties(w: SlipWriter, fonts: Fonts, input: PackingSlipInput) {
  const columnWidth = CONTENT_WIDTH / 2 - 10;
  const column = (label: string, p: SlipParty, x: number): Cell[] => [
    { text: label, font: fonts.bold, x },
    { text: clip(p.name ?? "-", fonts.bold, 10, columnWidth), font: fonts.bold, x },
    ...addressLines(p.address ?? "-", fonts.regular, columnWidth)
      .map((text) => ({ text, font: fonts.regular, x })),
    { text: p.phone ? `Tel ${p.phone}` : "", font: fonts.regular, x },
  ];
  const left = column("FROM", input.sender, MARGIN);
  const right = column("TO", input.recipient, MARGIN + CONTENT_WIDTH / 2 + 10);
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    w.row([left[i], right[i]].filter((cell) => cell !== undefined));
  }
  w.rule();
}

function addressLines(address: string, font: PDFFont, width: number): string[] {
  const lines = wrapText(winAnsiText(address), font, 10, width);
  if (lines.length <= ADDRESS_LINES_MAX) return lines;
  const kept = lines.slice(0, ADDRESS_LINES_MAX);
  kept[ADDRESS_LINES_MAX - 1] = `${kept[ADDRESS_LINES_MAX - 1]}...`;
  return kept;
}

/** One line of `text`, cut with an ellipsis when wider than `width`. */
function clip(text: string, font: PDFFont, size: number, width: number): string {
  const safe = winAnsiText(text);
  if (font.widthOfTextAtSize(safe, size) <= width) return safe;
  let cut = safe;
  while (cut.length > 0 && font.widthOfTextAtSize(`${cut}...`, size) > width) {
    cut = cut.slice(0, -1);
  }
  return `${cut}...`;
}

function details(w: SlipWriter, fonts: Fonts, input: PackingSlipInput) {
  const r = input.references;
  const rows: [string, string][] = [
    ["Contents", input.contents ?? "-"],
    ["Client order reference", r.client_order_reference ?? "-"],
    ["External customer code", r.external_customer_code ?? "-"],
    ["External billing reference", r.external_billing_reference ?? "-"],
    ["Dangerous goods confirmed", input.dangerous_goods_confirmed ? "Yes" : "No"],
  ];
  const labelWidth = 150;
  for (const [label, value] of rows) {
    const lines = wrapText(winAnsiText(value), fonts.regular, 10, CONTENT_WIDTH - labelWidth);
    (lines.length > 0 ? lines : ["-"]).forEach((line, i) => {
      const text = { text: line, font: fonts.regular, x: MARGIN + labelWidth };
      w.row(i === 0 ? [{ text: label, font: fonts.bold, x: MARGIN }, text] : [text]);
    });
  }
  w.rule();
}

function pieces(w: SlipWriter, fonts: Fonts, input: PackingSlipInput) {
  const row = (cells: readonly string[], font: PDFFont) =>
    w.row(cells.map((text, i) => ({ text, font, x: MARGIN + (PIECE_COLUMNS[i] ?? 0) })));
  const heading = () => row(["Piece", "Weight", "Dimensions (L x W x H)"], fonts.bold);
  heading();
  for (const p of input.pieces) {
    // A page that starts with a piece repeats the heading.
    const before = w.page;
    w.room(14);
    if (w.page !== before) heading();
    row([
      p.id,
      `${p.weight_kg} kg`,
      `${p.length_cm} x ${p.width_cm} x ${p.height_cm} cm`,
    ], fonts.regular);
  }
}

function footers(doc: PDFDocument, fonts: Fonts, input: PackingSlipInput) {
  const pages = doc.getPages();
  pages.forEach((page, i) => {
    page.drawText(
      winAnsiText(
        `${input.waybill}    Page ${i + 1} of ${pages.length}    Printed ${
          dateTime(input.printed_at)
        }`,
      ),
      { x: MARGIN, y: MARGIN, size: 8, font: fonts.regular, color: GREY },
    );
  });
}

/** `2026-03-02 09:15 UTC`. */
function dateTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}
