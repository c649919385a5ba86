/** Issuing a credential: the secret is shown once; only its hash and a hint are kept. */
import { hashSecret, newSecret } from "./secrets.ts";

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
