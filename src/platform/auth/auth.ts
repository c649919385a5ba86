/**
 * Who is calling (courier spec 5; Business API 5): authority comes only from the credential and
 * the scopes stored for it, never from the path or the body. Each guard is a Hono middleware.
 */
import type { Context, MiddlewareHandler } from "hono";
import { getConnInfo } from "hono/deno";
import {
  accessOf,
  type Authenticated,
  type BusinessAccess,
  businessActor,
} from "../../../actors/platform/business.ts";
import { SESSION_TENANT, sessionActor } from "../../../actors/platform/session.ts";
import { type ClientIdentity, courierClientActor } from "../../../actors/courier/courier_client.ts";
import { driverActor } from "../../../actors/platform/driver.ts";
import { ANONYMOUS_RATE_LIMIT, PLAN_RATE_LIMITS } from "../../limits.ts";
import { constantTimeEqual, hashSecret } from "../../domain/secrets.ts";
import {
  businessKeyScopes,
  CLIENT_SCOPES,
  PARTNER_SCOPES,
  type PortalRole,
  type Scope,
  staffScopes,
  withImplied,
} from "../rules/scopes.ts";
import { apiKeyPrefix, type EnvironmentName } from "../../environment.ts";
import { ApiError, fromRejection } from "../../http/errors.ts";
import type { AppEnv } from "../../http/context.ts";
import type { CounterKind, Limits, RateLimiter } from "../../http/rate_limit.ts";
import { PLATFORM_DISABLED, type Refusals, refusing } from "../../http/refusals.ts";

export type Principal =
  | { readonly kind: "operator" }
  | {
    readonly kind: "business_key";
    readonly business: BusinessAccess;
    readonly scopes: readonly Scope[];
    readonly legacy: boolean;
  }
  | {
    readonly kind: "staff";
    readonly business: BusinessAccess;
    readonly staff_id: string;
    readonly role: PortalRole;
    readonly scopes: readonly Scope[];
  }
  | {
    readonly kind: "partner";
    readonly business: BusinessAccess;
    readonly partner_key_id: string;
    readonly partner: string;
    readonly scopes: readonly Scope[];
  }
  | {
    readonly kind: "client";
    readonly business: BusinessAccess;
    readonly client_id: string;
    /** The signed-in person, or null when the client's API key was used. */
    readonly user: ClientIdentity["user"];
    readonly scopes: readonly Scope[];
  }
  | {
    readonly kind: "driver";
    readonly business: BusinessAccess;
    readonly driver_id: string;
    readonly scopes: readonly Scope[];
  };

export type BusinessPrincipal = Exclude<Principal, { kind: "operator" }>;

/** Staff sign-in tokens; never accepted by the sandbox (Business API 5.2). */
export const STAFF_TOKEN_PREFIX = "st_";
export const PARTNER_KEY_PREFIX = "ak_";
/** Client user sign-in tokens (X-Client-API-Key). */
export const CLIENT_SESSION_PREFIX = "cs_";
export const CLIENT_KEY_PREFIX = "ck_";

/**
 * A client API key says its environment, as business keys do (Business API 5.2), so live can
 * answer a sandbox one with sandbox_key_on_live; keys issued before it (`ck_` alone) keep working.
 */
export function clientKeyPrefix(env: EnvironmentName): string {
  return `${CLIENT_KEY_PREFIX}${env}_`;
}

/** How the audit trail names the caller. */
export function principalName(p: Principal): string {
  switch (p.kind) {
    case "operator":
      return "operator";
    case "business_key":
      return "api_key";
    case "staff":
      return `staff:${p.staff_id}`;
    case "partner":
      return `partner_key:${p.partner_key_id}`;
    case "driver":
      return `driver:${p.driver_id}`;
    case "client":
      return p.user ? `client_user:${p.user.id}` : `client:${p.client_id}`;
  }
}

/** GET /business/profile `principal`: owner, admin, coordinator or api_key (Business API 5.6). */
export function principalRole(p: BusinessPrincipal): string {
  return p.kind === "staff" ? p.role : p.kind === "business_key" ? "api_key" : p.kind;
}

export function principalOf(c: Context<AppEnv>): Principal {
  const p = c.get("principal");
  if (!p) throw new ApiError("unauthenticated", "no credential was checked for this route");
  return p;
}

export function businessPrincipalOf(c: Context<AppEnv>): BusinessPrincipal {
  const p = principalOf(c);
  if (p.kind === "operator") throw new ApiError("forbidden", "operator token on a business route");
  return p;
}

/** The courier's client calling (behind `client()`); any other principal is unauthenticated. */
export function clientPrincipalOf(c: Context<AppEnv>): Extract<Principal, { kind: "client" }> {
  const p = principalOf(c);
  if (p.kind !== "client") throw new ApiError("unauthenticated", "a client credential is needed");
  return p;
}

/**
 * spec: courier 4.6: the client's people and credentials are for its administrators; the API key
 * is the client itself. Everyone else gets 403 client_admin_only, on every such endpoint.
 */
export function requireClientAdmin(c: Context<AppEnv>, what: string): ClientPrincipal {
  const p = clientPrincipalOf(c);
  if (p.user && p.user.role !== "client_admin") {
    throw new ApiError("client_admin_only", `only a client administrator may ${what}`);
  }
  return p;
}

type ClientPrincipal = ReturnType<typeof clientPrincipalOf>;

/**
 * What every refusal that counted no caller can become (countUncounted): an unknown key or
 * operator token.
 */
const ADDRESS_LIMITED = {
  rate_limited: "too many calls from this address without a known credential; wait `Retry-After` " +
    "seconds",
};

/** How a credential is refused (authenticateBusiness, client(), driver). */
function credentialRefusals(header: string): Refusals {
  return {
    unauthenticated: `${header} is missing or unknown (live)`,
    live_key_on_sandbox: `on the sandbox: ${header} is anything but a valid sandbox credential`,
  };
}

/** A credential's calls count against its courier's plan (Business API 8); unknown, its address's. */
const PLAN_LIMITED = {
  rate_limited: "the rate limit of the courier's plan is reached, or too many calls came from " +
    "this address without a known credential; wait `Retry-After` seconds",
};

/**
 * The token of an `Authorization: Bearer <token>` header, else "". The scheme is matched in any
 * case (RFC 9110 11.1: `bearer` and `BEARER` are the same scheme); the token as sent.
 */
export function bearerToken(header: string | undefined): string {
  const match = /^bearer +(.*)$/i.exec(header ?? "");
  return match ? match[1]!.trim() : "";
}

export const operatorOnly: MiddlewareHandler<AppEnv> = refusing({
  unauthenticated: "the operator token is missing or wrong",
  ...ADDRESS_LIMITED,
}, async (c, next) => {
  const token = bearerToken(c.req.header("Authorization"));
  const env = c.get("env");
  if (!token || !constantTimeEqual(await hashSecret(token), env.operatorTokenHash)) {
    throw new ApiError("unauthenticated", "operator token missing or wrong");
  }
  c.set("principal", { kind: "operator" });
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
    c.set("principal", await businessCredential(c, key, guard));
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
  c.set("principal", {
    kind: "driver",
    business: access,
    driver_id: r.reply.id,
    scopes: ["runs:operate"],
  });
  rateLimit(c, access.id, limitsOf(access));
  await next();
});

/**
 * X-Client-API-Key (courier 4.6, 5): a client's API key or a client user's session token. Every
 * call is refused while the courier platform is off; a user holding a password that was sent to
 * them may only change it (403 password_change_required).
 */
export function client(options: { passwordChange?: boolean } = {}): MiddlewareHandler<AppEnv> {
  const refusals = {
    ...credentialRefusals("X-Client-API-Key"),
    sandbox_key_on_live: "a sandbox client key was sent to live",
    ...PLAN_LIMITED,
    ...PLATFORM_DISABLED,
    ...(options.passwordChange ? {} : {
      password_change_required:
        "the signed-in person holds a password that was sent to them: change it first " +
        "(`POST /client/password`)",
    }),
  };
  return refusing(refusals, async (c, next) => {
    const env = c.get("env");
    const key = c.req.header("X-Client-API-Key")?.trim() ?? "";
    // Made only when thrown: an Error captures its stack, a cost every call would pay.
    const refused = () =>
      env.name === "sandbox"
        ? new ApiError("live_key_on_sandbox", "the sandbox accepts only sandbox credentials")
        : new ApiError("unauthenticated", "X-Client-API-Key missing or unknown");
    if (!key) throw refused();
    if (env.name === "live" && key.startsWith(clientKeyPrefix("sandbox"))) {
      throw new ApiError(
        "sandbox_key_on_live",
        `a sandbox client key was sent to live; use a ${clientKeyPrefix("live")} key`,
      );
    }
    const identity = await clientIdentity(
      c,
      await hashSecret(key),
      key.startsWith(CLIENT_SESSION_PREFIX),
    );
    if (!identity) throw refused();
    const access = await businessAccess(c, identity.business_id);
    c.set("principal", {
      kind: "client",
      business: access,
      client_id: identity.client_id,
      user: identity.user,
      scopes: CLIENT_SCOPES,
    });
    rateLimit(c, `client:${identity.client_id}`, limitsOf(access));
    if (!access.courier_platform_enabled) throw courierPlatformDisabled();
    if (identity.user?.must_change_password && !options.passwordChange) {
      throw new ApiError(
        "password_change_required",
        "the password that was sent must be changed first: POST /client/password",
      );
    }
    await next();
  });
}

async function clientIdentity(
  c: Context<AppEnv>,
  hash: string,
  isSession: boolean,
): Promise<ClientIdentity | null> {
  const runtime = c.get("env").runtime;
  if (isSession) {
    const s = await runtime.read(sessionActor, SESSION_TENANT, hash, { kind: "check" });
    if (!s.ok || !s.reply || s.reply.owner !== "client_user") return null;
    const r = await runtime.read(courierClientActor, s.reply.business_id, s.reply.account_id, {
      kind: "authenticate_user",
      user_id: s.reply.user_id,
      session_epoch: s.reply.session_epoch,
    });
    return r.ok && r.reply && "client_id" in r.reply ? r.reply : null;
  }
  const target = await runtime.lookup("credential", hash, { cached: true });
  if (!target || target.type !== courierClientActor.type) return null;
  const r = await runtime.read(courierClientActor, target.tenant, target.id, {
    kind: "authenticate_key",
    hash,
  });
  if (r.ok && r.reply && "client_id" in r.reply) return r.reply;
  runtime.forget("credential", hash);
  return null;
}

/**
 * Refuses when the courier platform is off for the business (courier 4.6: every client call is
 * refused then, sign-in included).
 */
export async function requireCourierPlatform(c: Context<AppEnv>, businessId: string) {
  if (!(await courierPlatformEnabled(c, businessId))) throw courierPlatformDisabled();
}

/** Whether the operator enabled the courier platform for the business (courier 1.2). */
export async function courierPlatformEnabled(
  c: Context<AppEnv>,
  businessId: string,
): Promise<boolean> {
  return (await businessAccess(c, businessId)).courier_platform_enabled;
}

function courierPlatformDisabled(): ApiError {
  return new ApiError(
    "courier_platform_disabled",
    "the courier platform is not enabled for this business; ask the operator to enable it",
  );
}

/** Routes anyone may call (sign-in, public links) are limited per address. */
export const anonymous: MiddlewareHandler<AppEnv> = refusing({
  rate_limited: "too many calls from this address; wait `Retry-After` seconds",
}, async (c, next) => {
  rateLimit(c, `ip:${remoteAddress(c)}`, ANONYMOUS_RATE_LIMIT, "address");
  await next();
});

/** spec: courier 1.2: every courier endpoint answers 403 until the operator enables it. */
export const courierPlatform: MiddlewareHandler<AppEnv> = refusing(
  PLATFORM_DISABLED,
  async (c, next) => {
    const p = businessPrincipalOf(c);
    if (!p.business.courier_platform_enabled) throw courierPlatformDisabled();
    await next();
  },
);

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

export function requireScope(p: BusinessPrincipal, scope: Scope | undefined): void {
  if (scope === undefined) {
    if (p.kind === "partner") {
      throw new ApiError(
        "scope_denied",
        "partner keys reach only endpoints that need a named scope; this one names none",
      );
    }
    return;
  }
  if (!p.scopes.includes(scope)) {
    throw new ApiError("scope_denied", `missing scope: ${scope}`, { scope });
  }
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

async function businessAccess(c: Context<AppEnv>, id: string): Promise<BusinessAccess> {
  const r = await c.get("env").runtime.read(businessActor, id, id, { kind: "get" });
  if (!r.ok || !r.reply || !("profile" in r.reply)) {
    throw fromRejection(
      r.ok ? { ok: false, code: "unauthenticated", message: "business not found" } : r,
    );
  }
  return accessOf(r.reply);
}

function limitsOf(b: BusinessAccess): Limits {
  const plan = PLAN_RATE_LIMITS[b.plan];
  if (b.plan !== "enterprise") return plan;
  return {
    perMinute: b.rate_limit_per_minute ?? plan.perMinute,
    perDay: b.rate_limit_per_day ?? plan.perDay,
  };
}

/** Counts the request and sets X-RateLimit-* on whatever answer follows (Business API 8). */
function rateLimit(
  c: Context<AppEnv>,
  key: string,
  limits: Limits,
  kind: CounterKind = "caller",
): void {
  const refusal = counted(c, c.get("env").rateLimiter, key, limits, kind);
  if (refusal) throw refusal;
}

/** Counts one request of `key`, sets the rate headers, and answers the refusal once over. */
function counted(
  c: Context,
  limiter: RateLimiter,
  key: string,
  limits: Limits,
  kind: CounterKind,
): ApiError | null {
  const d = limiter.take(key, limits, kind);
  c.header("X-RateLimit-Remaining", String(d.remaining));
  c.header("X-RateLimit-Reset", String(d.reset));
  if (d.allowed) return null;
  return new ApiError(
    "rate_limited",
    `rate limit reached: ${limits.perMinute} a minute and ${limits.perDay} a day`,
    {},
    { "Retry-After": String(d.retryAfter) },
  );
}

/**
 * Business API 8: rate headers on every response. A refusal that counted no caller (an unknown
 * or missing key, an unknown endpoint) counts against the caller's address, as sign-in does: so
 * it carries the headers too, and guessing keys is throttled (past the limit, 429 instead).
 */
export function countUncounted(c: Context, limiter: RateLimiter, refusal: ApiError): ApiError {
  if (c.res.headers.has("X-RateLimit-Remaining")) return refusal;
  // The operator, once its token is checked, is a known caller that no plan limits: its refused
  // calls (a bad body, an unknown business) are no guessing, and never throttle its address.
  if ((c.get("principal") as Principal | undefined)?.kind === "operator") return refusal;
  return counted(c, limiter, `ip:${remoteAddress(c)}`, ANONYMOUS_RATE_LIMIT, "address") ??
    refusal;
}

/** The caller's address from the socket (never from a header a caller can write). */
export function remoteAddress(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? "unknown";
  } catch {
    return "local"; // in-process requests (tests) have no socket
  }
}

export { PARTNER_SCOPES };
