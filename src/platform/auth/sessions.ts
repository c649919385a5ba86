/** Opening a sign-in session: a random token shown once; the session actor is keyed by its hash. */
import type { Context } from "hono";
import { type Session, SESSION_TENANT, sessionActor } from "../../../actors/platform/session.ts";
import { SESSION_TTL_MS } from "../../limits.ts";
import { hashSecret, newSecret } from "../../domain/secrets.ts";
import type { AppEnv } from "../../http/context.ts";
import { fromRejection } from "../../http/errors.ts";

export async function openSession(
  c: Context<AppEnv>,
  prefix: string,
  session: Omit<Session, "closed" | "expires_at">,
): Promise<{ token: string; expires_at: string }> {
  const env = c.get("env");
  const token = newSecret(prefix);
  const expiresAt = env.clock.now() + SESSION_TTL_MS;
  const r = await env.runtime.ask(sessionActor, SESSION_TENANT, await hashSecret(token), {
    kind: "open",
    session: { ...session, expires_at: expiresAt },
  });
  if (!r.ok) throw fromRejection(r);
  return { token, expires_at: new Date(expiresAt).toISOString() };
}

/** Signs out the session whose token was sent. */
export async function closeSession(c: Context<AppEnv>, token: string): Promise<void> {
  const r = await c.get("env").runtime.ask(sessionActor, SESSION_TENANT, await hashSecret(token), {
    kind: "close",
  });
  if (!r.ok) throw fromRejection(r);
}
