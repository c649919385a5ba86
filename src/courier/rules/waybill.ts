/**
 * Sequenced waybills (courier 2.3: the waybill identifies a shipment), pure: the text of a number
 * of the service's waybill sequence, and how references and waybills carry it. The numbers are
 * handed out by src/courier/flows/waybills.ts.
 */
import { sha256 } from "../../domain/secrets.ts";

/** Base 32 without I, O, 0 and 1 (misread on paper), in ASCII order so text order is number order. */
const SEQUENCE_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ";
/** 13 characters: one more than the derived waybills' 12, so the two kinds never meet. */
const SEQUENCE_CHARS = 13;

const NUMBER_TEXT = `([${SEQUENCE_ALPHABET}]{${SEQUENCE_CHARS}})`;
const SEQUENCED_REFERENCE = new RegExp(`^(?:prc|qt)_W${NUMBER_TEXT}$`);
const SEQUENCED_WAYBILL = new RegExp(`^WB${NUMBER_TEXT}$`);

/** `n` as SEQUENCE_CHARS characters of SEQUENCE_ALPHABET, most significant first. */
export function sequenceText(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`not a sequence number: ${n}`);
  let out = "";
  for (let rest = n; out.length < SEQUENCE_CHARS; rest = Math.floor(rest / 32)) {
    out = SEQUENCE_ALPHABET[rest % 32] + out;
  }
  return out;
}

/** An offer's reference for sequence number `n`: `prc_` (prices) or `qt_` (a quote), then W. */
export function sequencedReference(kind: "prices" | "quote", n: number): string {
  return `${kind === "quote" ? "qt" : "prc"}_W${sequenceText(n)}`;
}

/** The waybill an offer reference names by its sequence number, or null for an older one. */
export function sequencedWaybill(reference: string): string | null {
  const m = SEQUENCED_REFERENCE.exec(reference);
  return m ? `WB${m[1]}` : null;
}

const WAYBILL_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";

/**
 * The waybill of an offer's booking, from its reference alone, so every retry of the booking names
 * the same shipment: the number a sequenced reference carries (src/courier/flows/waybills.ts),
 * else, for references made before the sequence and those derived from a request's identity,
 * `WB` and 12 characters of SHA-256 over the courier and the reference (60 bits).
 */
export function waybillOf(courierId: string, reference: string): string {
  const sequenced = sequencedWaybill(reference);
  if (sequenced !== null) return sequenced;
  const digest = sha256(`${courierId}:${reference}`);
  let out = "WB";
  for (let i = 0; i < 12; i++) out += WAYBILL_ALPHABET[digest[i]! % 32];
  return out;
}

/** The sequence number's text in a sequenced waybill, or null for any other text. */
export function waybillNumberText(waybill: string): string | null {
  return SEQUENCED_WAYBILL.exec(waybill)?.[1] ?? null;
}

/**
 * The spellings of a searched text that may name a waybill: as typed, and upper-cased, since
 * every waybill is upper-case letters and digits and people type or scan them in lower case.
 * External references stay exact: a client's system may tell "a1" from "A1".
 */
export function waybillSpellings(q: string): string[] {
  const upper = q.toUpperCase();
  return upper === q ? [q] : [q, upper];
}
