/**
 * Signed links (shopping 6 "Receipt URL"; Business API 6 `packing_slip_url`): a token naming what
 * it opens and until when, with an HMAC-SHA256 over those bytes under the business's link key.
 * Anyone holding the link may open it until it expires; an expired or altered one is refused.
 * Pure apart from WebCrypto: no clock, no store.
 */
import { base64url, constantTimeEqual, fromBase64url } from "../../domain/secrets.ts";

/** What a link opens: a store's receipt photo (by its content hash) or an order's packing slip. */
export type LinkSubject =
  | { readonly kind: "receipt"; readonly reference: string; readonly sha256: string }
  | { readonly kind: "packing_slip"; readonly reference: string };

export interface LinkClaims {
  readonly business: string;
  readonly subject: LinkSubject;
  /** Unix milliseconds after which the link answers 403. */
  readonly expires_at: number;
}

/** Why a link is refused: expired (it verified), or altered (it did not). */
export type LinkVerdict =
  | { readonly ok: true; readonly claims: LinkClaims }
  | { readonly ok: false; readonly reason: "link_expired" | "link_invalid" };

const encoder = new TextEncoder();
const SHA256_HEX = /^[0-9a-f]{64}$/;

/** The HMAC key of a business's link secret (its whole text's UTF-8 bytes, as webhook secrets). */
export async function linkKeyOf(secret: string): Promise<CryptoKey> {
  return await crypto.subtle.importKey(
    "raw",
    encoder.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
}

async function mac(key: CryptoKey, payload: string): Promise<string> {
  return base64url(new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(payload))));
}

/** `<payload>.<mac>`: both base64url, so the token is one path segment. */
export async function signLink(key: CryptoKey, claims: LinkClaims): Promise<string> {
  const s = claims.subject;
  const fields = s.kind === "receipt"
    ? ["r", claims.business, s.reference, s.sha256, claims.expires_at]
    : ["p", claims.business, s.reference, claims.expires_at];
  const payload = base64url(encoder.encode(JSON.stringify(fields)));
  return `${payload}.${await mac(key, payload)}`;
}

/**
 * The business a token names, read before it is verified (to find the key it must verify
 * under); null when the token is not one of ours at all.
 */
export function linkClaimsOf(token: string): LinkClaims | null {
  const [payload, signature, ...rest] = token.split(".");
  if (!payload || !signature || rest.length > 0) return null;
  let fields: unknown;
  try {
    fields = JSON.parse(new TextDecoder().decode(fromBase64url(payload)));
  } catch {
    return null;
  }
  if (!Array.isArray(fields) || !fields.every((f) => typeof f === "string" || isWhole(f))) {
    return null;
  }
  const [kind, business, reference, ...tail] = fields as (string | number)[];
  if (typeof business !== "string" || typeof reference !== "string") return null;
  if (kind === "r" && tail.length === 2 && typeof tail[0] === "string" && isWhole(tail[1])) {
    if (!SHA256_HEX.test(tail[0])) return null;
    const subject = { kind: "receipt" as const, reference, sha256: tail[0] };
    return { business, subject, expires_at: tail[1] };
  }
  if (kind === "p" && tail.length === 1 && isWhole(tail[0])) {
    return { business, subject: { kind: "packing_slip", reference }, expires_at: tail[0] };
  }
  return null;
}

function isWhole(v: unknown): v is number {
  return typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
}

/**
 * spec: shopping 6: an altered link (any byte of its claims or its MAC) is invalid; a valid one
 * past `expires_at` is expired. The MAC is compared in constant time.
 */
export async function verifyLink(
  key: CryptoKey | null,
  token: string,
  now: number,
): Promise<LinkVerdict> {
  const claims = linkClaimsOf(token);
  if (!claims || !key) return { ok: false, reason: "link_invalid" };
  const [payload, signature] = token.split(".");
  if (!constantTimeEqual(await mac(key, payload!), signature!)) {
    return { ok: false, reason: "link_invalid" };
  }
  if (now > claims.expires_at) return { ok: false, reason: "link_expired" };
  return { ok: true, claims };
}

/**
 * spec: shopping 6: the same link valid until `expiresAt` (a later attempt of an event carrying
 * it); null when `token` is not a link signed with `key`. An expired one is renewed all the same:
 * it verified, only its time ran out.
 */
export async function renewLink(
  key: CryptoKey,
  token: string,
  expiresAt: number,
): Promise<string | null> {
  const verdict = await verifyLink(key, token, 0);
  if (!verdict.ok) return null;
  return await signLink(key, { ...verdict.claims, expires_at: expiresAt });
}
