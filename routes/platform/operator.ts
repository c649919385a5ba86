/**
 * The operator API (CONTRACT "Operator API"): businesses, their switches and keys, drivers, wallet
 * credits, service settings and the manual clock. Bearer OPERATOR_TOKEN.
 */
import {
  asBusiness,
  BULKY_SERVICES,
  businessActor,
  PLANS,
  publicView,
  VEHICLE_UPGRADE_POLICIES,
} from "../../actors/platform/business.ts";
import type { DeferredWork } from "../../actors/platform/deferred_work.ts";
import { driverActor } from "../../actors/platform/driver.ts";
import {
  PLATFORM_SETTINGS_ID,
  PLATFORM_TENANT,
  platformSettingsActor,
} from "../../actors/platform/platform_settings.ts";
import { walletActor } from "../../actors/platform/wallet.ts";
import { issueCredential } from "../../src/domain/credentials.ts";
import { decimal, formatMinor, toMinor } from "../../src/domain/money.ts";
import { ALL_SCOPES } from "../../src/platform/rules/scopes.ts";
import {
  hashPassword,
  newSecret,
  seal,
  sealOwner,
  temporaryPassword,
} from "../../src/domain/secrets.ts";
import { apiKeyPrefix } from "../../src/environment.ts";
import { operatorOnly } from "../../src/platform/auth/auth.ts";
import { PARTNER_KEY_PREFIX } from "../../src/platform/auth/principal.ts";
import { type Api, ok } from "../../src/http/app.ts";
import { ApiError, fromRejection, validationFailed } from "../../src/http/errors.ts";
import { define, z } from "../../src/http/route.ts";
import { iso } from "../../src/domain/iso.ts";
import {
  Country,
  Currency,
  Email,
  Money,
  orNull,
  UtcInstant,
  wholeNumber,
} from "../../src/http/schemas.ts";
import { SANDBOX_WALLET_OPENING_MINOR } from "../../src/limits.ts";
import { ManualClock } from "../../src/runtime/clock.ts";
import { newId } from "../../src/runtime/ids.ts";
import { ask, read } from "../../src/http/ask.ts";
import { deferredWorkList } from "../../src/platform/queries/deferred_work.ts";

const tag = "Operator";
const security = "operator" as const;
const middleware = [operatorOnly];

const DeferredWorkQuery = z.object({
  status: z.enum(["waiting", "done"]).default("waiting"),
  limit: wholeNumber(1, 500).default(100),
});

const ParkedChangesQuery = z.object({
  limit: wholeNumber(1, 500).default(100),
});

const Plan = z.enum(PLANS);
const BusinessId = z.object({ id: z.string().min(1).max(64) });
const Scope = z.enum(ALL_SCOPES);
const Amount = z.union([z.number(), z.string()]);

const CreateBusiness = z.object({
  name: z.string().trim().min(1).max(200),
  plan: Plan,
  currency: Currency,
  country: Country,
  owner_email: Email,
}).openapi("OperatorCreateBusiness");

/** Each value once, in the order first sent: a scope or service sent twice is held once. */
function distinct<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}

/** The operator's changes to a business; the audit trail shows them as sent (settings_changed). */
export const PatchBusiness = z.object({
  courier_platform_enabled: z.boolean(),
  shopping_fulfilment_enabled: z.boolean(),
  api_key_scopes: z.array(Scope).max(ALL_SCOPES.length).transform(distinct),
  vehicle_upgrade_policy: z.enum(VEHICLE_UPGRADE_POLICIES),
  bulky_services_authorised: z.array(z.enum(BULKY_SERVICES)).max(BULKY_SERVICES.length)
    .transform(distinct),
  // CONTRACT operator API: the Enterprise plan's limits are 6,000 a minute and 1,000,000 a day
  // until set; null clears a business's own limit, so that the plan's applies again.
  rate_limit_per_minute: orNull(z.number().int().positive().max(1_000_000)).openapi({
    description: "Enterprise plan: this business's limit a minute; null: back to the plan's",
  }),
  rate_limit_per_day: orNull(z.number().int().positive().max(100_000_000)).openapi({
    description: "Enterprise plan: this business's limit a day; null: back to the plan's",
  }),
}).partial().openapi("OperatorPatchBusiness");

// ---- Answers

/** A new business's credentials, shown this once (the key and password are kept hashed). */
export const BusinessCreatedAnswer = z.object({
  id: z.string(),
  api_key: z.string().openapi({
    description: "The integration key (`X-Business-API-Key`): `sk_live_...` on live, " +
      "`sk_sandbox_...` on the sandbox. Shown only in this answer",
  }),
  webhook_secret: z.string().openapi({
    description: "The webhook signing secret (`whsec_...`). Shown only in this answer",
  }),
  owner: z.object({
    email: z.string(),
    password: z.string().openapi({
      description: "The owner's portal password (`POST /business/login`). Shown only in this " +
        "answer",
    }),
  }),
}).openapi("OperatorBusinessCreated");

/** A business as the operator sees it (publicView): no key, hash or secret. */
export const BusinessSettingsAnswer = z.object({
  id: z.string(),
  name: z.string(),
  plan: Plan,
  currency: Currency,
  country: Country,
  created_at: UtcInstant,
  courier_platform_enabled: z.boolean(),
  shopping_fulfilment_enabled: z.boolean(),
  api_key_scopes: z.array(Scope).openapi({
    description: "Scopes the operator stored on the business key, added to its defaults",
  }),
  vehicle_upgrade_policy: z.enum(VEHICLE_UPGRADE_POLICIES),
  bulky_services_authorised: z.array(z.enum(BULKY_SERVICES)),
  rate_limit_per_minute: orNull(z.number().int()).openapi({
    description: "Enterprise plan: this business's limit; null: the plan's (6,000 a minute)",
  }),
  rate_limit_per_day: orNull(z.number().int()).openapi({
    description: "Enterprise plan: this business's limit; null: the plan's (1,000,000 a day)",
  }),
  webhook_url: orNull(z.string()),
  billing_contact: orNull(z.string()),
  low_balance_threshold: orNull(Money).openapi({
    description: "The low-balance threshold of the wallet, in `currency`; null: none set",
  }),
}).openapi("OperatorBusiness");

export const PartnerKeyIssuedAnswer = z.object({
  id: z.string(),
  key: z.string().openapi({
    description: "The partner key (`ak_...`), sent in `X-Business-API-Key`. Shown only in this " +
      "answer",
  }),
  partner: z.string(),
  scopes: z.array(Scope).openapi({ description: "The scopes the key holds, each once" }),
}).openapi("OperatorPartnerKeyIssued");

export const PartnerKeyRevokedAnswer = z.object({
  id: z.string(),
  revoked: z.literal(true),
}).openapi("OperatorPartnerKeyRevoked");

export const DriverRegisteredAnswer = z.object({
  id: z.string(),
  token: z.string().openapi({
    description: "The driver's bearer token (`Authorization: Bearer`). Shown only in this answer",
  }),
}).openapi("OperatorDriverRegistered");

export const WalletCreditAnswer = z.object({
  transaction_id: z.string(),
  reference: z.string(),
  amount: Money,
  currency: Currency,
  balance: Money.openapi({ description: "The wallet's balance in `currency` after the credit" }),
  replayed: z.boolean().openapi({
    description: "True when this reference was credited before: nothing was credited again",
  }),
}).openapi("OperatorWalletCredit");

export const PlatformSettingsAnswer = z.object({
  price_hold_minutes: z.number().int().openapi({
    description: "How long prices are held, in minutes",
  }),
  prep_offer_lead_minutes: z.number().int().openapi({
    description: "How many minutes before it is ready a prep order is offered to drivers",
  }),
}).openapi("PlatformSettings");

export const ClockAnswer = z.object({
  now: UtcInstant,
  kind: z.enum(["system", "manual"]).openapi({
    description: "`manual` when started with `CLOCK=manual` (tests only)",
  }),
}).openapi("OperatorClock");

export const ClockAdvancedAnswer = z.object({
  now: UtcInstant,
  timers_fired: z.number().int().openapi({
    description: "Durable timers that came due and fired before this answer",
  }),
}).openapi("OperatorClockAdvanced");

const DeferredWorkItem = z.object({
  id: z.string(),
  tenant: z.string().openapi({
    description: "The tenant of the change it was working on (a business id), or `platform`",
  }),
  worker: z.string().openapi({ description: "The bus worker that failed" }),
  subject: z.string().openapi({ description: "The subject of the message it was working on" }),
  status: z.enum(["waiting", "done"]),
  attempts: z.number().int().openapi({ description: "Tries made since it was deferred" }),
  deferred_at: UtcInstant,
  last_error: orNull(z.string()),
  done_at: orNull(UtcInstant),
}).openapi("DeferredWorkItem");

export const DeferredWorkAnswer = z.object({
  items: z.array(DeferredWorkItem),
}).openapi("DeferredWorkList");

const ParkedChangeItem = z.object({
  projection: z.enum(["snapshots", "ledger", "read_tables", "platform_read_tables"]).openapi({
    description: "Where it could not be written: actor snapshots and events, the ledger, or " +
      "the lists' typed read tables (the courier's, the platform's)",
  }),
  id: z.string().openapi({ description: "SHA-256 of the change as kept" }),
  subject: z.string().openapi({ description: "The bus subject of the change" }),
  attempts: z.number().int().openapi({ description: "Writes tried and failed" }),
  last_error: z.string(),
  parked_at: UtcInstant,
  failed_at: UtcInstant.openapi({ description: "When the last try failed" }),
}).openapi("ParkedChange");

export const ParkedChangesAnswer = z.object({
  items: z.array(ParkedChangeItem),
}).openapi("ParkedChangeList");

export function operatorRoutes(api: Api): void {
  define(
    api,
    {
      method: "post",
      path: "/operator/businesses",
      summary: "Create a business; answers its key, webhook secret and owner sign-in once",
      tag,
      security,
      middleware,
      description: "The integration key, the webhook secret and the owner's password are shown " +
        "only in this answer: the service keeps the key and password hashed and the secret sealed, " +
        "and no other route answers them.",
      body: CreateBusiness,
      status: 201,
      response: BusinessCreatedAnswer,
      refusals: { email_taken: "a portal user already has the owner's e-mail" },
    },
    async (c, input) => {
      const env = c.get("env");
      const body = input.body;
      if (await env.runtime.lookup("staff_email", body.owner_email)) {
        throw new ApiError(
          "email_taken",
          `a portal user already has this e-mail: ${body.owner_email}`,
        );
      }
      const now = env.clock.now();
      const id = newId("biz");
      const apiKey = await issueCredential(apiKeyPrefix(env.name), now);
      const webhookSecret = newSecret("whsec_");
      const password = temporaryPassword();
      await ask(c, businessActor, id, id, {
        kind: "create",
        id,
        name: body.name,
        plan: body.plan,
        currency: body.currency,
        country: body.country,
        owner: {
          id: newId("usr"),
          email: body.owner_email,
          name: body.owner_email,
          role: "owner",
          password_hash: await hashPassword(password),
        },
        api_key: apiKey.record,
        webhook_secret: {
          ...(await seal(env.dataKey, webhookSecret, sealOwner("business_webhook", id, id))),
          key_id: newId("whk"),
          created_at: now,
        },
      });
      if (env.name === "sandbox") {
        // spec: business 8: sandbox wallets hold 100,000 BWP and 100,000 ZAR.
        for (const [currency, minor] of Object.entries(SANDBOX_WALLET_OPENING_MINOR)) {
          const reference = `sandbox-opening-${currency}`;
          const r = await env.runtime.ask(walletActor, id, id, {
            kind: "credit",
            amount_minor: minor,
            currency,
            reference,
            by: "operator",
          }, { idempotencyKey: `credit:${reference}`, permanent: true });
          if (!r.ok) throw fromRejection(r);
        }
      }
      return ok(c, {
        id,
        api_key: apiKey.secret,
        webhook_secret: webhookSecret,
        owner: { email: body.owner_email, password },
      }, 201);
    },
  );

  define(
    api,
    {
      method: "get",
      path: "/operator/businesses/{id}",
      summary: "A business's settings",
      tag,
      security,
      middleware,
      params: BusinessId,
      response: BusinessSettingsAnswer,
    },
    async (c, input) => {
      const { id } = input.params;
      const b = asBusiness(await read(c, businessActor, id, id, { kind: "get" }));
      return ok(c, publicView(b));
    },
  );

  define(
    api,
    {
      method: "patch",
      path: "/operator/businesses/{id}",
      summary: "Switch capabilities, store the business key's scopes, set limits",
      tag,
      security,
      middleware,
      params: BusinessId,
      body: PatchBusiness,
      response: BusinessSettingsAnswer,
    },
    async (c, input) => {
      const { id } = input.params;
      // Each scope and service is held once (PatchBusiness: distinct): sent twice, it was
      // stored, shown and audited twice.
      const changes = stripUndefined(input.body);
      const b = asBusiness(
        await ask(c, businessActor, id, id, {
          kind: "change_settings",
          changes,
          by: "operator",
        }),
      );
      return ok(c, publicView(b));
    },
  );

  define(
    api,
    {
      method: "post",
      path: "/operator/businesses/{id}/partner-keys",
      summary: "Issue a partner key with the scopes the merchant named (shown once)",
      tag,
      security,
      middleware,
      params: BusinessId,
      body: z.object({
        partner: z.string().trim().min(1).max(200),
        scopes: z.array(Scope).min(1).max(ALL_SCOPES.length).transform(distinct),
      }),
      description: "The key is shown only in this answer; the service keeps it hashed.",
      status: 201,
      response: PartnerKeyIssuedAnswer,
    },
    async (c, input) => {
      const env = c.get("env");
      const { id } = input.params;
      const body = input.body;
      const keyId = newId("pk");
      const key = await issueCredential(PARTNER_KEY_PREFIX, env.clock.now());
      const { partner, scopes } = body;
      await ask(c, businessActor, id, id, {
        kind: "issue_partner_key",
        key: { ...key.record, id: keyId, partner, scopes },
        by: "operator",
      });
      return ok(c, { id: keyId, key: key.secret, partner, scopes }, 201);
    },
  );

  define(
    api,
    {
      method: "delete",
      path: "/operator/partner-keys/{id}",
      summary: "Revoke a partner key; the business and its other keys are unaffected",
      tag,
      security,
      middleware,
      params: BusinessId,
      response: PartnerKeyRevokedAnswer,
    },
    async (c, input) => {
      const { id } = input.params;
      const owner = await c.get("env").runtime.lookup("partner_key", id);
      if (!owner) throw new ApiError("not_found", `partner key not found: ${id}`);
      await ask(c, businessActor, owner.tenant, owner.id, {
        kind: "revoke_partner_key",
        id,
        by: "operator",
      });
      return ok(c, { id, revoked: true });
    },
  );

  define(
    api,
    {
      method: "post",
      path: "/operator/businesses/{id}/drivers",
      summary: "Register a driver; answers the driver's bearer token once",
      tag,
      security,
      middleware,
      params: BusinessId,
      body: z.object({
        name: z.string().trim().min(1).max(200),
        phone: z.string().regex(/^\+[1-9]\d{6,14}$/, "international format, e.g. +26771234567"),
        vehicle_type_id: z.number().int().positive(),
      }),
      description: "The driver's token is shown only in this answer; the service keeps it hashed.",
      status: 201,
      response: DriverRegisteredAnswer,
    },
    async (c, input) => {
      const env = c.get("env");
      const { id } = input.params;
      const body = input.body;
      await read(c, businessActor, id, id, { kind: "get" }); // 404 for an unknown business
      const driverId = newId("drv");
      const token = await issueCredential("dt_", env.clock.now());
      await ask(c, driverActor, id, driverId, {
        kind: "create",
        driver: { id: driverId, business_id: id, ...body, token: token.record },
      });
      return ok(c, { id: driverId, token: token.secret }, 201);
    },
  );

  define(
    api,
    {
      method: "post",
      path: "/operator/businesses/{id}/wallet",
      summary: "Credit a business's wallet (manual credit); the same reference credits once",
      tag,
      security,
      middleware,
      params: BusinessId,
      body: z.object({
        amount: Amount,
        currency: Currency,
        reference: z.string().trim().min(1).max(120),
      }),
      status: 201,
      replay: "The same `reference` with the same amount and currency; with another amount or " +
        "currency it is refused 409 `reference_conflict`.",
      response: WalletCreditAnswer,
      refusals: {
        reference_conflict: "the reference was credited before with another amount or currency",
      },
    },
    async (c, input) => {
      const { id } = input.params;
      const body = input.body;
      const minor = toMinor(body.amount, body.currency);
      if (!minor.ok || minor.minor <= 0) {
        throw validationFailed([{
          path: "amount",
          message: minor.ok ? `must be positive: ${body.amount}` : minor.message,
        }]);
      }
      await read(c, businessActor, id, id, { kind: "get" });
      // The same reference credits once however late it is sent again (business appendix 2):
      // its key is kept for good, not for the replay window.
      const r = await c.get("env").runtime.ask(walletActor, id, id, {
        kind: "credit",
        amount_minor: minor.minor,
        currency: body.currency,
        reference: body.reference,
        by: "operator",
      }, { idempotencyKey: `credit:${body.reference}`, permanent: true });
      if (!r.ok) throw fromRejection(r);
      const t = r.reply.transaction;
      if (r.replayed && (t?.amount_minor !== minor.minor || t?.currency !== body.currency)) {
        // spec: business appendix 2: same reference, different details.
        throw new ApiError(
          "reference_conflict",
          `reference already used for ${
            t ? formatMinor(t.amount_minor, t.currency) : "?"
          } ${t?.currency}: ${body.reference}`,
        );
      }
      return ok(c, {
        transaction_id: t?.id ?? null,
        reference: body.reference,
        amount: decimal(minor.minor, body.currency),
        currency: body.currency,
        balance: decimal(r.reply.state.balances[body.currency] ?? 0, body.currency),
        replayed: r.replayed,
      }, r.replayed ? 200 : 201);
    },
  );

  define(
    api,
    {
      method: "put",
      path: "/operator/settings",
      summary: "Service settings: price hold and prep offer lead, in minutes",
      tag,
      security,
      middleware,
      body: z.object({
        price_hold_minutes: z.number().int().min(1).max(24 * 60),
        prep_offer_lead_minutes: z.number().int().min(0).max(24 * 60),
      }).partial(),
      response: PlatformSettingsAnswer,
    },
    async (c, input) => {
      const settings = await ask(c, platformSettingsActor, PLATFORM_TENANT, PLATFORM_SETTINGS_ID, {
        kind: "change",
        changes: stripUndefined(input.body),
        by: "operator",
      });
      return ok(c, settings);
    },
  );

  define(
    api,
    {
      method: "get",
      path: "/operator/settings",
      summary: "Service settings",
      tag,
      security,
      middleware,
      response: PlatformSettingsAnswer,
    },
    async (c) => {
      return ok(
        c,
        await read(c, platformSettingsActor, PLATFORM_TENANT, PLATFORM_SETTINGS_ID, {
          kind: "get",
        }),
      );
    },
  );

  define(
    api,
    {
      method: "post",
      path: "/operator/clock/advance",
      summary:
        "Move the manual clock forward; due timers fire before the answer (CLOCK=manual only)",
      tag,
      security,
      middleware,
      body: z.object({ seconds: z.number().int().min(0).max(366 * 86_400) }),
      response: ClockAdvancedAnswer,
      refusals: { clock_not_manual: "the service was not started with CLOCK=manual" },
    },
    async (c, input) => {
      const env = c.get("env");
      if (!(env.clock instanceof ManualClock)) {
        throw new ApiError("clock_not_manual", "the clock can be advanced only with CLOCK=manual");
      }
      env.clock.advanceBy(input.body.seconds * 1000);
      const fired = await env.runtime.fireDueTimers();
      await env.bus.flush();
      await env.pump(); // deliveries whose attempt came due
      return ok(c, { now: new Date(env.clock.now()).toISOString(), timers_fired: fired });
    },
  );

  define(
    api,
    {
      method: "get",
      path: "/operator/clock",
      summary: "The service's clock",
      tag,
      security,
      middleware,
      response: ClockAnswer,
    },
    (c) =>
      ok(c, {
        now: new Date(c.get("env").clock.now()).toISOString(),
        kind: c.get("env").clock.kind,
      }),
  );

  define(
    api,
    {
      method: "get",
      path: "/operator/deferred-work",
      summary: "Bus work that failed past its retries and waits on a durable timer (a webhook " +
        "event, an alert, a charge from a scan), oldest first: `status=waiting` (default) or " +
        "`done`. Each shows its worker, message subject, tries, when it was deferred and the " +
        "last error, so stuck work is seen rather than only logged",
      tag,
      security,
      middleware,
      query: DeferredWorkQuery,
      response: DeferredWorkAnswer,
    },
    async (c, { query }) => {
      // The query side holds each deferral's snapshot (every actor type is projected).
      const rows = await deferredWorkList(c.get("env").db, query.status, query.limit);
      return ok(c, {
        items: rows.map((r) => {
          const w = r.data as DeferredWork;
          return {
            id: r.id,
            tenant: r.tenant,
            worker: w.worker,
            subject: w.subject,
            status: w.status,
            attempts: w.attempts,
            deferred_at: iso(w.deferred_at),
            last_error: w.last_error,
            done_at: iso(w.done_at),
          };
        }),
      });
    },
  );

  define(
    api,
    {
      method: "get",
      path: "/operator/parked-changes",
      summary: "Changes the query side could not write for a lasting reason (a value a table " +
        "refuses, a defect), oldest first. They are kept, not dropped, and written again at " +
        "every sweep round until they go in (a release that fixes the cause); each shows where " +
        "it failed, its subject, tries and the last error",
      tag,
      security,
      middleware,
      query: ParkedChangesQuery,
      response: ParkedChangesAnswer,
    },
    async (c, { query }) => {
      const rows = await c.get("env").db.selectFrom("parked_changes")
        .select(["projection", "digest", "subject", "attempts", "error", "parked_at", "failed_at"])
        .orderBy("parked_at").orderBy("digest")
        .limit(query.limit)
        .execute();
      return ok(c, {
        items: rows.map((r) => ({
          projection: r.projection,
          id: r.digest,
          subject: r.subject,
          attempts: r.attempts,
          last_error: r.error,
          parked_at: new Date(r.parked_at).toISOString(),
          failed_at: new Date(r.failed_at).toISOString(),
        })),
      });
    },
  );
}

/** zod's partial() leaves absent keys as undefined; exactOptionalPropertyTypes wants them gone. */
export function stripUndefined<T extends object>(
  o: T,
): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}
