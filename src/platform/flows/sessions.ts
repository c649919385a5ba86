/**
 * Sign-in sessions (CONTRACT "Sign-in and people"): a random token shown once; the session actor
 * is keyed by its hash, so the token itself is never kept.
 */
import { type Session, SESSION_TENANT, sessionActor } from "../../../actors/platform/session.ts";
import type { Deps } from "../../environment.ts";
import { SESSION_TTL_MS } from "../../limits.ts";
import { hashSecret, newSecret } from "../../domain/secrets.ts";
import { orRefuse, refuse } from "../../runtime/actor.ts";

/** A session just opened: its token, shown this once, and when it expires. */
export interface OpenedSession {
  readonly token: string;
  readonly expires_at: string;
}

/**
 * A sign-in attempt as the caller's throttle counts it (failures make the next attempt wait, per
 * account and per address): the flow says how the check went.
 */
export interface SignInAttempt {
  /** Counted before the flow answers (a throttle shared by instances counts in its database). */
  failed(): void | Promise<void>;
  succeeded(): void | Promise<void>;
}

export async function openSession(
  deps: Pick<Deps, "runtime" | "clock" | "requestId">,
  prefix: string,
  session: Omit<Session, "closed" | "expires_at">,
): Promise<OpenedSession> {
  const token = newSecret(prefix);
  const expiresAt = deps.clock.now() + SESSION_TTL_MS;
  orRefuse(
    await deps.runtime.ask(sessionActor, SESSION_TENANT, await hashSecret(token), {
      kind: "open",
      session: { ...session, expires_at: expiresAt },
    }, { requestId: deps.requestId }),
  );
  return { token, expires_at: new Date(expiresAt).toISOString() };
}

/** Signs out the session whose token was sent. */
export async function closeSession(
  deps: Pick<Deps, "runtime" | "requestId">,
  token: string,
): Promise<void> {
  orRefuse(
    await deps.runtime.ask(sessionActor, SESSION_TENANT, await hashSecret(token), {
      kind: "close",
    }, { requestId: deps.requestId }),
  );
}

/** When the session of a token's hash expires (ISO 8601); refused once it is signed out. */
export async function sessionExpiry(
  deps: Pick<Deps, "runtime">,
  hash: string,
): Promise<string> {
  const s = orRefuse(
    await deps.runtime.read(sessionActor, SESSION_TENANT, hash, { kind: "check" }),
  );
  if (!s) refuse("unauthenticated", "session expired or signed out");
  return new Date(s.expires_at).toISOString();
}
