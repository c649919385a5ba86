/** Issuing a credential: the secret is shown once; only its hash and a hint are kept. */
import { WEBHOOK_SECRET_GRACE_MS } from "../limits.ts";
import { bindSeal, hashSecret, isBound, newSecret, type SealedSecret } from "./secrets.ts";

export interface IssuedCredential {
  /** Shown to the caller once, never stored. */
  readonly secret: string;
  readonly record: { readonly hash: string; readonly hint: string; readonly created_at: number };
}

export async function issueCredential(prefix: string, now: number): Promise<IssuedCredential> {
  const secret = newSecret(prefix);
  return {
    secret,
    record: { hash: await hashSecret(secret), hint: secret.slice(-4), created_at: now },
  };
}

export interface KeyRecord {
  readonly hash: string;
  /** The last characters of the key, so people can tell keys apart. */
  readonly hint: string;
  readonly created_at: number;
}

export interface WebhookSecret extends SealedSecret {
  readonly key_id: string;
  readonly created_at: number;
}

/** A rotated-out secret kept for the grace period (WEBHOOK_SECRET_GRACE_MS). */
export interface PreviousSecret extends WebhookSecret {
  readonly expires_at: number;
}

/** What the log and the bus say of a webhook secret: its key id and age, never its sealed form. */
export function secretMention(s: WebhookSecret): Pick<WebhookSecret, "key_id" | "created_at"> {
  return { key_id: s.key_id, created_at: s.created_at };
}

/**
 * What the log and the bus say of a key: its hint and age, never its hash (issue rule: secrets,
 * keys and tokens are stored hashed in the state alone, which signing in checks against).
 */
export function keyMention(k: KeyRecord): Pick<KeyRecord, "hint" | "created_at"> {
  return { hint: k.hint, created_at: k.created_at };
}

/** A person as the log and the bus say of them: everything but their password's hash. */
export function withoutPassword<T extends { password_hash: unknown }>(
  person: T,
): Omit<T, "password_hash"> {
  const { password_hash: _, ...rest } = person;
  return rest;
}

/** A `webhook_seals_bound` event as the log and the bus say of it: the secrets' ids and ages. */
export function sealsBoundMention(
  e: { kind: "webhook_seals_bound"; secret: WebhookSecret | null; previous: WebhookSecret | null },
) {
  return {
    kind: e.kind,
    secret: e.secret && secretMention(e.secret),
    previous: e.previous && secretMention(e.previous),
  };
}

/** The rotated-out secret as kept for its grace period. */
export function retire(secret: WebhookSecret, rotatedAt: number): PreviousSecret {
  return { ...secret, expires_at: rotatedAt + WEBHOOK_SECRET_GRACE_MS };
}

/**
 * The held secret with its seal bound to its owner (`bound`, made by bindSeal from it), when the
 * held seal is not bound yet and `bound` is the same secret (key id and age); else null: bound
 * already, or rotated since `bound` was made (the rotation's seal is bound).
 */
export function withBoundSeal<T extends WebhookSecret>(
  held: T | null | undefined,
  bound: WebhookSecret | null,
): T | null {
  if (!held || !bound || isBound(held) || !isBound(bound)) return null;
  if (held.key_id !== bound.key_id || held.created_at !== bound.created_at) return null;
  return { ...held, v: bound.v, iv: bound.iv, data: bound.data };
}

/**
 * A webhook's secret and the one before it with their seals bound to `owner` (sealOwner), for a
 * `bind_webhook_seals` command; null when both are bound already (or absent).
 */
export async function boundSecrets(
  key: CryptoKey,
  held: { readonly secret: WebhookSecret | null; readonly previous: WebhookSecret | null },
  owner: string,
): Promise<{ secret: WebhookSecret | null; previous: WebhookSecret | null } | null> {
  const bind = (s: WebhookSecret | null) =>
    s === null || isBound(s) ? Promise.resolve(null) : bindSeal(key, s, owner);
  const [secret, previous] = await Promise.all([bind(held.secret), bind(held.previous)]);
  return secret === null && previous === null ? null : { secret, previous };
}
