/**
 * Portal sign-in (CONTRACT "Sign-in and people"; Business API 5.2, 5.6): a person signs in with
 * e-mail and password for a session token, signs out, and changes their password, which signs
 * out their other devices. Failed checks are counted by the caller's throttle (SignInAttempt).
 */
import { businessActor } from "../../../actors/platform/business/mod.ts";
import { hashPassword, passwordMatches, verifyPassword } from "../../domain/secrets.ts";
import { weakPasswordReason } from "../../domain/passwords.ts";
import type { Deps } from "../../environment.ts";
import { invalidFields, NOT_NOW_CODES, orRefuse, refuse, Refused } from "../../runtime/actor.ts";
import { type BusinessPrincipal, principalName, STAFF_TOKEN_PREFIX } from "../identity.ts";
import { businessOf } from "./businesses.ts";
import { type OpenedSession, openSession, sessionExpiry, type SignInAttempt } from "./sessions.ts";

type SessionDeps = Pick<Deps, "name" | "runtime" | "clock" | "requestId" | "passwordIterations">;

/**
 * A portal person signs in. `begin` starts the throttle's count once the request may be tried
 * (it refuses rate_limited itself); a wrong e-mail and a wrong password are the same refusal.
 */
export async function signIn(
  deps: SessionDeps,
  input: { readonly email: string; readonly password: string },
  begin: () => SignInAttempt | Promise<SignInAttempt>,
): Promise<OpenedSession> {
  // spec: business 5.2: the sandbox refuses portal sign-ins.
  if (deps.name === "sandbox") {
    refuse("live_key_on_sandbox", "portal sign-in is not available on the sandbox");
  }
  const attempt = await begin();
  const owner = await deps.runtime.lookup("staff_email", input.email);
  const r = owner
    ? await deps.runtime.ask(businessActor, owner.tenant, owner.id, {
      kind: "staff_for_login",
      email: input.email,
    }, { requestId: deps.requestId })
    : null;
  // A lookup refused for now (a full mailbox) is no wrong password: answered 503, not counted.
  if (r && !r.ok && NOT_NOW_CODES.has(r.code)) throw new Refused(r);
  const login = r?.ok && r.reply && "password_hash" in r.reply ? r.reply : null;
  const matches = await passwordMatches(
    input.password,
    login?.password_hash ?? null,
    deps.passwordIterations,
  );
  if (!matches || !owner || !login) {
    await attempt.failed();
    refuse("unauthenticated", "e-mail or password is wrong");
  }
  await attempt.succeeded();
  return await staffSession(deps, owner.id, login.staff_id, login.session_epoch);
}

/**
 * The signed-in person changes their password: the current one must match (guesses wait, per
 * person: `begin` with their id), a weak one is refused, and the other sessions they hold end.
 * This device's session (`token`, the one the caller sent) stays signed in: answered again.
 */
export async function changePassword(
  deps: SessionDeps,
  caller: BusinessPrincipal,
  input: {
    readonly current_password: string;
    readonly new_password: string;
    readonly token: string;
  },
  begin: (staffId: string) => SignInAttempt | Promise<SignInAttempt>,
): Promise<OpenedSession> {
  if (caller.kind !== "staff") {
    refuse("signed_in_admin_only", "changing a password needs a person signed in");
  }
  const b = await businessOf(deps.runtime, caller.business.id);
  const me = b.staff.find((s) => s.id === caller.staff_id);
  if (!me) refuse("unauthenticated", "portal user not found");
  // A change made since this session was checked signed it out: refused as signed out, whatever
  // the password sent (it would be checked against the new one otherwise).
  if (me.session_epoch !== caller.session_epoch) {
    refuse("unauthenticated", "this session was signed out by a password change");
  }
  // As for client people (courier 5): guesses wait per person, weak passwords are refused.
  const attempt = await begin(me.id);
  if (!(await verifyPassword(input.current_password, me.password_hash))) {
    await attempt.failed();
    throw new Refused(invalidFields([{ path: "current_password", message: "does not match" }]));
  }
  await attempt.succeeded();
  const weak = weakPasswordReason(input.new_password, me.email);
  if (weak) throw new Refused(invalidFields([{ path: "new_password", message: weak }]));
  // As for client people (courier 5): the same password again is no change, and would sign out
  // every other device for nothing.
  if (input.new_password === input.current_password) {
    throw new Refused(invalidFields([{
      path: "new_password",
      message: "must differ from the current one",
    }]));
  }
  orRefuse(
    await deps.runtime.ask(businessActor, b.id, b.id, {
      kind: "change_password",
      staff_id: me.id,
      password_hash: await hashPassword(input.new_password, deps.passwordIterations),
      // Only under the epoch the current password was checked in (a change meanwhile: 401).
      session_epoch: me.session_epoch,
      // spec: business 4.3: other devices signed out, this one kept, in the change's own commit
      // (no step after it can leave the caller signed out).
      kept_session: caller.session_hash,
      by: principalName(caller),
    }, { requestId: deps.requestId }),
  );
  return { token: input.token, expires_at: await sessionExpiry(deps, caller.session_hash) };
}

function staffSession(
  deps: SessionDeps,
  businessId: string,
  staffId: string,
  epoch: number,
): Promise<OpenedSession> {
  return openSession(deps, STAFF_TOKEN_PREFIX, {
    owner: "staff",
    business_id: businessId,
    account_id: businessId,
    user_id: staffId,
    session_epoch: epoch,
  });
}
