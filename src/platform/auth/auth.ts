/**
 * The platform's credentials (courier spec 5; Business API 5): the operator token, the business
 * key, staff sessions and partner keys on X-Business-API-Key, and drivers' bearer tokens. Each
 * guard is a Hono middleware that sets the principal (principal.ts); what a business credential
 * is, credentials.ts checks.
 */
import type { Context, MiddlewareHandler } from "hono";
import { driverActor } from "../../../actors/platform/driver.ts";
import { businessActor } from "../../../actors/platform/business/mod.ts";
import { credentialCacheOf, type Owner } from "./credential_cache.ts";
import { constantTimeEqual, hashSecret } from "../../domain/secrets.ts";
import { isPartnerScope, PARTNER_SCOPES, partnerScopeOf, type Scope } from "../rules/scopes.ts";
import { ApiError } from "../../http/errors.ts";
import type { AppEnv } from "../../http/context.ts";
import { bearerCredential } from "../../http/bearer.ts";
import {
  ADDRESS_LIMITED,
  bearerToken,
  credentialRefusals,
  PLAN_LIMITED,
  rateLimit,
} from "../../http/guards.ts";
import { refusing } from "../../http/refusals.ts";
import { authenticateBusiness, businessAccess, limitsOf, refuseIfNotNow } from "./credentials.ts";
import { driverTokenPrefix } from "../flows/drivers.ts";
import {
  type BusinessPrincipal,
  businessPrincipalOf,
  requireScope,
  setPrincipal,
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
    : "a partner key outside its scopes: `deliveries` and `rewards` reach only the endpoints " +
      "Business API 5 lists for them";
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
  // Known from here: a refusal that follows (rate limit, scope) is logged with its tenant and
  // credential kind, as its request line must say (request_log.ts).
  setPrincipal(c, principal);
  await rateLimit(c, principal.business.id, limitsOf(principal.business));
  const held = guard.anyScope?.find((s) => principal.scopes.includes(s));
  if (guard.anyScope && !held) {
    throw new ApiError("scope_denied", `missing scope: one of ${guard.anyScope.join(", ")}`, {
      scope: guard.anyScope[0],
    });
  }
  const reach = principal.kind === "partner" ? partnerReach(c, guard) : undefined;
  requireScope(principal, guard.scope ?? held ?? reach);
  return principal;
}

/**
 * spec: business 5: the scope a partner key needs here: the one whose endpoints (5's table)
 * include this route, else a courier scope the route names; any other endpoint is outside every
 * partner key's scopes.
 */
function partnerReach(c: Context<AppEnv>, guard: BusinessGuard): Scope | undefined {
  // HEAD is answered by the GET route (RFC 9110 9.3.2), so it reaches what GET does.
  const method = c.req.method === "HEAD" ? "GET" : c.req.method;
  const scope = partnerScopeOf(method, c.req.routePath);
  if (scope) return scope;
  const named = [...(guard.scope ? [guard.scope] : []), ...(guard.anyScope ?? [])];
  if (named.length > 0 && named.every((s) => !isPartnerScope(s))) return undefined;
  throw new ApiError(
    "scope_denied",
    "this endpoint is outside the partner key's scopes: `deliveries` and `rewards` reach only " +
      "the endpoints Business API 5 lists for them",
  );
}

/**
 * Authorization: Bearer <driver token> (courier 4.5). On the sandbox anything but a valid sandbox
 * driver token answers live_key_on_sandbox (CONTRACT errors: 401), as the other credentials do.
 */
export const driver: MiddlewareHandler<AppEnv> = bearerCredential<DriverPrincipal>({
  noun: "driver token",
  prefix: driverTokenPrefix,
  refusals: PLAN_LIMITED,
  find: driverPrincipal,
  async admit(c, principal) {
    setPrincipal(c, principal);
    await rateLimit(c, principal.business.id, limitsOf(principal.business));
  },
});

type DriverPrincipal = Extract<BusinessPrincipal, { kind: "driver" }>;

/** The driver a token hash names, remembered until the driver or its business changes. */
async function driverPrincipal(c: Context<AppEnv>, hash: string): Promise<DriverPrincipal | null> {
  const runtime = c.get("env").runtime;
  const cache = credentialCacheOf(runtime);
  const known = cache?.get<DriverPrincipal>("driver", hash);
  if (known) return known;
  const epoch = cache?.epoch ?? 0;
  const target = await runtime.lookup("credential", hash, { cached: true });
  if (!target || target.type !== driverActor.type) return null;
  const r = await runtime.read(driverActor, target.tenant, target.id, {
    kind: "authenticate",
    hash,
  });
  refuseIfNotNow(r);
  if (!r.ok) {
    runtime.forget("credential", hash);
    return null;
  }
  const access = await businessAccess(c, r.reply.business_id);
  const found: DriverPrincipal = {
    kind: "driver",
    business: access,
    driver_id: r.reply.id,
    scopes: ["runs:operate"],
  };
  const owners: Owner[] = [
    `${driverActor.type}/${target.id}`,
    `${businessActor.type}/${access.id}`,
  ];
  cache?.remember("driver", hash, { value: found, owners, epoch });
  return found;
}

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

export { PARTNER_SCOPES };
