/** Issuing a credential: the secret is shown once; only its hash and a hint are kept. */
import { WEBHOOK_SECRET_GRACE_MS } from "../limits.ts";
import { hashSecret, newSecret, type SealedSecret } from "./secrets.ts";

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

/** The rotated-out secret as kept for its grace period. */
export function retire(secret: WebhookSecret, rotatedAt: number): PreviousSecret {
  return { ...secret, expires_at: rotatedAt + WEBHOOK_SECRET_GRACE_MS };
}
