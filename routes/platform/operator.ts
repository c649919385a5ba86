/**
 * The operator API (CONTRACT "Operator API"): businesses, their switches and keys, drivers, wallet
 * credits, service settings and the manual clock. Bearer OPERATOR_TOKEN.
 */
import { asBusiness, businessActor, publicView } from "../../actors/platform/business/mod.ts";
import {
  PLATFORM_SETTINGS_ID,
  PLATFORM_TENANT,
  platformSettingsActor,
} from "../../actors/platform/platform_settings.ts";
import { distinct, stripUndefined } from "../../src/domain/objects.ts";
import { type Api, ok } from "../../src/http/app.ts";
import { ask, read } from "../../src/http/ask.ts";
import { define, z } from "../../src/http/route.ts";
import { KEY_ALREADY_ROTATED } from "../../src/http/refusals.ts";
import { Country, Currency, Email, Phone, wholeNumber } from "../../src/http/schemas.ts";
import { operatorOnly } from "../../src/platform/auth/auth.ts";
import { changeSettings, createBusiness } from "../../src/platform/flows/businesses.ts";
import { advanceClock } from "../../src/platform/flows/clock.ts";
import { registerDriver, rotateDriverToken } from "../../src/platform/flows/drivers.ts";
import { issuePartnerKey, revokePartnerKey } from "../../src/platform/flows/keys.ts";
import { creditWallet } from "../../src/platform/flows/wallet.ts";
import { listDeferredWork } from "../../src/platform/queries/deferred_work.ts";
import { listParkedChanges } from "../../src/platform/queries/parked_changes.ts";
import { ALL_SCOPES } from "../../src/platform/rules/scopes.ts";
import { unsafePort, WEBHOOK_PORTS_MAX } from "../../src/outbound/webhook_ports.ts";
import { PatchBusiness, Scope } from "../../src/platform/schemas.ts";
import {
  BusinessCreatedAnswer,
  BusinessSettingsAnswer,
  ClockAdvancedAnswer,
  clockAdvancedView,
  ClockAnswer,
  DeferredWorkAnswer,
  deferredWorkView,
  DriverRegisteredAnswer,
  ParkedChangesAnswer,
  parkedChangeView,
  PartnerKeyIssuedAnswer,
  PartnerKeyRevokedAnswer,
  Plan,
  PlatformSettingsAnswer,
  WalletCreditAnswer,
  walletCreditView,
} from "./answers/operator.ts";

const tag = "Operator";
const security = "operator" as const;
const middleware = [operatorOnly];

const DeferredWorkQuery = z.object({
  status: z.enum(["waiting", "done", "parked"]).default("waiting"),
  limit: wholeNumber(1, 500).default(100),
});

const ParkedChangesQuery = z.object({
  limit: wholeNumber(1, 500).default(100),
});

const BusinessId = z.object({ id: z.string().min(1).max(64) });
const Amount = z.union([z.number(), z.string()]).openapi({ example: "500.00" });

const CreateBusiness = z.object({
  name: z.string().trim().min(1).max(200),
  plan: Plan,
  currency: Currency,
  country: Country,
  owner_email: Email,
}).openapi("OperatorCreateBusiness");

export function operatorRoutes(api: Api): void {
  businessRoutes(api);
  credentialRoutes(api);
  driverTokenRoutes(api);
  serviceRoutes(api);
  stuckWorkRoutes(api);
}

/** A business: made, read, and its switches and limits set. */
function businessRoutes(api: Api): void {
  define(api, {
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
    refusals: { email_taken: "a portal user of any business already has the owner's e-mail" },
  }, async (c, { body }) => ok(c, await createBusiness(c.get("env"), body), 201));

  define(api, {
    method: "get",
    path: "/operator/businesses/{id}",
    summary: "A business's settings",
    tag,
    security,
    middleware,
    params: BusinessId,
    response: BusinessSettingsAnswer,
  }, async (c, { params: { id } }) => {
    const b = asBusiness(await read(c, businessActor, id, id, { kind: "get" }));
    return ok(c, publicView(b));
  });

  define(api, {
    method: "patch",
    path: "/operator/businesses/{id}",
    summary: "Switch capabilities, store the business key's scopes, set limits",
    tag,
    security,
    middleware,
    params: BusinessId,
    body: PatchBusiness,
    response: BusinessSettingsAnswer,
  }, async (c, { params, body }) => {
    // Each scope and service is held once (PatchBusiness: distinct): sent twice, it was
    // stored, shown and audited twice.
    const b = await changeSettings(c.get("env"), params.id, stripUndefined(body));
    return ok(c, publicView(b));
  });
}

/** What the operator issues to a business: partner keys, drivers and wallet credits. */
function credentialRoutes(api: Api): void {
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
    async (c, { params, body }) => ok(c, await issuePartnerKey(c.get("env"), params.id, body), 201),
  );

  define(api, {
    method: "delete",
    path: "/operator/partner-keys/{id}",
    summary: "Revoke a partner key; the business and its other keys are unaffected",
    tag,
    security,
    middleware,
    params: BusinessId,
    response: PartnerKeyRevokedAnswer,
  }, async (c, { params: { id } }) => {
    await revokePartnerKey(c.get("env"), id);
    return ok(c, { id, revoked: true });
  });

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
        phone: Phone,
        vehicle_type_id: z.number().int().positive(),
      }),
      description: "The driver's token is shown only in this answer; the service keeps it hashed.",
      status: 201,
      response: DriverRegisteredAnswer,
    },
    async (c, { params, body }) => ok(c, await registerDriver(c.get("env"), params.id, body), 201),
  );

  define(api, {
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
      reference: z.string().trim().min(1).max(120).openapi({ example: "EFT-2026-11-0042" }),
    }),
    status: 201,
    replay: "The same `reference` with the same amount and currency; with another amount or " +
      "currency it is refused 409 `reference_conflict`.",
    response: WalletCreditAnswer,
    refusals: {
      reference_conflict: "the reference was credited before with another amount or currency",
    },
  }, async (c, { params, body }) => {
    const credit = await creditWallet(c.get("env"), params.id, body);
    return ok(c, walletCreditView(credit), credit.replayed ? 200 : 201);
  });
}

const DriverOfBusiness = z.object({
  id: z.string().min(1).max(64),
  driver: z.string().min(1).max(64),
});

/** A run driver's token replaced: a phone lost or a token leaked stops at once. */
function driverTokenRoutes(api: Api): void {
  define(
    api,
    {
      method: "post",
      path: "/operator/businesses/{id}/drivers/{driver}/token",
      summary: "Replace a run driver's bearer token; answers the new one once",
      tag,
      security,
      middleware,
      params: DriverOfBusiness,
      description: "The old token is refused from the very next request on (401). The new token " +
        "is shown only in this answer; the service keeps it hashed. Another business's driver is " +
        "not found.",
      status: 201,
      response: DriverRegisteredAnswer,
      refusals: KEY_ALREADY_ROTATED,
    },
    async (c, { params }) =>
      ok(c, await rotateDriverToken(c.get("env"), params.id, params.driver), 201),
  );
}

/**
 * The ports webhook addresses may use besides 443: the whole list, replacing the one before (`[]`
 * allows none). Never a port a request from inside could harm (webhook_ports.ts).
 */
const WebhookPorts = z.array(
  z.number().int().superRefine((port, ctx) => {
    const why = unsafePort(port);
    if (why !== null) ctx.addIssue({ code: "custom", message: `${why}: ${port}` });
  }),
).max(WEBHOOK_PORTS_MAX).openapi({
  description: "Ports besides 443 that webhook and billing endpoint URLs may use, checked when " +
    "an address is saved and at every delivery attempt; the whole list (`[]`: none). Refused: " +
    "ports below 1024 (443 needs no allowing) and the ports of data stores, brokers and control " +
    "planes (22, 25, 2375, 3306, 5432, 6379, 6443, 9200, 11211, 27017...)",
  example: [8443],
});

/** The service's own settings and its manual clock. */
function serviceRoutes(api: Api): void {
  define(api, {
    method: "put",
    path: "/operator/settings",
    summary: "Service settings: price hold, prep and schedule offer leads, dispatch, freshness",
    tag,
    security,
    middleware,
    body: z.object({
      price_hold_minutes: z.number().int().min(1).max(24 * 60),
      prep_offer_lead_minutes: z.number().int().min(0).max(24 * 60),
      webhook_ports: WebhookPorts,
      dispatch_offer_seconds: z.number().int().min(5).max(10 * 60),
      dispatch_window_minutes: z.number().int().min(1).max(24 * 60),
      schedule_offer_lead_minutes: z.number().int().min(0).max(24 * 60),
      position_fresh_seconds: z.number().int().min(5).max(60 * 60),
    }).partial().openapi({
      // One setting changed, to a value a service runs with (the defaults are 30 and 15): a
      // sampled body set every one to its lower bound.
      example: { dispatch_offer_seconds: 45 },
    }),
    response: PlatformSettingsAnswer,
  }, async (c, { body }) => {
    const settings = await ask(c, platformSettingsActor, PLATFORM_TENANT, PLATFORM_SETTINGS_ID, {
      kind: "change",
      changes: stripUndefined({
        ...body,
        webhook_ports: body.webhook_ports && distinct(body.webhook_ports).sort((a, b) => a - b),
      }),
      by: "operator",
    });
    return ok(c, settings);
  });

  define(api, {
    method: "get",
    path: "/operator/settings",
    summary: "Service settings",
    tag,
    security,
    middleware,
    response: PlatformSettingsAnswer,
  }, async (c) =>
    ok(
      c,
      await read(c, platformSettingsActor, PLATFORM_TENANT, PLATFORM_SETTINGS_ID, { kind: "get" }),
    ));

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
    async (c, { body }) => ok(c, clockAdvancedView(await advanceClock(c.get("env"), body.seconds))),
  );

  define(api, {
    method: "get",
    path: "/operator/clock",
    summary: "The service's clock",
    tag,
    security,
    middleware,
    response: ClockAnswer,
  }, (c) => {
    const { clock } = c.get("env");
    return ok(c, { now: new Date(clock.now()).toISOString(), kind: clock.kind });
  });
}

/** Work the service could not finish, kept in sight rather than only logged. */
function stuckWorkRoutes(api: Api): void {
  define(api, {
    method: "get",
    path: "/operator/deferred-work",
    summary: "Bus work that failed past its retries and waits on a durable timer (a webhook " +
      "event, an alert, a charge from a scan), oldest first: `status=waiting` (default) or " +
      "`done`, or `parked`: work refused for good (a run's follow-up a shipment or an account " +
      "will never take), never tried again. Each shows its worker, message subject, tries, " +
      "when it was deferred or parked and the last error, so stuck work is seen rather than " +
      "only logged",
    tag,
    security,
    middleware,
    query: DeferredWorkQuery,
    response: DeferredWorkAnswer,
  }, async (c, { query }) => {
    const rows = await listDeferredWork(c.get("env").db, query);
    return ok(c, { items: rows.map(deferredWorkView) });
  });

  define(api, {
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
  }, async (c, { query }) => {
    const rows = await listParkedChanges(c.get("env").db, query.limit);
    return ok(c, { items: rows.map(parkedChangeView) });
  });
}
