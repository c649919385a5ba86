/**
 * Text on the courier's paper (courier 4.5, 4.6): what the standard PDF fonts can draw, wrapped to
 * a width, cut to a line or a number of lines, and dates as printed. Pure.
 */
import type { PDFFont } from "pdf-lib";
import { latinOf } from "./latin.ts";

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
 * form becomes its plain one (`ﬁ` reads `fi`), a stroked Latin, Cyrillic or Greek letter its
 * Latin (`ł` reads `l`, `Ж` `Zh`, `Θ` `Th`: latin.ts), anything else (`中`, an emoji) is `?`.
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
      const base = [...ch.normalize("NFKD").replace(/\p{M}+/gu, "")];
      const latin = base.map((b) => isWinAnsi(b.codePointAt(0)!) ? b : latinOf(b));
      out += base.length > 0 && latin.every((l) => l !== null) ? latin.join("") : "?";
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

/** One line of `text`, cut with an ellipsis when wider than `width`. */
export function clip(text: string, font: PDFFont, size: number, width: number): string {
  const safe = winAnsiText(text);
  if (font.widthOfTextAtSize(safe, size) <= width) return safe;
  // The longest prefix that fits with the ellipsis: a binary search over its length.
  let [fits, over] = [0, safe.length];
  while (over - fits > 1) {
    const mid = Math.floor((fits + over) / 2);
    if (font.widthOfTextAtSize(`${safe.slice(0, mid)}...`, size) <= width) fits = mid;
    else over = mid;
  }
  return `${safe.slice(0, fits)}...`;
}

/** `text` wrapped to `width`, at most `max` lines; the last kept line ends `...` when cut. */
export function clippedLines(
  text: string,
  o: { font: PDFFont; size: number; width: number; max: number },
): string[] {
  const lines = wrapText(winAnsiText(text), o.font, o.size, o.width);
  if (lines.length <= o.max) return lines;
  const kept = lines.slice(0, o.max);
  kept[o.max - 1] = clip(`${kept[o.max - 1]}...`, o.font, o.size, o.width);
  return kept;
}

/** `2026-03-02 09:15 UTC`. */
export function dateTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}
