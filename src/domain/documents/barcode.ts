/**
 * Linear barcodes for printed documents (courier 4.5, 4.6; Business API 4.1), encoded by bwip-js
 * (the maintained Barcode Writer in Pure PostScript): Code 39 for the courier's waybills and
 * pieces, Code 128 for the Business API's documents. Pure: text in, modules out (`1` bar, `0`
 * space); drawing lives in `draw.ts`, as vector bars, so a page stays sharp at any printer.
 */
import bwipjs from "bwip-js";

/** Code 39 characters (the start and stop `*` apart); lower case is read as upper case. */
const CODE39_CHARACTERS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ-. $/+%";

/** The first character of `text` Code 39 cannot carry (lower case reads as upper), or null. */
export function code39Unencodable(text: string): string | null {
  for (const ch of text.toUpperCase()) {
    if (!CODE39_CHARACTERS.includes(ch)) return ch;
  }
  return null;
}

/** bwip-js's bar and space widths (bar first) as modules, trailing space dropped. */
function modulesOf(bcid: string, text: string): string {
  const [symbol] = bwipjs.raw({ bcid, text });
  if (!symbol || !("sbs" in symbol)) throw new Error(`${bcid}: no linear symbol`);
  return symbol.sbs.map((width, i) => (i % 2 === 0 ? "1" : "0").repeat(width)).join("")
    .replace(/0+$/, "");
}

/**
 * A Code 39 symbol for `text` (start and stop `*` added, lower case read as upper case, wide
 * elements three modules): null when a character has no Code 39 pattern.
 */
export function code39Modules(text: string): string | null {
  if (code39Unencodable(text) !== null) return null;
  return modulesOf("code39", text.toUpperCase());
}

/** A Code 128 symbol for printable ASCII `text` (bwip-js picks the code sets and check digit). */
export function code128Modules(text: string): string {
  return modulesOf("code128", text);
}
