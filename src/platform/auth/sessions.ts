/**
 * Sign-in sessions from a request's environment (flows/sessions.ts does the work): for routes
 * that hold a Hono context.
 */
import type { Context } from "hono";
import type { Session } from "../../../actors/platform/session.ts";
import type { AppEnv } from "../../http/context.ts";
import * as sessions from "../flows/sessions.ts";

export function openSession(
  c: Context<AppEnv>,
  prefix: string,
  session: Omit<Session, "closed" | "expires_at">,
): Promise<sessions.OpenedSession> {
  return sessions.openSession(c.get("env"), prefix, session);
}

/** Signs out the session whose token was sent. */
export function closeSession(c: Context<AppEnv>, token: string): Promise<void> {
  return sessions.closeSession(c.get("env"), token);
}
