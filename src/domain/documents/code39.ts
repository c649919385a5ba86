/**
 * Code 39 barcodes for the courier's paper (courier 4.5, 4.6): the waybill and each piece id as
 * bars a hand scanner reads. Pure: text in, modules out; drawing lives in `draw.ts`.
 */

/** Code 39 allows a wide to narrow ratio of 2 to 3; 3 reads most reliably. */
export const CODE39_WIDE_MODULES = 3;
/** Code 39 characters in table order (the start and stop `*` apart). */
export const CODE39_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ-. $/+%";
/**
 * The standard Code 39 patterns: 9 elements (bar, space, ... bar), most significant bit first,
 * 1 for a wide element; exactly three are wide.
 */
// deno-fmt-ignore
export const CODE39_PATTERNS = [
  0x034, 0x121, 0x061, 0x160, 0x031, 0x130, 0x070, 0x025, 0x124, 0x064, // 0-9
  0x109, 0x049, 0x148, 0x019, 0x118, 0x058, 0x00D, 0x10C, 0x04C, 0x01C, // A-J
  0x103, 0x043, 0x142, 0x013, 0x112, 0x052, 0x007, 0x106, 0x046, 0x016, // K-T
  0x181, 0x0C1, 0x1C0, 0x091, 0x190, 0x0D0, 0x085, 0x184, 0x0C4, 0x0A8, // U-$
  0x0A2, 0x08A, 0x02A, // /-%
] as const;
export const CODE39_START_STOP = 0x094;

/** The first character of `text` Code 39 cannot carry (lower case reads as upper), or null. */
export function code39Unencodable(text: string): string | null {
  for (const ch of text.toUpperCase()) {
    if (!CODE39_ALPHABET.includes(ch)) return ch;
  }
  return null;
}

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
