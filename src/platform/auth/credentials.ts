/**
 * A business credential checked (Business API 5.2, 5.5, 5.6): the integration key (a legacy
 * unprefixed one on live only), a partner key or a staff session, each found by its hash and
 * confirmed by the business actor; the sandbox takes only sandbox keys. What a credential
 * belongs to, and the rate limits of its plan.
 */
import type { Context } from "hono";
import {
  accessOf,
  type Authenticated,
  type BusinessAccess,
  businessActor,
} from "../../../actors/platform/business/mod.ts";
import { SESSION_TENANT, sessionActor } from "../../../actors/platform/session.ts";
import { hashSecret } from "../../domain/secrets.ts";
import { credentialCacheOf } from "./credential_cache.ts";
import { apiKeyPrefix } from "../../environment.ts";
import type { AppEnv } from "../../http/context.ts";
import { ApiError, fromRejection } from "../../http/errors.ts";
import { NOT_NOW_CODES, type Rejection } from "../../runtime/actor.ts";
import type { Limits } from "../../http/rate_limit.ts";
import { PLAN_RATE_LIMITS } from "../../limits.ts";
import {
  type BusinessPrincipal,
  PARTNER_KEY_PREFIX,
  partnerKeyPrefix,
  STAFF_TOKEN_PREFIX,
} from "../identity.ts";
import { businessKeyScopes, staffScopes, withImplied } from "../rules/scopes.ts";

/**
 * Throws a credential check its actor could not answer now (a full mailbox: 503 actor_busy): a
 * valid credential must never be told it is invalid (401), nor forgotten from the lookup cache.
 */
export function refuseIfNotNow(r: { readonly ok: true } | Rejection): void {
  if (!r.ok && NOT_NOW_CODES.has(r.code)) throw fromRejection(r);
}

export async function authenticateBusiness(
  c: Context<AppEnv>,
  key: string,
): Promise<BusinessPrincipal> {
  const env = c.get("env");
  const sandboxPrefix = apiKeyPrefix("sandbox");
  if (env.name === "live" && key.startsWith(sandboxPrefix)) {
    throw new ApiError("sandbox_key_on_live", "a sandbox key was sent to live; use a sk_live_ key");
  }
  // spec: business 5.2, 7: a partner key says its environment as the business key does.
  if (env.name === "live" && key.startsWith(partnerKeyPrefix("sandbox"))) {
    throw new ApiError(
      "sandbox_key_on_live",
      `a sandbox partner key was sent to live; use a ${partnerKeyPrefix("live")} key`,
    );
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
  if (env.name === "sandbox" && !key.startsWith(sandboxPrefix) && !sandboxPartnerKey(key)) {
    throw refused();
  }
  const hash = await hashSecret(key);
  if (key.startsWith(STAFF_TOKEN_PREFIX)) return await staffPrincipal(c, hash, refused);
  const cache = credentialCacheOf(env.runtime);
  const known = cache?.get<BusinessPrincipal>("business", hash);
  if (known) return known;
  const epoch = cache?.epoch ?? 0;
  const target = await env.runtime.lookup("credential", hash, { cached: true });
  if (!target || target.type !== businessActor.type) throw refused();
  const r = await env.runtime.read(businessActor, target.tenant, target.id, {
    kind: "authenticate_key",
    hash,
  });
  refuseIfNotNow(r);
  if (!r.ok || !r.reply || !("principal" in r.reply)) {
    env.runtime.forget("credential", hash);
    throw refused();
  }
  const { access, principal } = r.reply;
  if (principal.as === "business_key" && principal.legacy && env.name !== "live") throw refused();
  const found = fromAuthenticated(access, principal, hash);
  cache?.remember("business", hash, {
    value: found,
    owners: [`${businessActor.type}/${target.id}`],
    epoch,
  });
  return found;
}

/** A partner key the sandbox may have issued: a sandbox one, or one from before keys said. */
function sandboxPartnerKey(key: string): boolean {
  return key.startsWith(PARTNER_KEY_PREFIX) && !key.startsWith(partnerKeyPrefix("live"));
}

async function staffPrincipal(
  c: Context<AppEnv>,
  hash: string,
  refused: () => ApiError,
): Promise<BusinessPrincipal> {
  const env = c.get("env");
  const session = await env.runtime.read(sessionActor, SESSION_TENANT, hash, { kind: "check" });
  refuseIfNotNow(session);
  if (!session.ok || !session.reply || session.reply.owner !== "staff") throw refused();
  const s = session.reply;
  const r = await env.runtime.read(businessActor, s.business_id, s.business_id, {
    kind: "authenticate_staff",
    staff_id: s.user_id,
    session_epoch: s.session_epoch,
    session_hash: hash,
  });
  refuseIfNotNow(r);
  if (!r.ok || !r.reply || !("principal" in r.reply)) throw refused();
  return fromAuthenticated(r.reply.access, r.reply.principal, hash);
}

function fromAuthenticated(
  business: BusinessAccess,
  a: Authenticated,
  hash: string,
): BusinessPrincipal {
  switch (a.as) {
    case "business_key":
      return {
        kind: "business_key",
        business,
        legacy: a.legacy,
        scopes: businessKeyScopes(a.scopes),
        key_hash: hash,
        webhook_key_id: a.webhook_key_id,
      };
    case "staff":
      return {
        kind: "staff",
        business,
        staff_id: a.staff_id,
        role: a.role,
        scopes: staffScopes(a.role),
        session_epoch: a.session_epoch,
        session_hash: hash,
        api_key_hash: a.api_key_hash,
        webhook_key_id: a.webhook_key_id,
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
