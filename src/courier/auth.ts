/**
 * The courier's clients calling (courier 4.6, 5: X-Client-API-Key), and the courier platform's
 * switch (courier 1.2): every courier endpoint answers 403 until the operator enables it.
 */
import type { Context, MiddlewareHandler } from "hono";
import {
  asClient,
  type ClientIdentity,
  type CourierClient,
  courierClientActor,
} from "../../actors/courier/courier_client.ts";
import { SESSION_TENANT, sessionActor } from "../../actors/platform/session.ts";
import { hashSecret } from "../domain/secrets.ts";
import type { EnvironmentName } from "../environment.ts";
import { read } from "../http/ask.ts";
import type { AppEnv } from "../http/context.ts";
import { ApiError } from "../http/errors.ts";
import { credentialRefusals, PLAN_LIMITED, rateLimit } from "../http/guards.ts";
import { PLATFORM_DISABLED, refusing } from "../http/refusals.ts";
import { businessAccess, limitsOf, refuseIfNotNow } from "../platform/auth/credentials.ts";
import { credentialCacheOf } from "../platform/auth/credential_cache.ts";
import { type BusinessAccess, businessActor } from "../../actors/platform/business/mod.ts";
import {
  businessPrincipalOf,
  type Principal,
  principalOf,
  setPrincipal,
} from "../platform/auth/principal.ts";
import { CLIENT_SCOPES } from "../platform/rules/scopes.ts";

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

/** The calling client's account (behind `client()`), as its actor holds it now. */
export async function callerClient(c: Context<AppEnv>): Promise<CourierClient> {
  const p = clientPrincipalOf(c);
  return asClient(await read(c, courierClientActor, p.business.id, p.client_id, { kind: "get" }));
}

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
    const hash = await hashSecret(key);
    const found = await clientCredential(c, hash, key.startsWith(CLIENT_SESSION_PREFIX));
    if (!found) throw refused();
    const { identity, access } = found;
    setPrincipal(c, {
      kind: "client",
      business: access,
      client_id: identity.client_id,
      user: identity.user,
      key_hash: identity.api_key_hash,
      scopes: CLIENT_SCOPES,
    });
    await rateLimit(c, `client:${identity.client_id}`, limitsOf(access));
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

interface ClientCredential {
  readonly identity: ClientIdentity;
  readonly access: BusinessAccess;
}

/**
 * The client and business a key's hash names: an API key is remembered until its client or its
 * business changes in a way that may touch it (not a booking's charge); a session is read afresh,
 * its expiry being a matter of time, not of a change.
 */
async function clientCredential(
  c: Context<AppEnv>,
  hash: string,
  isSession: boolean,
): Promise<ClientCredential | null> {
  const cache = isSession ? undefined : credentialCacheOf(c.get("env").runtime);
  const known = cache?.get<ClientCredential>("client", hash);
  if (known) return known;
  const epoch = cache?.epoch ?? 0;
  const identity = await clientIdentity(c, hash, isSession);
  if (!identity) return null;
  const found = { identity, access: await businessAccess(c, identity.business_id) };
  cache?.remember("client", hash, {
    value: found,
    owners: [
      `${courierClientActor.type}/${identity.client_id}`,
      `${businessActor.type}/${identity.business_id}`,
    ],
    epoch,
  });
  return found;
}

/**
 * Client changes that leave its credentials as they were: a booking's charge, a top-up, its
 * ledger, a reserved address. Any other (a rotated key, settings, people) drops them.
 */
const LEAVES_CREDENTIALS = new Set([
  "booking_charged",
  "topped_up",
  "address_reserved",
  "entry_posted",
  "fx_resolved",
  "payment_received",
  "cod_remitted",
]);

/** For the credential cache: whether a change of a client may change one of its credentials. */
export function clientCredentialsChanged(events: readonly unknown[]): boolean {
  return events.some((e) => !LEAVES_CREDENTIALS.has((e as { kind: string }).kind));
}

async function clientIdentity(
  c: Context<AppEnv>,
  hash: string,
  isSession: boolean,
): Promise<ClientIdentity | null> {
  const runtime = c.get("env").runtime;
  if (isSession) {
    const s = await runtime.read(sessionActor, SESSION_TENANT, hash, { kind: "check" });
    refuseIfNotNow(s);
    if (!s.ok || !s.reply || s.reply.owner !== "client_user") return null;
    const r = await runtime.read(courierClientActor, s.reply.business_id, s.reply.account_id, {
      kind: "authenticate_user",
      user_id: s.reply.user_id,
      session_epoch: s.reply.session_epoch,
    });
    refuseIfNotNow(r);
    return r.ok && r.reply && "client_id" in r.reply ? r.reply : null;
  }
  const target = await runtime.lookup("credential", hash, { cached: true });
  if (!target || target.type !== courierClientActor.type) return null;
  const r = await runtime.read(courierClientActor, target.tenant, target.id, {
    kind: "authenticate_key",
    hash,
  });
  refuseIfNotNow(r);
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

/** spec: courier 1.2: every courier endpoint answers 403 until the operator enables it. */
export const courierPlatform: MiddlewareHandler<AppEnv> = refusing(
  PLATFORM_DISABLED,
  async (c, next) => {
    const p = businessPrincipalOf(c);
    if (!p.business.courier_platform_enabled) throw courierPlatformDisabled();
    await next();
  },
);
