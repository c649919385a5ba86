/**
 * Webhook signatures: the formats and their signing (courier 6.1 and 6.2, business 6, shopping 6);
 * the headers of a delivery are in delivery_headers.ts, the receiver side in
 * signature_verification.ts.
 *
 * - V1 `X-Service-Signature: sha256=<hex>`: HMAC-SHA256 of the exact raw body.
 * - V2 `X-Service-Signature-V2: t=<ts>,sha256=<hex>`: HMAC over `<ts>.<raw body>`.
 * - V3 `X-Service-Signature-V3: t=<ts>,sha256=<hex>`: HMAC over five lines (api_version,
 *   delivery timestamp, event_id, attempt id, base64 SHA-256 of the raw body).
 *
 * The HMAC key is the UTF-8 bytes of the whole secret, prefix included (CONTRACT "Signatures").
 * Timestamps are unix seconds. Everything is computed over bytes, never over re-serialized JSON.
 * Verifiers return a stable reason code instead of throwing.
 */
import { hex } from "./secrets.ts";

/** Courier 8, shopping 8: a receiver rejects a timestamp more than 5 minutes either side. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;
/** Courier 9: every event body carries `api_version` and every delivery this header value. */
export const API_VERSION = "v1";

/** The exact bytes sent; a string stands for its UTF-8 encoding. */
export type RawBody = Uint8Array | string;

/** Why a delivery failed verification, in order of precedence. */
export type SignatureFailure =
  | "bad_header"
  | "stale_timestamp"
  | "unknown_key"
  | "bad_signature"
  | "mismatched_event";

export type SignatureVerdict = { readonly ok: true } | {
  readonly ok: false;
  readonly reason: SignatureFailure;
};

/** The parts a V3 signature covers (courier 6.1). */
export interface V3Parts {
  readonly apiVersion: string;
  readonly deliveryTimestamp: number;
  readonly eventId: string;
  readonly attemptId: string;
  readonly rawBody: RawBody;
}

const encoder = new TextEncoder();

/** `sha256=<hex>`: HMAC-SHA256 of the exact raw body (the body-only header). */
export async function signV1(secret: string, rawBody: RawBody): Promise<string> {
  return `sha256=${await hmacHex(secret, bytesOf(rawBody))}`;
}

/** `t=<ts>,sha256=<hex>` over `<ts>.<raw body>` (shopping 6; business 6 V2). */
export async function signV2(secret: string, rawBody: RawBody, timestamp: number): Promise<string> {
  return `t=${timestampText(timestamp)},sha256=${await hmacHex(
    secret,
    v2Message(timestamp, rawBody),
  )}`;
}

/** The five lines V3 signs, joined by line feeds (courier 6.1). */
export async function canonicalV3(parts: V3Parts): Promise<string> {
  return [
    parts.apiVersion,
    timestampText(parts.deliveryTimestamp),
    parts.eventId,
    parts.attemptId,
    await sha256Base64(bytesOf(parts.rawBody)),
  ].join("\n");
}

/** `t=<delivery timestamp>,sha256=<hex of HMAC over canonicalV3(parts)>`. */
export async function signV3(secret: string, parts: V3Parts): Promise<string> {
  const mac = await hmacHex(secret, encoder.encode(await canonicalV3(parts)));
  return `t=${timestampText(parts.deliveryTimestamp)},sha256=${mac}`;
}

/** A signing timestamp is whole non-negative unix seconds; anything else is a caller bug. */
export function timestampText(timestamp: number): string {
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new RangeError(`signature timestamp must be whole unix seconds: ${timestamp}`);
  }
  return String(timestamp);
}

export function bytesOf(rawBody: RawBody): Uint8Array {
  return typeof rawBody === "string" ? encoder.encode(rawBody) : rawBody;
}

export function v2Message(timestamp: number, rawBody: RawBody): Uint8Array {
  const prefix = encoder.encode(`${timestampText(timestamp)}.`);
  const body = bytesOf(rawBody);
  const message = new Uint8Array(prefix.length + body.length);
  message.set(prefix, 0);
  message.set(body, prefix.length);
  return message;
}

export async function hmacHex(secret: string, message: Uint8Array): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    encoder.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return hex(new Uint8Array(await crypto.subtle.sign("HMAC", key, message as BufferSource)));
}

async function sha256Base64(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as BufferSource));
  let binary = "";
  for (const b of digest) binary += String.fromCharCode(b);
  return btoa(binary);
}
