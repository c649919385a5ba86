/**
 * The platform's credentials (courier spec 5; Business API 5): the operator token, the business
 * key, staff sessions and partner keys on X-Business-API-Key, and drivers' bearer tokens. Each
 * guard is a Hono middleware that sets the principal (principal.ts).
 */
import type { Context, MiddlewareHandler } from "hono";
import {
  accessOf,
  type Authenticated,
  type BusinessAccess,
  businessActor,
} from "../../../actors/platform/business/mod.ts";
import { SESSION_TENANT, sessionActor } from "../../../actors/platform/session.ts";
import { driverActor } from "../../../actors/platform/driver.ts";
import { PLAN_RATE_LIMITS } from "../../limits.ts";
import { constantTimeEqual, hashSecret } from "../../domain/secrets.ts";
import {
  businessKeyScopes,
  PARTNER_SCOPES,
  type Scope,
  staffScopes,
  withImplied,
} from "../rules/scopes.ts";
import { apiKeyPrefix } from "../../environment.ts";
import { ApiError, fromRejection } from "../../http/errors.ts";
import type { AppEnv } from "../../http/context.ts";
import {
  ADDRESS_LIMITED,
  bearerToken,
  credentialRefusals,
  PLAN_LIMITED,
  rateLimit,
} from "../../http/guards.ts";
import type { Limits } from "../../http/rate_limit.ts";
import { refusing } from "../../http/refusals.ts";
import {
  type BusinessPrincipal,
  businessPrincipalOf,
  PARTNER_KEY_PREFIX,
  requireScope,
  setPrincipal,
  STAFF_TOKEN_PREFIX,
} from "./principal.ts";

export const operatorOnly: MiddlewareHandler<AppEnv> = refusing({
  unauthenticated: "the operator token is missing or wrong",
  ...ADDRESS_LIMITED,
}, async (c, next) => {
  const token = bearerToken(c.req.header("Authorization"));
  const env = c.get("env");
  if (!token || !constantTimeEqual(await hashSecret(token), env.operatorTokenHash)) {
    throw new ApiError("unauthenticated", "operator token missing or wrong");
  }
  setPrincipal(c, { kind: "operator" });
  await next();
});

export interface BusinessGuard {
  /** The scope the route needs (courier 5); partner keys reach only routes that name one. */
  readonly scope?: Scope;
  /** Any one of these scopes will do (a route two kinds of caller use); checked besides `scope`. */
  readonly anyScope?: readonly Scope[];
}

/** X-Business-API-Key: the business key, a staff session token, or a partner key. */
export function business(guard: BusinessGuard = {}): MiddlewareHandler<AppEnv> {
  return refusing(businessRefusals(guard), async (c, next) => {
    const key = c.req.header("X-Business-API-Key") ?? "";
    setPrincipal(c, await businessCredential(c, key, guard));
    await next();
  });
}

/** What businessCredential answers, for the OpenAPI document of the routes behind a guard. */
export function businessRefusals(guard: BusinessGuard = {}, header = "X-Business-API-Key") {
  const scope = guard.anyScope
    ? `the credential holds none of the scopes ${guard.anyScope.map((s) => `\`${s}\``).join(", ")}`
    : guard.scope
    ? `the credential lacks the scope \`${guard.scope}\``
    : "a partner key: partner keys reach only endpoints that need a named scope";
  return {
    ...credentialRefusals(header),
    sandbox_key_on_live: "a sandbox key was sent to live",
    ...PLAN_LIMITED,
    scope_denied: scope,
  };
}

/**
 * A raw business credential checked exactly as the X-Business-API-Key header is: known, counted
 * against the rate limit, holding the guard's scope. For callers that cannot send the header
 * (a browser's WebSocket sends it as a query parameter).
 */
export async function businessCredential(
  c: Context<AppEnv>,
  key: string,
  guard: BusinessGuard = {},
): Promise<BusinessPrincipal> {
  const principal = await authenticateBusiness(c, key.trim());
  rateLimit(c, principal.business.id, limitsOf(principal.business));
  const held = guard.anyScope?.find((s) => principal.scopes.includes(s));
  if (guard.anyScope && !held) {
    throw new ApiError("scope_denied", `missing scope: one of ${guard.anyScope.join(", ")}`, {
      scope: guard.anyScope[0],
    });
  }
  requireScope(principal, guard.scope ?? held);
  return principal;
}

/**
 * Authorization: Bearer <driver token> (courier 4.5). On the sandbox anything but a valid sandbox
 * driver token answers live_key_on_sandbox (CONTRACT errors: 401), as the other credentials do.
 */
export const driver: MiddlewareHandler<AppEnv> = refusing({
  ...credentialRefusals("the driver token (`Authorization: Bearer`)"),
  ...PLAN_LIMITED,
}, async (c, next) => {
  const env = c.get("env");
  // Made only when thrown (an Error captures its stack).
  const refused = (message: string) =>
    env.name === "sandbox"
      ? new ApiError("live_key_on_sandbox", "the sandbox accepts only sandbox driver tokens")
      : new ApiError("unauthenticated", message);
  const token = bearerToken(c.req.header("Authorization"));
  if (!token) throw refused("driver token missing");
  const hash = await hashSecret(token);
  const target = await env.runtime.lookup("credential", hash, { cached: true });
  if (!target || target.type !== driverActor.type) throw refused("unknown driver token");
  const r = await env.runtime.read(driverActor, target.tenant, target.id, {
    kind: "authenticate",
    hash,
  });
  if (!r.ok) {
    env.runtime.forget("credential", hash);
    throw refused("unknown driver token");
  }
  const access = await businessAccess(c, r.reply.business_id);
  setPrincipal(c, {
    kind: "driver",
    business: access,
    driver_id: r.reply.id,
    scopes: ["runs:operate"],
  });
  rateLimit(c, access.id, limitsOf(access));
  await next();
});

/**
 * Business API 5.6: people and money leaving the account need the owner or a portal admin signed
 * in; an integration key gets signed_in_admin_only, a coordinator portal_admin_only.
 */
export const signedInAdmin: MiddlewareHandler<AppEnv> = refusing({
  signed_in_admin_only: "an integration key was sent: this needs the owner or a portal admin " +
    "signed in",
  portal_admin_only: "a coordinator is signed in: this is for the owner or a portal admin",
}, async (c, next) => {
  const p = businessPrincipalOf(c);
  if (p.kind !== "staff") {
    throw new ApiError(
      "signed_in_admin_only",
      "this action needs the account owner or a portal admin signed in, not an integration key",
    );
  }
  if (p.role === "coordinator") throw portalAdminOnly();
  await next();
});

/**
 * Business API 5.6: money, credentials, people and the company record are for an admin; the
 * integration key may manage its own webhook and rotate itself, a coordinator may not.
 */
// Its scope_denied is business()'s too: that guard, naming no scope, refuses partner keys first.
export const portalAdmin: MiddlewareHandler<AppEnv> = refusing({
  portal_admin_only: "a coordinator is signed in: this is for the owner or a portal admin",
}, async (c, next) => {
  const p = businessPrincipalOf(c);
  if (p.kind === "staff" && p.role === "coordinator") throw portalAdminOnly();
  if (p.kind === "partner" || p.kind === "driver" || p.kind === "client") {
    throw new ApiError("scope_denied", "this endpoint is outside the key's scopes: account");
  }
  await next();
});

function portalAdminOnly(): ApiError {
  return new ApiError(
    "portal_admin_only",
    "this action is for a portal admin; coordinators cannot",
  );
}

async function authenticateBusiness(c: Context<AppEnv>, key: string): Promise<BusinessPrincipal> {
  const env = c.get("env");
  const sandboxPrefix = apiKeyPrefix("sandbox");
  if (env.name === "live" && key.startsWith(sandboxPrefix)) {
    throw new ApiError("sandbox_key_on_live", "a sandbox key was sent to live; use a sk_live_ key");
  }
  // Made only when thrown (an Error captures its stack).
  const refused = () =>
    env.name === "sandbox"
      ? new ApiError(
        "live_key_on_sandbox",
        "the sandbox accepts only sandbox keys (sk_sandbox_...)",
      )
      : new ApiError("unauthenticated", "X-Business-API-Key missing or unknown");
  if (!key) throw refused();
  // spec: business 5.2: the sandbox refuses live keys and portal sign-ins.
  if (
    env.name === "sandbox" && !key.startsWith(sandboxPrefix) && !key.startsWith(PARTNER_KEY_PREFIX)
  ) {
    throw refused();
  }
  const hash = await hashSecret(key);
  if (key.startsWith(STAFF_TOKEN_PREFIX)) return await staffPrincipal(c, hash, refused);
  const target = await env.runtime.lookup("credential", hash, { cached: true });
  if (!target || target.type !== businessActor.type) throw refused();
  const r = await env.runtime.read(businessActor, target.tenant, target.id, {
    kind: "authenticate_key",
    hash,
  });
  if (!r.ok || !r.reply || !("principal" in r.reply)) {
    env.runtime.forget("credential", hash);
    throw refused();
  }
  const { access, principal } = r.reply;
  if (principal.as === "business_key" && principal.legacy && env.name !== "live") throw refused();
  return fromAuthenticated(access, principal);
}

async function staffPrincipal(
  c: Context<AppEnv>,
  hash: string,
  refused: () => ApiError,
): Promise<BusinessPrincipal> {
  const env = c.get("env");
  const session = await env.runtime.read(sessionActor, SESSION_TENANT, hash, { kind: "check" });
  if (!session.ok || !session.reply || session.reply.owner !== "staff") throw refused();
  const s = session.reply;
  const r = await env.runtime.read(businessActor, s.business_id, s.business_id, {
    kind: "authenticate_staff",
    staff_id: s.user_id,
    session_epoch: s.session_epoch,
  });
  if (!r.ok || !r.reply || !("principal" in r.reply)) throw refused();
  return fromAuthenticated(r.reply.access, r.reply.principal);
}

function fromAuthenticated(business: BusinessAccess, a: Authenticated): BusinessPrincipal {
  switch (a.as) {
    case "business_key":
      return {
        kind: "business_key",
        business,
        legacy: a.legacy,
        scopes: businessKeyScopes(a.scopes),
      };
    case "staff":
      return {
        kind: "staff",
        business,
        staff_id: a.staff_id,
        role: a.role,
        scopes: staffScopes(a.role),
      };
    case "partner":
      return {
        kind: "partner",
        business,
        partner_key_id: a.partner_key_id,
        partner: a.partner,
        // Only the key's own scopes (courier 5 rule 3), with what each implies: administering
        // billing includes reading it, as for every other caller.
        scopes: withImplied(a.scopes),
      };
  }
}

export async function businessAccess(c: Context<AppEnv>, id: string): Promise<BusinessAccess> {
  const r = await c.get("env").runtime.read(businessActor, id, id, { kind: "get" });
  if (!r.ok || !r.reply || !("profile" in r.reply)) {
    throw fromRejection(
      r.ok ? { ok: false, code: "unauthenticated", message: "business not found" } : r,
    );
  }
  return accessOf(r.reply);
}

export function limitsOf(b: BusinessAccess): Limits {
  const plan = PLAN_RATE_LIMITS[b.plan];
  if (b.plan !== "enterprise") return plan;
  return {
    perMinute: b.rate_limit_per_minute ?? plan.perMinute,
    perDay: b.rate_limit_per_day ?? plan.perDay,
  };
}

export { PARTNER_SCOPES };
