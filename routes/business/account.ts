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
  PLANS,
  type Staff,
  thresholdAmount,
} from "../../actors/platform/business.ts";
import { walletActor } from "../../actors/platform/wallet.ts";
import { PLAN_EMPLOYEES_MAX } from "../../src/limits.ts";
import { issueCredential } from "../../src/domain/credentials.ts";
import { decimal, formatMinor, toMinor } from "../../src/domain/money.ts";
import {
  hashPassword,
  newSecret,
  passwordMatches,
  seal,
  sealOwner,
  temporaryPassword,
  verifyPassword,
} from "../../src/domain/secrets.ts";
import { apiKeyPrefix } from "../../src/environment.ts";
import { anonymous, remoteAddress } from "../../src/http/guards.ts";
import { business, portalAdmin, signedInAdmin } from "../../src/platform/auth/auth.ts";
import {
  businessPrincipalOf,
  principalName,
  principalRole,
  STAFF_TOKEN_PREFIX,
} from "../../src/platform/auth/principal.ts";
import { type Api, ok } from "../../src/http/app.ts";
import type { AppEnv } from "../../src/http/context.ts";
import { ApiError, validationFailed } from "../../src/http/errors.ts";
import { define, z } from "../../src/http/route.ts";
import { newId } from "../../src/runtime/ids.ts";
import { attemptWaitingEvents } from "../../src/courier/reactors/delivery_targets.ts";
import { checkWebhookUrl } from "../../src/outbound/url_guard.ts";
import { closeSession, openSession } from "../../src/platform/auth/sessions.ts";
import { beginLogin, beginPasswordCheck } from "../../src/http/login_throttle.ts";
import { weakPasswordReason } from "../../src/domain/passwords.ts";
import { PatchBusiness, stripUndefined } from "../platform/operator.ts";
import { ALL_SCOPES, businessKeyScopes, PORTAL_ROLES } from "../../src/platform/rules/scopes.ts";
import {
  Country,
  Currency,
  Email,
  Money,
  orNull,
  UtcInstant,
  wholeNumber,
} from "../../src/http/schemas.ts";
import { ask, read } from "../../src/http/ask.ts";

const tag = "Account";
const security = "business" as const;
const Password = z.string().min(10, "at least 10 characters").max(200);
const AUDIT_PAGE_MAX = 200;

// ---- Answers

const PortalRole = z.enum(PORTAL_ROLES);
const InvitedRole = z.enum(["admin", "coordinator"]);
const Scope = z.enum(ALL_SCOPES);

/** A portal sign-in: the session token, shown this once (the service keeps its hash). */
export const StaffSessionAnswer = z.object({
  token: z.string().openapi({
    description: "The portal session token (`st_...`), sent in `X-Business-API-Key`. Shown only " +
      "in this answer",
  }),
  expires_at: UtcInstant,
}).openapi("StaffSession");

export const SignedOutAnswer = z.object({ signed_out: z.literal(true) }).openapi("StaffSignedOut");

export const BusinessProfileAnswer = z.object({
  id: z.string(),
  name: z.string(),
  plan: z.enum(PLANS),
  currency: Currency,
  country: Country,
  billing_contact: orNull(z.string()),
  webhook_url: orNull(z.string()),
  webhook_key_id: z.string().openapi({
    description: "The id of the webhook signing secret in use, as deliveries name it in " +
      "`X-Service-Key-Id`; the secret itself is never shown again",
  }),
  billing_endpoint_url: orNull(z.string()).openapi({
    description: "Where courier billing events go; null: to `webhook_url`",
  }),
  low_balance_threshold: orNull(Money).openapi({
    description: "The low-balance threshold of the wallet, in `currency`; null: none set",
  }),
  courier_platform_enabled: z.boolean(),
  shopping_fulfilment_enabled: z.boolean(),
  portal_role: orNull(PortalRole).openapi({
    description: "The signed-in person's portal role; null for a key",
  }),
  principal: z.enum([...PORTAL_ROLES, "api_key"]).openapi({
    description: "Who is calling: a signed-in person's role or the integration key (`api_key`)",
  }),
  environment: z.enum(["live", "sandbox"]),
}).openapi("BusinessProfile");

export const ApiKeyAnswer = z.object({
  prefix: z.string().openapi({ description: "`sk_live_` or `sk_sandbox_`" }),
  hint: z.string().openapi({ description: "The key's last characters, to tell keys apart" }),
  created_at: UtcInstant,
  scopes: z.array(Scope).openapi({
    description: "Every scope the key holds: its defaults, those the operator granted, and those " +
      "they imply",
  }),
}).openapi("BusinessApiKey");

export const ApiKeyRegeneratedAnswer = z.object({
  api_key: z.string().openapi({
    description: "The new integration key. Shown only in this answer",
  }),
  hint: z.string().openapi({ description: "The key's last characters, to tell keys apart" }),
}).openapi("BusinessApiKeyRegenerated");

export const WebhookSecretRegeneratedAnswer = z.object({
  webhook_secret: z.string().openapi({
    description: "The new signing secret (`whsec_...`). Shown only in this answer",
  }),
  key_id: z.string().openapi({
    description: "Its id, as deliveries name it in `X-Service-Key-Id`",
  }),
}).openapi("WebhookSecretRegenerated");

export const PortalPersonAnswer = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  portal_role: PortalRole,
  created_at: UtcInstant,
}).openapi("PortalPerson");

export const PortalPersonInvitedAnswer = z.object({
  id: z.string(),
  email: z.string(),
  portal_role: InvitedRole,
  password: z.string().openapi({
    description: "The person's password for `POST /business/login`. Shown only in this answer",
  }),
}).openapi("PortalPersonInvited");

export const PortalPersonRemovedAnswer = z.object({
  id: z.string(),
  removed: z.literal(true),
}).openapi("PortalPersonRemoved");

export const WalletAnswer = z.object({
  billing_type: z.literal("prepaid"),
  balances: z.array(
    z.object({ currency: Currency, balance: Money }).openapi("BusinessWalletBalance"),
  ).openapi({ description: "One per currency the wallet has held" }),
}).openapi("BusinessWallet");

/** The profile fields a profile_changed entry names: those that changed, as they became. */
const ProfileChanges = z.object({
  name: z.string(),
  billing_contact: orNull(z.string()),
  webhook_url: orNull(z.string()),
  low_balance_threshold: orNull(Money),
  billing_endpoint_url: orNull(z.string()),
}).partial().openapi("BusinessProfileChanges");

/** One audit entry of `action` with what auditDetail (actors/business.ts) shows of it. */
function auditEntry<A extends string, D extends z.ZodRawShape>(action: A, detail: D) {
  return z.object({
    seq: z.number().int().openapi({ description: "Its place in the trail; pass as `after`" }),
    at: UtcInstant,
    action: z.literal(action),
    by: z.string().openapi({
      description: "`operator`, `api_key`, `staff:<user id>` or `partner_key:<key id>`",
    }),
    detail: z.object(detail),
  });
}

export const AuditEntry = z.discriminatedUnion("action", [
  auditEntry("business_created", { name: z.string(), plan: z.enum(PLANS) }),
  auditEntry("settings_changed", { changes: PatchBusiness }),
  auditEntry("profile_changed", { changes: ProfileChanges }),
  auditEntry("api_key_rotated", { hint: z.string() }),
  auditEntry("legacy_key_imported", { hint: z.string() }),
  auditEntry("webhook_secret_rotated", { key_id: z.string() }),
  auditEntry("partner_key_issued", { id: z.string(), partner: z.string(), scopes: z.array(Scope) }),
  auditEntry("partner_key_revoked", { id: z.string() }),
  auditEntry("staff_added", { id: z.string(), email: z.string(), role: PortalRole }),
  auditEntry("password_changed", { staff_id: z.string() }),
  auditEntry("staff_changed", {
    staff_id: z.string(),
    changes: z.object({ name: z.string(), role: PortalRole }).partial(),
  }),
  auditEntry("staff_removed", { staff_id: z.string(), email: z.string() }),
]).openapi("AuditEntry");

export const AuditLogAnswer = z.object({
  entries: z.array(AuditEntry).openapi({
    description: `Oldest first, at most ${AUDIT_PAGE_MAX}`,
  }),
  next_after: orNull(z.number().int()).openapi({
    description: "The last entry's `seq`, to pass as `after` for later entries; null when this " +
      "answer has none",
  }),
}).openapi("AuditLog");

export function accountRoutes(api: Api): void {
  define(api, {
    method: "post",
    path: "/business/login",
    summary: "Sign in to the portal; the token is sent in X-Business-API-Key",
    tag,
    security: "public",
    middleware: [anonymous],
    body: z.object({ email: Email, password: z.string().min(1).max(200) }),
    description: "The session token is shown only in this answer.",
    response: StaffSessionAnswer,
    refusals: {
      unauthenticated: "the e-mail or password is wrong",
      live_key_on_sandbox: "on the sandbox: portal sign-in is not available there",
      rate_limited: "repeated failed sign-ins for the e-mail or from the address: wait " +
        "`Retry-After` seconds",
    },
  }, async (c, { body }) => {
    const env = c.get("env");
    const refused = new ApiError("unauthenticated", "e-mail or password is wrong");
    // spec: business 5.2: the sandbox refuses portal sign-ins.
    if (env.name === "sandbox") {
      throw new ApiError("live_key_on_sandbox", "portal sign-in is not available on the sandbox");
    }
    // Repeated failures wait, per account and per address (429 rate_limited, Retry-After).
    const attempt = beginLogin(c.var.env.loginThrottle, "staff", body.email, remoteAddress(c));
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
    response: SignedOutAnswer,
    refusals: { validation_failed: "X-Business-API-Key is a key, not a portal session" },
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
    response: BusinessProfileAnswer,
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
      // Kept trimmed; blank clears it (null), as the billing endpoint's URL (billing_events.ts).
      webhook_url: z.string().trim().max(2_000).nullable().transform((url) => url || null),
      low_balance_threshold: z.union([z.number().nonnegative(), z.string().regex(/^\d+(\.\d+)?$/)])
        .nullable(),
    }).partial(),
    response: BusinessProfileAnswer,
    refusals: {
      signed_in_admin_only: "the integration key changes the company name or billing contact",
      validation_failed: "webhook_url is not public HTTPS; low_balance_threshold is not an " +
        "amount in the account's currency",
    },
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
    response: ApiKeyAnswer,
  }, async (c) => {
    const b = await loadBusiness(c);
    return ok(c, {
      prefix: apiKeyPrefix(c.get("env").name),
      hint: b.api_key.hint,
      created_at: new Date(b.api_key.created_at).toISOString(),
      // What the key can do (auth.ts grants the same), not only what the operator added.
      scopes: businessKeyScopes(b.settings.api_key_scopes),
    });
  });

  define(api, {
    method: "post",
    path: "/business/api-key/regenerate",
    summary: "Rotate the integration key; the previous key is invalid at once",
    description: "The new key is shown only in this answer; the service keeps it hashed.",
    tag,
    security,
    middleware: [business(), portalAdmin],
    status: 201,
    response: ApiKeyRegeneratedAnswer,
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
    description: "The new secret is shown only in this answer; the service keeps it sealed.",
    tag,
    security,
    middleware: [business(), portalAdmin],
    status: 201,
    response: WebhookSecretRegeneratedAnswer,
  }, async (c) => {
    const p = businessPrincipalOf(c);
    const env = c.get("env");
    const secret = newSecret("whsec_");
    const keyId = newId("whk");
    const id = p.business.id;
    const sealed = await seal(env.dataKey, secret, sealOwner("business_webhook", id, id));
    await askOwnBusiness(c, {
      kind: "rotate_webhook_secret",
      secret: { ...sealed, key_id: keyId, created_at: env.clock.now() },
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
    description: "Answers a new session for this device; its token is shown only in this answer.",
    response: StaffSessionAnswer,
    refusals: {
      signed_in_admin_only: "a key was sent: a person signed in is needed",
      validation_failed: "current_password does not match; new_password is weak",
      rate_limited: "repeated wrong current passwords: wait `Retry-After` seconds",
    },
  }, async (c, { body }) => {
    const p = businessPrincipalOf(c);
    if (p.kind !== "staff") {
      throw new ApiError("signed_in_admin_only", "changing a password needs a person signed in");
    }
    const b = await loadBusiness(c);
    const me = b.staff.find((s) => s.id === p.staff_id);
    if (!me) throw new ApiError("unauthenticated", "portal user not found");
    // As for client people (courier 5): guesses wait per person, weak passwords are refused.
    const attempt = beginPasswordCheck(c.var.env.loginThrottle, "staff", me.id);
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
    response: z.array(PortalPersonAnswer),
  }, async (c) => {
    const b = await loadBusiness(c);
    return ok(
      c,
      b.staff.map(personView),
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
      portal_role: InvitedRole,
    }),
    description: "The person's password is shown only in this answer; the service keeps it hashed.",
    status: 201,
    response: PortalPersonInvitedAnswer,
    refusals: {
      email_taken: "a portal user already has this e-mail",
      employee_limit_reached: "the plan's employee accounts are all taken",
    },
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
    method: "patch",
    path: "/business/people/{id}",
    summary: "Update a portal person's name or role (admin or coordinator)",
    description: "Only what differs is changed and audited. The owner's role never changes, and " +
      "only the owner changes the owner's name. A new role applies to the person's open " +
      "sessions at once.",
    tag,
    security,
    middleware: [business(), signedInAdmin],
    params: PersonId,
    body: z.object({ name: z.string().trim().min(1).max(200), portal_role: InvitedRole })
      .partial(),
    response: PortalPersonAnswer,
    refusals: {
      owner_protected: "the owner's role would change, or someone else would change the owner",
    },
  }, async (c, { params, body }) => {
    const p = signedInPerson(c);
    const target = await ownPerson(c, params.id);
    // spec: business 5.6: the account keeps its owner; an admin manages people, not the owner.
    if (target.role === "owner" && target.id !== p.staff_id) {
      throw new ApiError("owner_protected", "only the owner changes the owner's details");
    }
    const b = asBusiness(
      await askOwnBusiness(c, {
        kind: "change_staff",
        staff_id: target.id,
        changes: stripUndefined({ name: body.name, role: body.portal_role }),
        by: principalName(p),
      }),
    );
    const changed = b.staff.find((s) => s.id === target.id);
    if (!changed) throw new ApiError("not_found", `portal person not found: ${target.id}`);
    return ok(c, personView(changed));
  });

  define(api, {
    method: "delete",
    path: "/business/people/{id}",
    summary: "Remove a portal person; their sessions stop working at once",
    description: "The person can no longer sign in, and every session they hold is refused from " +
      "this answer on. The owner cannot be removed: the business keeps its owner.",
    tag,
    security,
    middleware: [business(), signedInAdmin],
    params: PersonId,
    response: PortalPersonRemovedAnswer,
    refusals: { owner_protected: "the person is the owner" },
  }, async (c, { params }) => {
    const p = signedInPerson(c);
    const target = await ownPerson(c, params.id);
    await askOwnBusiness(c, { kind: "remove_staff", staff_id: target.id, by: principalName(p) });
    return ok(c, { id: target.id, removed: true as const });
  });

  define(api, {
    method: "get",
    path: "/business/wallet",
    summary: "Wallet balances by currency",
    description: "Money is for the owner or a portal admin: a coordinator is refused " +
      "portal_admin_only; the integration key reads it.",
    tag,
    security,
    // spec: business 5.6: "money, credentials, people ... are for an admin (403
    // portal_admin_only)"; an integration key "reads".
    middleware: [business(), portalAdmin],
    response: WalletAnswer,
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
    query: z.object({ after: wholeNumber(0, Number.MAX_SAFE_INTEGER).default(0) }),
    response: AuditLogAnswer,
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

const PersonId = z.object({ id: z.string().min(1).max(64) });

function personView(s: Staff) {
  return {
    id: s.id,
    name: s.name,
    email: s.email,
    portal_role: s.role,
    created_at: new Date(s.created_at).toISOString(),
  };
}

/** The signed-in person calling (behind signedInAdmin). */
function signedInPerson(c: Context<AppEnv>) {
  const p = businessPrincipalOf(c);
  if (p.kind !== "staff") throw new ApiError("signed_in_admin_only", "a person must be signed in");
  return p;
}

/** A portal person of the caller's own business; another business's person is not found. */
async function ownPerson(c: Context<AppEnv>, id: string): Promise<Staff> {
  const person = (await loadBusiness(c)).staff.find((s) => s.id === id);
  if (!person) throw new ApiError("not_found", `portal person not found: ${id}`);
  return person;
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
