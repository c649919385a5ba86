/**
 * The rules of a driver's trip actions (Business API 2.2 custody scanning, 3.1 transitions): how a
 * scan matches the custody token, when a return is due, and how long a trip a driver gave back
 * may still be dispatched.
 */

/** A failed delivery's goods are due back at the store within this (a working afternoon). */
export const RETURN_DUE_MS = 4 * 60 * 60_000;

/** Characters of a custody token: no 0/O or 1/I, which a person reading a label confuses. */
const SCAN_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
/** Characters on each side of the token's hyphen. */
const SCAN_HALF_CHARS = 4;

/**
 * spec: business 2.2: the custody token, random: only the label carries it, so a scan shows the
 * driver held the bag. Derived from the reference, as it was, anyone who read the reference could
 * work it out and "scan" without the bag. A booking's retry answers the trip made, token and all.
 */
export function newScanCode(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(SCAN_HALF_CHARS * 2));
  let code = "";
  // 256 is a multiple of the alphabet's 32 characters: every character is as likely.
  for (const b of bytes) code += SCAN_ALPHABET[b % SCAN_ALPHABET.length];
  return `${code.slice(0, SCAN_HALF_CHARS)}-${code.slice(SCAN_HALF_CHARS)}`;
}

/** spec: business 2.2: the scanner accepts the token with or without the hyphen, in any case. */
export function scanMatches(expected: string, scanned: string): boolean {
  const plain = (s: string) => s.replace(/[-\s]/g, "").toUpperCase();
  return plain(expected) === plain(scanned);
}

/** A delivery code as the recipient says it: spaces and case do not matter. */
export function deliveryCodeMatches(expected: string, given: string): boolean {
  const plain = (s: string) => s.replace(/\s/g, "").toUpperCase();
  return plain(expected) === plain(given);
}

/**
 * spec: business 3.1 "driver cancels before collection: cancelled or put back for another
 * driver": put back while the dispatch window is open.
 */
export function redispatchable(windowEndsAt: number, now: number): boolean {
  return now < windowEndsAt;
}

/**
 * A proof photo's or signature's image type, read from its first bytes (the declared type is the
 * client's word): JPEG, PNG or WebP, else null.
 */
export function imageTypeOf(bytes: Uint8Array): "image/jpeg" | "image/png" | "image/webp" | null {
  const starts = (sig: readonly number[], at = 0) => sig.every((b, i) => bytes[at + i] === b);
  if (starts([0xff, 0xd8, 0xff])) return "image/jpeg";
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (starts([0x52, 0x49, 0x46, 0x46]) && starts([0x57, 0x45, 0x42, 0x50], 8)) return "image/webp";
  return null;
}

/**
 * spec: business 3.1 "delivery done: proof photo and signature": a delivery leaves goods with
 * someone and proves it; a ride carries a passenger, who needs neither.
 */
export function proofRequired(type: "ride" | "parcel"): boolean {
  return type === "parcel";
}
