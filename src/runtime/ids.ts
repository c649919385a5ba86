/** Identifiers: random (WebCrypto), prefixed with what they name. */

const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";

/** `prefix_` plus 20 base-36 characters (about 103 bits). */
export function newId(prefix: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(20));
  let out = "";
  for (const b of bytes) out += ALPHABET[b % 36];
  return `${prefix}_${out}`;
}
