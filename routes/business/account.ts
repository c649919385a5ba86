/**
 * Business API 4.3 account rows and 5 (authentication, who can do what): sign-in, profile, the
 * integration key, the webhook secret, portal people, the wallet balance and the audit trail.
 */
import { apiKeyPrefix } from "../../src/environment.ts";
import { type Api, ok } from "../../src/http/app.ts";
import { ApiError } from "../../src/http/errors.ts";
import { anonymous, remoteAddress } from "../../src/http/guards.ts";
import { beginLogin, beginPasswordCheck } from "../../src/http/login_throttle.ts";
import { define, z } from "../../src/http/route.ts";
import { KEY_ALREADY_ROTATED } from "../../src/http/refusals.ts";
import { Email, EXAMPLE_URL, PlainText, wholeNumber } from "../../src/http/schemas.ts";
import { business, portalAdmin, signedInAdmin } from "../../src/platform/auth/auth.ts";
import { businessCall, staffCall } from "../../src/platform/auth/caller.ts";
import { auditTrail } from "../../src/platform/flows/audit.ts";
import { businessOf } from "../../src/platform/flows/businesses.ts";
import { rotateApiKey, rotateWebhookSecret } from "../../src/platform/flows/keys.ts";
import { changePerson, invitePerson, removePerson } from "../../src/platform/flows/people.ts";
import { changeProfile } from "../../src/platform/flows/profile.ts";
import {
  WALLET_TRANSACTIONS_PAGE_MAX,
  walletOf,
  walletTransactions,
} from "../../src/platform/flows/wallet.ts";
import { closeSession } from "../../src/platform/flows/sessions.ts";
import { changePassword, signIn } from "../../src/platform/flows/sign_in.ts";
import { STAFF_TOKEN_PREFIX } from "../../src/platform/identity.ts";
import { businessKeyScopes } from "../../src/platform/rules/scopes.ts";
import {
  ApiKeyAnswer,
  ApiKeyRegeneratedAnswer,
  AuditLogAnswer,
  auditLogView,
  BusinessProfileAnswer,
  InvitedRole,
  personView,
  PortalPersonAnswer,
  PortalPersonInvitedAnswer,
  PortalPersonRemovedAnswer,
  profileView,
  SignedOutAnswer,
  StaffSessionAnswer,
  WalletAnswer,
  WalletTransactionAnswer,
  walletTransactionView,
  walletView,
  WebhookSecretRegeneratedAnswer,
} from "./answers/account.ts";

const tag = "Account";
const security = "business" as const;
const Password = z.string().min(10, "at least 10 characters").max(200);
const PersonId = z.object({ id: z.string().min(1).max(64) });

export function accountRoutes(api: Api): void {
  signInRoutes(api);
  profileRoutes(api);
  credentialRoutes(api);
  peopleRoutes(api);
  moneyAndTrailRoutes(api);
}

/** Portal sign-in and sign-out (CONTRACT "Sign-in and people"; Business API 5.2). */
function signInRoutes(api: Api): void {
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
    // Repeated failures wait, per account and per address (429 rate_limited, Retry-After).
    const begin = () => beginLogin(env.loginThrottle, "staff", body.email, remoteAddress(c));
    return ok(c, await signIn(env, body, begin));
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
    await closeSession(c.get("env"), key);
    return ok(c, { signed_out: true });
  });
}

/** The account profile (Business API 4.3: GET, PATCH /business/profile). */
function profileRoutes(api: Api): void {
  define(api, {
    method: "get",
    path: "/business/profile",
    summary: "The account profile, with portal_role and principal",
    tag,
    security,
    middleware: [business()],
    response: BusinessProfileAnswer,
  }, async (c) => {
    const { env, principal, tenant } = businessCall(c);
    return ok(c, profileView(await businessOf(env.runtime, tenant), principal, env.name));
  });

  define(api, {
    method: "patch",
    path: "/business/profile",
    summary: "Update company name, billing contact, webhook_url, low-balance threshold",
    tag,
    security,
    middleware: [business(), portalAdmin],
    body: z.object({
      // Text a person writes, shown on documents and the portal: no control characters.
      name: PlainText(200).min(1),
      // Kept trimmed; blank clears it (null), as webhook_url below.
      billing_contact: PlainText(200).nullable().transform((contact) => contact || null),
      // Kept trimmed; blank clears it (null), as the billing endpoint's URL (billing_events.ts).
      webhook_url: z.string().trim().max(2_000).openapi({ example: EXAMPLE_URL }).nullable()
        .transform((url) => url || null),
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
    const { env, principal } = businessCall(c);
    // spec: courier 3.1, 6.1, business 6: events that waited for the webhook URL go now, handed
    // to the endpoint-set outbox in the profile's commit (src/platform/reactors/endpoint_set.ts).
    const b = await changeProfile(env, principal, body);
    return ok(c, profileView(b, principal, env.name));
  });
}

/** The integration key and the webhook secret (Business API 4.3, 5.6). */
function credentialRoutes(api: Api): void {
  define(api, {
    method: "get",
    path: "/business/api-key",
    summary: "Metadata of the integration key (never the key)",
    tag,
    security,
    middleware: [business(), portalAdmin],
    response: ApiKeyAnswer,
  }, async (c) => {
    const { env, tenant } = businessCall(c);
    const b = await businessOf(env.runtime, tenant);
    return ok(c, {
      prefix: apiKeyPrefix(env.name),
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
    refusals: KEY_ALREADY_ROTATED,
  }, async (c) => {
    const { env, principal } = businessCall(c);
    return ok(c, await rotateApiKey(env, principal), 201);
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
    refusals: KEY_ALREADY_ROTATED,
  }, async (c) => {
    const { env, principal } = businessCall(c);
    return ok(c, await rotateWebhookSecret(env, principal), 201);
  });

  define(api, {
    method: "post",
    path: "/business/change-password",
    summary: "The signed-in person changes password; other devices are signed out",
    tag,
    security,
    middleware: [business()],
    body: z.object({ current_password: z.string().min(1).max(200), new_password: Password }),
    description: "The other devices' sessions are signed out; this device's stays signed in, " +
      "its token (the one sent) answered again with its expiry.",
    response: StaffSessionAnswer,
    refusals: {
      signed_in_admin_only: "a key was sent: a person signed in is needed",
      validation_failed: "current_password does not match; new_password is weak or the " +
        "current one",
      rate_limited: "repeated wrong current passwords: wait `Retry-After` seconds",
      unauthenticated: "another session of the person changed the password meanwhile (this " +
        "session is signed out)",
    },
  }, async (c, { body }) => {
    const { env, principal } = businessCall(c);
    const begin = (staffId: string) => beginPasswordCheck(env.loginThrottle, "staff", staffId);
    // This device's session, kept through the change (spec: business 4.3).
    const token = c.req.header("X-Business-API-Key")?.trim() ?? "";
    return ok(c, await changePassword(env, principal, { ...body, token }, begin));
  });
}

/** Portal people (Business API 4.3 people; 5.6: for the owner or an admin signed in). */
function peopleRoutes(api: Api): void {
  define(api, {
    method: "get",
    path: "/business/people",
    summary: "Portal people and their roles",
    tag,
    security,
    middleware: [business(), signedInAdmin],
    response: z.array(PortalPersonAnswer),
  }, async (c) => {
    const { env, tenant } = businessCall(c);
    return ok(c, (await businessOf(env.runtime, tenant)).staff.map(personView));
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
      email_taken: "a portal user of any business already has this e-mail (it signs in alone); " +
        "the same words whichever business holds it",
      employee_limit_reached: "the plan's employee accounts are all taken",
    },
  }, async (c, { body }) => {
    const { env, principal } = businessCall(c);
    return ok(c, await invitePerson(env, principal, body), 201);
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
    const { env, principal } = staffCall(c);
    return ok(c, personView(await changePerson(env, principal, params.id, body)));
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
    const { env, principal } = staffCall(c);
    await removePerson(env, principal, params.id);
    return ok(c, { id: params.id, removed: true as const });
  });
}

/** The wallet's balances and the audit trail (Business API 4.3, 5.6). */
function moneyAndTrailRoutes(api: Api): void {
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
    const { env, tenant } = businessCall(c);
    const w = await walletOf(env, tenant);
    return ok(c, walletView(w.state, w.settings));
  });

  define(api, {
    method: "get",
    path: "/business/wallet/transactions",
    summary: "The wallet's debits, credits and top-ups, oldest first",
    description: "A trip's charge names `trip:<reference>`, its refund `refund:<reference>`. " +
      `Up to ${WALLET_TRANSACTIONS_PAGE_MAX} a page: the next page is \`after\` the last \`seq\`.`,
    tag,
    security,
    middleware: [business(), portalAdmin],
    query: z.object({ after: wholeNumber(0, Number.MAX_SAFE_INTEGER).default(0) }),
    response: z.array(WalletTransactionAnswer),
  }, async (c, { query }) => {
    const { env, tenant } = businessCall(c);
    const page = await walletTransactions(env, tenant, query.after);
    return ok(c, page.map(walletTransactionView));
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
    const { env, tenant } = businessCall(c);
    return ok(c, auditLogView(await auditTrail(env, tenant, query.after)));
  });
}
