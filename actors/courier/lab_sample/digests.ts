/**
 * A reading as the sample remembers it to keep it once (courier 2.10: the same reading, its
 * device, time, value and unit, sent twice is kept once, however many came between): a digest of
 * the four, LAB_READING_DIGEST_CHARS long, one per reading kept.
 */
import { base64url, sha256 } from "../../../src/domain/secrets.ts";
import { LAB_READING_DIGEST_CHARS } from "../../../src/limits.ts";
import type { LabReading } from "./types.ts";

/** What makes a reading the same reading. */
export type ReadingIdentity = Pick<LabReading, "device" | "time" | "value" | "unit">;

/** 96 bits (12 bytes) of the identity's SHA-256, in base64url. */
export function readingDigest(r: ReadingIdentity): string {
  const digest = base64url(sha256(JSON.stringify([r.device, r.time, r.value, r.unit])));
  return digest.slice(0, LAB_READING_DIGEST_CHARS);
}
