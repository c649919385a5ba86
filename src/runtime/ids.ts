/** Identifiers: random (WebCrypto), prefixed with what they name. */
import { createHash } from "node:crypto";

const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";

/** `prefix_` plus 20 base-36 characters (about 103 bits). */
export function newId(prefix: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(20));
  let out = "";
  for (const b of bytes) out += ALPHABET[b % 36];
  return `${prefix}_${out}`;
}

/**
 * The identifier `newId` would give, derived from `seed` (SHA-256): the same seed names the same
 * thing, so a retried request under one idempotency key refers to what its first attempt made.
 */
export function derivedId(prefix: string, seed: string): string {
  const bytes = createHash("sha256").update(seed).digest();
  let out = "";
  for (const b of bytes.subarray(0, 20)) out += ALPHABET[b % 36];
  return `${prefix}_${out}`;
}
