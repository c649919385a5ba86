/**
 * Business API 4.3 account rows and 5 (authentication, who can do what): sign-in, profile, the
 * integration key, the webhook secret, portal people, the wallet balance and the audit trail.
 */
import type { Context } from "hono";
import {
  asBusiness,
  auditDetail,
  type Business,
  businessActor,
  type BusinessCommand,
  type BusinessEvent,
  thresholdAmount,
} from "../../actors/business.ts";
import { walletActor } from "../../actors/wallet.ts";
import { PLAN_EMPLOYEES_MAX } from "../../src/limits.ts";
import { issueCredential } from "../../src/domain/credentials.ts";
import { decimal, formatMinor, toMinor } from "../../src/domain/money.ts";
import {
  hashPassword,
  newSecret,
  passwordMatches,
  seal,
  temporaryPassword,
  verifyPassword,
} from "../../src/domain/secrets.ts";
import { apiKeyPrefix } from "../../src/environment.ts";
import {
  anonymous,
  business,
  businessPrincipalOf,
  portalAdmin,
  principalName,
  principalRole,
  remoteAddress,
  signedInAdmin,
  STAFF_TOKEN_PREFIX,
} from "../../src/http/auth.ts";
import { type Api, ok } from "../../src/http/app.ts";
import type { AppEnv } from "../../src/http/context.ts";
import { ApiError, validationFailed } from "../../src/http/errors.ts";
import { define, z } from "../../src/http/route.ts";
import { newId } from "../../src/runtime/ids.ts";
import { attemptWaitingEvents } from "../../src/outbound/targets.ts";
import { checkWebhookUrl } from "../../src/outbound/url_guard.ts";
import { closeSession, openSession } from "../../src/http/sessions.ts";
import { beginLogin, beginPasswordCheck } from "../../src/http/login_throttle.ts";
import { weakPasswordReason } from "../../src/domain/passwords.ts";
import { stripUndefined } from "../operator.ts";
import { ask, read } from "../ask.ts";

const tag = "Account";
const security = "business" as const;
const Email = z.email().transform((e) => e.toLowerCase());
const Password = z.string().min(10, "at least 10 characters").max(200);
const AUDIT_PAGE_MAX = 200;

export function accountRoutes(api: Api): void {
  define(api, {
    method: "post",
    path: "/business/login",
    summary: "Sign in to the portal; the token is sent in X-Business-API-Key",
    tag,
    security: "public",
    middleware: [anonymous],
    body: z.object({ email: Email, password: z.string().min(1).max(200) }),
  }, async (c, { body }) => {
    const env = c.get("env");
    const refused = new ApiError("unauthenticated", "e-mail or password is wrong");
    // spec: business 5.2: the sandbox refuses portal sign-ins.
    if (env.name === "sandbox") {
      throw new ApiError("live_key_on_sandbox", "portal sign-in is not available on the sandbox");
    }
    // Repeated failures wait, per account and per address (429 rate_limited, Retry-After).
    const attempt = beginLogin(c, "staff", body.email, remoteAddress(c));
    const owner = await env.runtime.lookup("staff_email", body.email);
    const r = owner
      ? await env.runtime.ask(businessActor, owner.tenant, owner.id, {
        kind: "staff_for_login",
        email: body.email,
      })
      : null;
    const login = r?.ok && r.reply && "password_hash" in r.reply ? r.reply : null;
    const matches = await passwordMatches(body.password, login?.password_hash ?? null);
    if (!matches || !owner || !login) {
      attempt.failed();
      throw refused;
    }
    attempt.succeeded();
    return ok(c, await staffSession(c, owner.id, login.staff_id, login.session_epoch));
  });

  define(api, {
    method: "post",
    path: "/business/logout",
    summary: "End this portal session",
    tag,
    security,
    middleware: [business()],
  }, async (c) => {
    const key = c.req.header("X-Business-API-Key") ?? "";
    if (!key.startsWith(STAFF_TOKEN_PREFIX)) {
      throw new ApiError("validation_failed", "only a portal session can be signed out", {
        errors: [{ path: "X-Business-API-Key", message: "not a session token" }],
      });
    }
    await closeSession(c, key);
    return ok(c, { signed_out: true });
  });

  define(api, {
    method: "get",
    path: "/business/profile",
    summary: "The account profile, with portal_role and principal",
    tag,
    security,
    middleware: [business()],
  }, async (c) => ok(c, profileView(c, await loadBusiness(c))));

  define(api, {
    method: "patch",
    path: "/business/profile",
    summary: "Update company name, billing contact, webhook_url, low-balance threshold",
    tag,
    security,
    middleware: [business(), portalAdmin],
    body: z.object({
      name: z.string().trim().min(1).max(200),
      billing_contact: z.string().trim().max(200).nullable(),
      webhook_url: z.string().max(2_000).nullable(),
      low_balance_threshold: z.union([z.number().nonnegative(), z.string().regex(/^\d+(\.\d+)?$/)])
        .nullable(),
    }).partial(),
  }, async (c, { body }) => {
    const p = businessPrincipalOf(c);
    const env = c.get("env");
    // spec: business 5.6: the company record is for an admin; the integration key manages only
    // the webhook.
    if (
      p.kind === "business_key" && (body.name !== undefined || body.billing_contact !== undefined)
    ) {
      throw new ApiError(
        "signed_in_admin_only",
        "the company record needs the owner or a portal admin signed in",
      );
    }
    if (body.webhook_url) {
      const verdict = checkWebhookUrl(body.webhook_url, {
        allowLoopback: env.allowLoopbackWebhooks,
      });
      if (!verdict.ok) throw validationFailed([{ path: "webhook_url", message: verdict.message }]);
    }
    const { low_balance_threshold, ...rest } = stripUndefined(body);
    const changes = {
      ...rest,
      ...(low_balance_threshold === undefined ? {} : {
        low_balance_threshold: low_balance_threshold === null
          ? null
          : await thresholdText(c, low_balance_threshold),
      }),
    };
    const b = asBusiness(
      await askOwnBusiness(c, {
        kind: "change_profile",
        changes,
        by: principalName(p),
      }),
    );
    // spec: courier 3.1, 6.1: billing events that waited for an endpoint (the webhook URL is the
    // billing endpoint's fallback) go now, not at their next hourly try.
    if (body.webhook_url) {
      await attemptWaitingEvents(env, b.id, { kind: "courier" });
    }
    return ok(c, profileView(c, b));
  });

  define(api, {
    method: "get",
    path: "/business/api-key",
    summary: "Metadata of the integration key (never the key)",
    tag,
    security,
    middleware: [business(), portalAdmin],
  }, async (c) => {
    const b = await loadBusiness(c);
    return ok(c, {
      prefix: apiKeyPrefix(c.get("env").name),
      hint: b.api_key.hint,
      created_at: new Date(b.api_key.created_at).toISOString(),
      scopes: b.settings.api_key_scopes,
    });
  });

  define(api, {
    method: "post",
    path: "/business/api-key/regenerate",
    summary: "Rotate the integration key; the previous key is invalid at once",
    tag,
    security,
    middleware: [business(), portalAdmin],
  }, async (c) => {
    const p = businessPrincipalOf(c);
    const env = c.get("env");
    const key = await issueCredential(apiKeyPrefix(env.name), env.clock.now());
    await askOwnBusiness(c, {
      kind: "rotate_api_key",
      key: key.record,
      by: principalName(p),
    });
    return ok(c, { api_key: key.secret, hint: key.record.hint }, 201);
  });

  define(api, {
    method: "post",
    path: "/business/webhook-secret/regenerate",
    summary: "Rotate the webhook signing secret (whsec_..., shown once)",
    tag,
    security,
    middleware: [business(), portalAdmin],
  }, async (c) => {
    const p = businessPrincipalOf(c);
    const env = c.get("env");
    const secret = newSecret("whsec_");
    const keyId = newId("whk");
    await askOwnBusiness(c, {
      kind: "rotate_webhook_secret",
      secret: { ...(await seal(env.dataKey, secret)), key_id: keyId, created_at: env.clock.now() },
      by: principalName(p),
    });
    return ok(c, { webhook_secret: secret, key_id: keyId }, 201);
  });

  define(api, {
    method: "post",
    path: "/business/change-password",
    summary: "The signed-in person changes password; other devices are signed out",
    tag,
    security,
    middleware: [business()],
    body: z.object({ current_password: z.string().min(1).max(200), new_password: Password }),
  }, async (c, { body }) => {
    const p = businessPrincipalOf(c);
    if (p.kind !== "staff") {
      throw new ApiError("signed_in_admin_only", "changing a password needs a person signed in");
    }
    const b = await loadBusiness(c);
    const me = b.staff.find((s) => s.id === p.staff_id);
    if (!me) throw new ApiError("unauthenticated", "portal user not found");
    // As for client people (courier 5): guesses wait per person, weak passwords are refused.
    const attempt = beginPasswordCheck(c, "staff", me.id);
    if (!(await verifyPassword(body.current_password, me.password_hash))) {
      attempt.failed();
      throw validationFailed([{ path: "current_password", message: "does not match" }]);
    }
    attempt.succeeded();
    const weak = weakPasswordReason(body.new_password, me.email);
    if (weak) throw validationFailed([{ path: "new_password", message: weak }]);
    await ask(c, businessActor, b.id, b.id, {
      kind: "change_password",
      staff_id: me.id,
      password_hash: await hashPassword(body.new_password),
      by: principalName(p),
    });
    return ok(c, await staffSession(c, b.id, me.id, me.session_epoch + 1));
  });

  define(api, {
    method: "get",
    path: "/business/people",
    summary: "Portal people and their roles",
    tag,
    security,
    middleware: [business(), signedInAdmin],
  }, async (c) => {
    const b = await loadBusiness(c);
    return ok(
      c,
      b.staff.map((s) => ({
        id: s.id,
        name: s.name,
        email: s.email,
        portal_role: s.role,
        created_at: new Date(s.created_at).toISOString(),
      })),
    );
  });

  define(api, {
    method: "post",
    path: "/business/people",
    summary: "Invite a portal person (admin or coordinator); the temporary password is shown once",
    tag,
    security,
    middleware: [business(), signedInAdmin],
    body: z.object({
      name: z.string().trim().min(1).max(200),
      email: Email,
      portal_role: z.enum(["admin", "coordinator"]),
    }),
    status: 201,
  }, async (c, { body }) => {
    const p = businessPrincipalOf(c);
    const env = c.get("env");
    if (await env.runtime.lookup("staff_email", body.email)) {
      throw new ApiError("email_taken", `a portal user already has this e-mail: ${body.email}`);
    }
    const password = temporaryPassword();
    const id = newId("usr");
    await askOwnBusiness(c, {
      kind: "add_staff",
      staff: {
        id,
        email: body.email,
        name: body.name,
        role: body.portal_role,
        password_hash: await hashPassword(password),
      },
      max: PLAN_EMPLOYEES_MAX[p.business.plan],
      by: principalName(p),
    });
    return ok(c, { id, email: body.email, portal_role: body.portal_role, password }, 201);
  });

  define(api, {
    method: "get",
    path: "/business/wallet",
    summary: "Wallet balances by currency",
    tag,
    security,
    middleware: [business()],
  }, async (c) => {
    const p = businessPrincipalOf(c);
    const w = await read(c, walletActor, p.business.id, p.business.id, { kind: "get" });
    return ok(c, {
      billing_type: "prepaid",
      balances: Object.entries(w.state.balances).map(([currency, minor]) => ({
        currency,
        balance: decimal(minor, currency),
      })),
    });
  });

  define(api, {
    method: "get",
    path: "/business/audit-log",
    summary: "Every change to the account: what, when and by whom",
    tag,
    security,
    middleware: [business(), portalAdmin],
    query: z.object({ after: z.coerce.number().int().min(0).default(0) }),
  }, async (c, { query }) => {
    const p = businessPrincipalOf(c);
    const entries = [];
    for await (
      const e of c.get("env").runtime.events(businessActor, p.business.id, query.after + 1)
    ) {
      const { by, detail } = auditDetail(e.event as BusinessEvent);
      entries.push({
        seq: e.seq,
        at: new Date(e.at).toISOString(),
        action: (e.event as BusinessEvent).kind,
        by,
        detail,
      });
      if (entries.length >= AUDIT_PAGE_MAX) break;
    }
    return ok(c, { entries, next_after: entries.at(-1)?.seq ?? null });
  });
}

/**
 * The low-balance threshold is money in the account's currency: an exact decimal with no more
 * places than the currency has, kept in its canonical form (`"50.00"`, never `"1e+21"` or
 * `"0.30000000000000004"`).
 */
async function thresholdText(c: Context<AppEnv>, value: number | string): Promise<string> {
  const { currency } = await loadBusiness(c);
  const parsed = toMinor(value, currency);
  if (!parsed.ok || parsed.minor < 0) {
    throw validationFailed([{
      path: "low_balance_threshold",
      message: parsed.ok ? `must not be negative: ${value}` : parsed.message,
    }]);
  }
  return formatMinor(parsed.minor, currency);
}

/** Sends a command to the caller's own business actor (never another tenant's). */
function askOwnBusiness(c: Context<AppEnv>, command: BusinessCommand) {
  const id = businessPrincipalOf(c).business.id;
  return ask(c, businessActor, id, id, command);
}

async function loadBusiness(c: Context<AppEnv>): Promise<Business> {
  const id = businessPrincipalOf(c).business.id;
  return asBusiness(await read(c, businessActor, id, id, { kind: "get" }));
}

function profileView(c: Context<AppEnv>, b: Business) {
  const p = businessPrincipalOf(c);
  return {
    id: b.id,
    name: b.profile.name,
    plan: b.plan,
    currency: b.currency,
    country: b.country,
    billing_contact: b.profile.billing_contact,
    webhook_url: b.profile.webhook_url,
    /** The key id deliveries name in X-Service-Key-Id (courier 6.1); the secret is never shown. */
    webhook_key_id: b.webhook_secret.key_id,
    billing_endpoint_url: b.profile.billing_endpoint_url ?? null,
    low_balance_threshold: thresholdAmount(b.profile.low_balance_threshold),
    courier_platform_enabled: b.settings.courier_platform_enabled,
    shopping_fulfilment_enabled: b.settings.shopping_fulfilment_enabled,
    portal_role: p.kind === "staff" ? p.role : null,
    principal: principalRole(p),
    environment: c.get("env").name,
  };
}

function staffSession(c: Context<AppEnv>, businessId: string, staffId: string, epoch: number) {
  return openSession(c, STAFF_TOKEN_PREFIX, {
    owner: "staff",
    business_id: businessId,
    account_id: businessId,
    user_id: staffId,
    session_epoch: epoch,
  });
}
