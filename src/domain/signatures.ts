/**
 * Webhook signatures, sender and receiver side (courier 6.1 and 6.2, business 6, shopping 6).
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
import { constantTimeEqual, hex } from "./secrets.ts";

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
const SIGNATURE = /^sha256=([0-9a-f]{64})$/;
const TIMESTAMPED_SIGNATURE = /^t=(0|[1-9][0-9]{0,11}),sha256=([0-9a-f]{64})$/;

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

/** What one delivery attempt of a courier billing event needs (courier 6.1). */
export interface BillingDelivery {
  readonly secret: string;
  readonly keyId: string;
  readonly eventId: string;
  readonly attemptId: string;
  readonly deliveryTimestamp: number;
  readonly rawBody: RawBody;
  /** The rotated-out secret during its grace period: it signs a second V3 header. */
  readonly previous?: PreviousKey | null;
}

/** A secret replaced by a rotation and still honoured until its grace period ends. */
export interface PreviousKey {
  readonly keyId: string;
  readonly secret: string;
}

export type BillingDeliveryHeaders = {
  readonly "Content-Type": "application/json";
  readonly "X-Service-Event-Id": string;
  readonly "Idempotency-Key": string;
  readonly "X-Service-Signature": string;
  readonly "X-Service-Signature-V3": string;
  readonly "X-Service-Delivery-Timestamp": string;
  readonly "X-Service-Attempt-Id": string;
  readonly "X-Service-Key-Id": string;
  readonly "X-Service-Api-Version": typeof API_VERSION;
  /** During a rotation's grace period: the same V3 signature under the previous key. */
  readonly "X-Service-Signature-V3-Previous"?: string;
  readonly "X-Service-Previous-Key-Id"?: string;
};

/** Every header of a billing event delivery: V1 and V3 signatures, ids, key id, api version. */
export async function v3Headers(delivery: BillingDelivery): Promise<BillingDeliveryHeaders> {
  const { secret, rawBody, eventId, attemptId, deliveryTimestamp, previous } = delivery;
  const parts = { apiVersion: API_VERSION, deliveryTimestamp, eventId, attemptId, rawBody };
  return {
    "Content-Type": "application/json",
    "X-Service-Event-Id": eventId,
    "Idempotency-Key": eventId,
    "X-Service-Signature": await signV1(secret, rawBody),
    "X-Service-Signature-V3": await signV3(secret, parts),
    "X-Service-Delivery-Timestamp": timestampText(deliveryTimestamp),
    "X-Service-Attempt-Id": attemptId,
    "X-Service-Key-Id": delivery.keyId,
    "X-Service-Api-Version": API_VERSION,
    ...(previous
      ? {
        "X-Service-Signature-V3-Previous": await signV3(previous.secret, parts),
        "X-Service-Previous-Key-Id": previous.keyId,
      }
      : {}),
  };
}

/** What one delivery of a client, business or shopping webhook needs (courier 6.2, business 6). */
export interface WebhookDelivery {
  readonly secret: string;
  /** Event name, e.g. `shipment.delivered`. */
  readonly event: string;
  /** The event id: identical on every retry (shopping 6). */
  readonly deliveryId: string;
  readonly timestamp: number;
  readonly rawBody: RawBody;
  /** The rotated-out secret during its grace period: it signs a second V2 header. */
  readonly previous?: PreviousKey | null;
}

export type WebhookDeliveryHeaders = {
  readonly "Content-Type": "application/json";
  readonly "X-Service-Signature": string;
  readonly "X-Service-Signature-V2": string;
  readonly "X-Service-Timestamp": string;
  readonly "X-Service-Event": string;
  readonly "X-Service-Delivery": string;
  readonly "X-Service-Api-Version": typeof API_VERSION;
  /** During a rotation's grace period: the V2 signature under the previous secret. */
  readonly "X-Service-Signature-V2-Previous"?: string;
};

/** Every header of a V2-family webhook delivery: V1 and V2 signatures, timestamp, event, id, version. */
export async function v2Headers(delivery: WebhookDelivery): Promise<WebhookDeliveryHeaders> {
  const { secret, rawBody, timestamp } = delivery;
  return {
    "Content-Type": "application/json",
    "X-Service-Signature": await signV1(secret, rawBody),
    "X-Service-Signature-V2": await signV2(secret, rawBody, timestamp),
    "X-Service-Timestamp": timestampText(timestamp),
    "X-Service-Event": delivery.event,
    "X-Service-Delivery": delivery.deliveryId,
    // spec: courier 9.1, every delivery carries the version header, client webhooks too.
    "X-Service-Api-Version": API_VERSION,
    ...(delivery.previous
      ? {
        "X-Service-Signature-V2-Previous": await signV2(
          delivery.previous.secret,
          rawBody,
          timestamp,
        ),
      }
      : {}),
  };
}

/** The headers of shopping 6, exactly: V2 only, no other signature and no grace-period header. */
export type ShoppingDeliveryHeaders = {
  readonly "Content-Type": "application/json";
  readonly "X-Service-Timestamp": string;
  readonly "X-Service-Delivery": string;
  readonly "X-Service-Event": string;
  readonly "X-Service-Signature-V2": string;
};

/**
 * spec: shopping 6, 9: a shopping event is signed with V2 only, under the secret held at the
 * attempt (a rotation is in force at once, so no previous secret signs).
 */
export async function shoppingHeaders(
  delivery: Omit<WebhookDelivery, "previous">,
): Promise<ShoppingDeliveryHeaders> {
  const { secret, rawBody, timestamp } = delivery;
  return {
    "Content-Type": "application/json",
    "X-Service-Timestamp": timestampText(timestamp),
    "X-Service-Delivery": delivery.deliveryId,
    "X-Service-Event": delivery.event,
    "X-Service-Signature-V2": await signV2(secret, rawBody, timestamp),
  };
}

/** Secrets a receiver holds; several during a rotation. */
export type SecretList = string | readonly string[];

/** Receiver of `X-Service-Signature`: any held secret may have signed it. */
export async function verifyV1(
  secrets: SecretList,
  rawBody: RawBody,
  header: string | null | undefined,
): Promise<SignatureVerdict> {
  const match = SIGNATURE.exec(header ?? "");
  if (!match) return refuse("bad_header");
  const body = bytesOf(rawBody);
  return await anyMatches(secrets, body, match[1]!);
}

/** Receiver of `X-Service-Signature-V2`: strict `t=<ts>,sha256=<hex>`, 300 s tolerance. */
export async function verifyV2(
  secrets: SecretList,
  rawBody: RawBody,
  header: string | null | undefined,
  nowSeconds: number,
): Promise<SignatureVerdict> {
  const match = TIMESTAMPED_SIGNATURE.exec(header ?? "");
  if (!match) return refuse("bad_header");
  const timestamp = Number(match[1]);
  if (!isFresh(timestamp, nowSeconds)) return refuse("stale_timestamp");
  return await anyMatches(secrets, v2Message(timestamp, rawBody), match[2]!);
}

/** Secrets by key id, as a table or a lookup (e.g. a store read). */
export type SecretsByKeyId =
  | Readonly<Record<string, string>>
  | ((keyId: string) => string | undefined | Promise<string | undefined>);

/** Request headers as received; names are matched case-insensitively. */
export type HeaderSource = Headers | Readonly<Record<string, string | undefined>>;

export interface V3Verification {
  readonly secrets: SecretsByKeyId;
  /** Defaults to the `X-Service-Key-Id` header; when both are given they must agree. */
  readonly keyId?: string;
  readonly rawBody: RawBody;
  readonly headers: HeaderSource;
  readonly nowSeconds: number;
}

/**
 * Receiver of a billing event (courier 6.1): headers parsed strictly, timestamp within 300 s,
 * the named key held, the V3 signature checked over the raw body, and only then the body parsed
 * to check its event_id and api_version against the headers.
 */
export async function verifyV3(input: V3Verification): Promise<SignatureVerdict> {
  const parsed = parseV3Headers(input.headers, input.keyId);
  if (!parsed) return refuse("bad_header");
  if (!isFresh(parsed.timestamp, input.nowSeconds)) return refuse("stale_timestamp");
  let secret = await secretFor(input.secrets, parsed.keyId);
  let signature = parsed.signature;
  if (secret === undefined && parsed.previous !== null) {
    // A receiver that still holds only the rotated-out key checks the signature made with it.
    secret = await secretFor(input.secrets, parsed.previous.keyId);
    signature = parsed.previous.signature;
  }
  if (secret === undefined) return refuse("unknown_key");
  const expected = await signV3(secret, {
    apiVersion: parsed.apiVersion,
    deliveryTimestamp: parsed.timestamp,
    eventId: parsed.eventId,
    attemptId: parsed.attemptId,
    rawBody: input.rawBody,
  });
  if (!constantTimeEqual(expected, signature)) return refuse("bad_signature");
  const body = eventFieldsOf(input.rawBody);
  if (body?.eventId !== parsed.eventId || body.apiVersion !== parsed.apiVersion) {
    return refuse("mismatched_event");
  }
  return { ok: true };
}

interface ParsedV3 {
  readonly signature: string;
  readonly timestamp: number;
  readonly keyId: string;
  readonly eventId: string;
  readonly attemptId: string;
  readonly apiVersion: string;
  readonly previous: { readonly keyId: string; readonly signature: string } | null;
}

function parseV3Headers(headers: HeaderSource, keyIdOption: string | undefined): ParsedV3 | null {
  const signature = headerOf(headers, "x-service-signature-v3");
  const deliveryTimestamp = headerOf(headers, "x-service-delivery-timestamp");
  const headerKeyId = headerOf(headers, "x-service-key-id");
  const eventId = headerOf(headers, "x-service-event-id");
  const attemptId = headerOf(headers, "x-service-attempt-id");
  const apiVersion = headerOf(headers, "x-service-api-version");
  const match = TIMESTAMPED_SIGNATURE.exec(signature ?? "");
  if (!match || deliveryTimestamp === undefined || deliveryTimestamp !== match[1]) return null;
  if (headerKeyId !== undefined && keyIdOption !== undefined && headerKeyId !== keyIdOption) {
    return null;
  }
  const keyId = keyIdOption ?? headerKeyId;
  if (!keyId || !eventId || !attemptId || !apiVersion) return null;
  const previousKeyId = headerOf(headers, "x-service-previous-key-id");
  const previousMatch = TIMESTAMPED_SIGNATURE.exec(
    headerOf(headers, "x-service-signature-v3-previous") ?? "",
  );
  const previous = previousKeyId && previousMatch && previousMatch[1] === deliveryTimestamp
    ? { keyId: previousKeyId, signature: previousMatch[0] }
    : null;
  return {
    previous,
    signature: match[0],
    timestamp: Number(deliveryTimestamp),
    keyId,
    eventId,
    attemptId,
    apiVersion,
  };
}

function headerOf(headers: HeaderSource, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const values = Object.entries(headers).filter(([key]) => key.toLowerCase() === name);
  // The same header twice under different casing is ambiguous: it reads as empty, which no
  // check accepts.
  if (values.length > 1) return "";
  return values[0]?.[1];
}

async function secretFor(secrets: SecretsByKeyId, keyId: string): Promise<string | undefined> {
  if (typeof secrets === "function") return await secrets(keyId);
  return Object.hasOwn(secrets, keyId) ? secrets[keyId] : undefined;
}

/** `event_id` and `api_version` of a JSON body, or null when it is not such an object. */
function eventFieldsOf(rawBody: RawBody): { eventId: unknown; apiVersion: unknown } | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytesOf(rawBody)));
  } catch {
    return null;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return null;
  const record = parsed as Record<string, unknown>;
  return { eventId: record["event_id"], apiVersion: record["api_version"] };
}

async function anyMatches(
  secrets: SecretList,
  message: Uint8Array,
  presentedHex: string,
): Promise<SignatureVerdict> {
  const held = typeof secrets === "string" ? [secrets] : secrets;
  let matched = false;
  // Every held secret is tried, so the time taken does not say which one matched.
  for (const secret of held) {
    if (constantTimeEqual(await hmacHex(secret, message), presentedHex)) matched = true;
  }
  return matched ? { ok: true } : refuse("bad_signature");
}

function isFresh(timestamp: number, nowSeconds: number): boolean {
  return Math.abs(nowSeconds - timestamp) <= SIGNATURE_TOLERANCE_SECONDS;
}

function refuse(reason: SignatureFailure): SignatureVerdict {
  return { ok: false, reason };
}

/** A signing timestamp is whole non-negative unix seconds; anything else is a caller bug. */
function timestampText(timestamp: number): string {
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new RangeError(`signature timestamp must be whole unix seconds: ${timestamp}`);
  }
  return String(timestamp);
}

function bytesOf(rawBody: RawBody): Uint8Array {
  return typeof rawBody === "string" ? encoder.encode(rawBody) : rawBody;
}

function v2Message(timestamp: number, rawBody: RawBody): Uint8Array {
  const prefix = encoder.encode(`${timestampText(timestamp)}.`);
  const body = bytesOf(rawBody);
  const message = new Uint8Array(prefix.length + body.length);
  message.set(prefix, 0);
  message.set(body, prefix.length);
  return message;
}

async function hmacHex(secret: string, message: Uint8Array): Promise<string> {
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
