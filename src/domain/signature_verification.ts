/**
 * Webhook signatures, receiver side (courier 6.1 and 6.2, business 6, shopping 6): V1, V2 and
 * V3 checked over the exact raw body, a stable reason code returned instead of throwing.
 */
import { constantTimeEqual } from "./secrets.ts";
import {
  bytesOf,
  hmacHex,
  type RawBody,
  SIGNATURE_TOLERANCE_SECONDS,
  type SignatureFailure,
  type SignatureVerdict,
  signV3,
  v2Message,
} from "./signatures.ts";

const SIGNATURE = /^sha256=([0-9a-f]{64})$/;
const TIMESTAMPED_SIGNATURE = /^t=(0|[1-9][0-9]{0,11}),sha256=([0-9a-f]{64})$/;

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
