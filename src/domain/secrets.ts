/**
 * Keys, tokens and passwords: random from WebCrypto, stored as hashes, shown once, compared in
 * constant time. Signing secrets (which must be usable, not just checked) are kept encrypted.
 */
import { createHash, createHmac } from "node:crypto";
import { PBKDF2_ITERATIONS, SECRET_BYTES } from "../limits.ts";

const encoder = new TextEncoder();

/** A new secret: prefix plus base64url of SECRET_BYTES random bytes (192 bits). */
export function newSecret(prefix: string): string {
  return prefix + base64url(crypto.getRandomValues(new Uint8Array(SECRET_BYTES)));
}

/**
 * Hex SHA-256 of UTF-8 text or bytes. Synchronous: a WebCrypto digest is a round trip through a
 * worker thread (some 35 µs), and keys, derived ids and event ids are hashed on every request.
 */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/**
 * JSON with every object's fields in name order: one request names one text whatever order its
 * fields came in (a fingerprint of what was sent under an idempotency key).
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(
    value,
    (_key, v) =>
      v && typeof v === "object" && !Array.isArray(v)
        ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a < b ? -1 : 1))
        : v,
  );
}

/**
 * An id derived from what it stands for (`<prefix>_` and the first hex digits of the source's
 * SHA-256), so every retry, replay or second instance names the same actor.
 */
export function derivedId(prefix: string, source: string, hexDigits = 24): string {
  return `${prefix}_${sha256Hex(source).slice(0, hexDigits)}`;
}

/** Hex HMAC-SHA-256 of UTF-8 text under `key` (synchronous, as sha256Hex). */
export function hmacHex(key: Uint8Array, data: string): string {
  return createHmac("sha256", key).update(data).digest("hex");
}

/** SHA-256 of UTF-8 text or bytes, as bytes (synchronous, as sha256Hex). */
export function sha256(data: string | Uint8Array): Uint8Array {
  return new Uint8Array(createHash("sha256").update(data).digest());
}

/** Hex SHA-256 of a key or token: what is stored and indexed instead of the key itself. */
export function hashSecret(secret: string): Promise<string> {
  return Promise.resolve(sha256Hex(secret));
}

/** Compares two strings without an early exit, so timing reveals nothing of where they differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}

/**
 * `pbkdf2$<iterations>$<salt b64url>$<hash b64url>` with a per-user salt. `iterations` is the
 * environment's (Deps.passwordIterations: fewer only in tests); a hash names its own, so
 * verifying needs none.
 */
export async function hashPassword(
  password: string,
  iterations: number = PBKDF2_ITERATIONS,
): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const hash = await pbkdf2(password, salt, iterations);
  return `pbkdf2$${iterations}$${base64url(salt)}$${base64url(hash)}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, iterations, salt, hash] = stored.split("$");
  if (scheme !== "pbkdf2" || !iterations || !salt || !hash) return false;
  const actual = await pbkdf2(password, fromBase64url(salt), Number(iterations));
  return constantTimeEqual(base64url(actual), hash);
}

/**
 * Checks a password against a stored hash; with no hash (an unknown e-mail) it does the same
 * work and answers false, so sign-in timing does not tell which e-mails exist.
 */
export async function passwordMatches(
  password: string,
  stored: string | null,
  iterations: number = PBKDF2_ITERATIONS,
): Promise<boolean> {
  if (stored !== null) return await verifyPassword(password, stored);
  await pbkdf2(password, new Uint8Array(16), iterations);
  return false;
}

/** A readable temporary password (shown once; the holder must change it). */
export function temporaryPassword(): string {
  return newSecret("").slice(0, 20);
}

async function pbkdf2(password: string, salt: Uint8Array, iterations: number): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey("raw", encoder.encode(password), "PBKDF2", false, [
    "deriveBits",
  ]);
  const bits = await crypto.subtle.deriveBits(
    { name: "PBKDF2", hash: "SHA-256", salt: salt as BufferSource, iterations },
    key,
    256,
  );
  return new Uint8Array(bits);
}

/**
 * AES-GCM sealing of signing secrets under the environment's data key. A seal of version 2 is
 * bound to its owner (the owner's name is the additional data): moved to another record it fails
 * to unseal. A seal without `v` was made before owners were bound and unseals without one.
 */
export interface SealedSecret {
  readonly v?: typeof SEAL_VERSION;
  readonly iv: string;
  readonly data: string;
}

/** The version of seals bound to their owner. */
const SEAL_VERSION = 2;

/** What a secret is sealed for: each names its record's kind, so a seal fits that kind only. */
export type SealPurpose =
  | "business_webhook"
  | "client_webhook"
  | "outbound_target"
  | "storefront_channel"
  | "shopping_webhook"
  | "shopping_link";

/**
 * The owner a secret is sealed for: its purpose, the tenant, and the record holding it. The
 * owner is known from where the record is (never read from beside the seal) at both ends.
 */
export function sealOwner(purpose: SealPurpose, tenant: string, record: string): string {
  return JSON.stringify(["seal", purpose, tenant, record]);
}

/** Whether a seal is bound to its owner; one made before owners were bound (no `v`) is not. */
export function isBound(sealed: SealedSecret): boolean {
  return sealed.v === SEAL_VERSION;
}

/**
 * The same secret sealed again, bound to `owner`: for a seal made before owners were bound,
 * which unseals anywhere (old data). A bound seal is answered as it is.
 */
export async function bindSeal<T extends SealedSecret>(
  key: CryptoKey,
  sealed: T,
  owner: string,
): Promise<T> {
  if (isBound(sealed)) return sealed;
  return { ...sealed, ...(await seal(key, await unseal(key, sealed, owner), owner)) };
}

export async function importDataKey(raw: Uint8Array): Promise<CryptoKey> {
  return await crypto.subtle.importKey("raw", raw as BufferSource, "AES-GCM", false, [
    "encrypt",
    "decrypt",
  ]);
}

/**
 * A key for `purpose` derived from the data key: the AES keystream of a block named by the
 * purpose (AES as a pseudo-random function of its key), so every instance sharing SECRETS_KEY
 * derives the same bytes, and nobody without the data key can.
 */
export async function derivedKey(dataKey: CryptoKey, purpose: string): Promise<Uint8Array> {
  const iv = sha256(`derived key\n${purpose}`).slice(0, 12);
  const stream = await crypto.subtle.encrypt({ name: "AES-GCM", iv }, dataKey, new Uint8Array(32));
  return new Uint8Array(stream).slice(0, 32);
}

/** Seals `secret` for `owner` (see sealOwner). */
export async function seal(key: CryptoKey, secret: string, owner: string): Promise<SealedSecret> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const data = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: encoder.encode(owner) },
    key,
    encoder.encode(secret),
  );
  return { v: SEAL_VERSION, iv: base64url(iv), data: base64url(new Uint8Array(data)) };
}

/** Unseals a secret sealed for `owner`; throws when it was sealed for another (or altered). */
export async function unseal(key: CryptoKey, sealed: SealedSecret, owner: string): Promise<string> {
  if (sealed.v !== undefined && sealed.v !== SEAL_VERSION) {
    throw new Error(`sealed secret of an unknown version: ${sealed.v}`);
  }
  // Removing `v` from a bound seal gains nothing: its tag covers the owner, so it fails.
  const bound = sealed.v === SEAL_VERSION ? { additionalData: encoder.encode(owner) } : {};
  let plain: ArrayBuffer;
  try {
    plain = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: fromBase64url(sealed.iv) as BufferSource, ...bound },
      key,
      fromBase64url(sealed.data) as BufferSource,
    );
  } catch {
    // WebCrypto says only "decryption failed"; say which check it was, naming no owner.
    throw new Error("sealed secret does not unseal: wrong key, altered, or sealed for another");
  }
  return new TextDecoder().decode(plain);
}

export function hex(bytes: Uint8Array): string {
  let out = "";
  for (const b of bytes) out += b.toString(16).padStart(2, "0");
  return out;
}

export function base64url(bytes: Uint8Array): string {
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function fromBase64url(text: string): Uint8Array {
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/");
  const bin = atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}
