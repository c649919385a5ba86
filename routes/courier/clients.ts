/**
 * Courier 2.5 and 4.2 (client rows): the courier creates its clients and sets their settlement.
 * Creating a client answers its API key and a first user with a temporary password, once.
 */
import {
  asClient,
  type ClientSettings,
  clientView,
  courierClientActor,
} from "../../actors/courier/courier_client.ts";
import { asRateCard, rateCardActor } from "../../actors/courier/rate_card.ts";
import { issueCredential } from "../../src/domain/credentials.ts";
import { toMinor } from "../../src/domain/money.ts";
import { hashPassword, temporaryPassword } from "../../src/domain/secrets.ts";
import { business } from "../../src/platform/auth/auth.ts";
import { businessPrincipalOf, principalName } from "../../src/platform/auth/principal.ts";
import { clientKeyPrefix, courierPlatform } from "../../src/courier/auth.ts";
import { type Api, ok } from "../../src/http/app.ts";
import type { Context } from "hono";
import type { AppEnv } from "../../src/http/context.ts";
import { ApiError, fromRejection, validationFailed } from "../../src/http/errors.ts";
import { define, z } from "../../src/http/route.ts";
import { Currency, Email, Money, UtcInstant } from "../../src/http/schemas.ts";
import { Settlement as SettlementMode } from "./answers/schemas.ts";
import { newId } from "../../src/runtime/ids.ts";
import { stripUndefined } from "../../src/domain/objects.ts";
import { ask, read } from "../../src/http/ask.ts";

const tag = "Courier clients";
const security = "business" as const;
const Amount = z.union([z.number().nonnegative(), z.string().regex(/^\d+(\.\d+)?$/)]);

const Settlement = z.object({
  settlement_mode: SettlementMode,
  credit_limit: Amount,
  payment_days: z.number().int().min(0).max(365).nullable(),
  billing_currency: Currency,
  external_system: z.string().trim().min(1, "names the system; null clears it").max(120).nullable(),
  unique_external_reference: z.boolean(),
  rate_card_id: z.string().min(1).max(64).nullable(),
});

const CreateClient = Settlement.partial().extend({
  name: z.string().trim().min(1).max(200),
  code: z.string().regex(
    /^[A-Za-z0-9._-]{1,40}$/,
    "1 to 40 letters, digits, dot, dash, underscore",
  ),
  email: Email,
  settlement_mode: Settlement.shape.settlement_mode,
  billing_currency: Settlement.shape.billing_currency,
}).openapi("CreateCourierClient");

type SettlementInput = z.infer<typeof Settlement>;

const ClientParam = z.object({ client: z.string().min(1).max(64) });

/** Turns the API's decimal credit limit into minor units, or names the bad field. */
function settingsFrom(
  body: { [K in keyof SettlementInput]?: SettlementInput[K] | undefined },
  currency: string,
): Partial<ClientSettings> {
  const { credit_limit, ...rest } = stripUndefined(body);
  if (credit_limit === undefined) return rest;
  const minor = toMinor(credit_limit, currency);
  if (!minor.ok) throw validationFailed([{ path: "credit_limit", message: minor.message }]);
  return { ...rest, credit_limit_minor: minor.minor };
}

/** Attempts of a PATCH whose client's currency or rate card changed between its read and write. */
const SETTINGS_ATTEMPTS = 3;

/**
 * The currency of the courier's rate card `id` (fixed by its version 1), or null when the courier
 * has no such card. The read is scoped to the courier, so another courier's card is missing too.
 */
async function rateCardCurrency(
  c: Context<AppEnv>,
  courier: string,
  id: string,
): Promise<string | null> {
  const r = await c.get("env").runtime.read(rateCardActor, courier, id, { kind: "get" });
  if (r.ok) return asRateCard(r.reply).currency;
  if (r.code === "not_found") return null;
  throw fromRejection(r);
}

/**
 * spec: courier 2.5, 4.2: a client is priced on its rate card and billed in its billing currency;
 * on a card in another currency every option shown would be refused at booking. `named` is the
 * card the request names (it must be one of the courier's); `result` the settings it leads to.
 */
async function checkRateCard(
  c: Context<AppEnv>,
  courier: string,
  named: string | null | undefined,
  result: Pick<ClientSettings, "billing_currency" | "rate_card_id">,
): Promise<void> {
  if (result.rate_card_id === null) return;
  const currency = await rateCardCurrency(c, courier, result.rate_card_id);
  if (currency === null) {
    // A card kept from before this check is not the request's doing: only a named one is refused.
    if (named === undefined || named === null) return;
    throw validationFailed([{ path: "rate_card_id", message: `no such rate card: ${named}` }]);
  }
  if (currency !== result.billing_currency) {
    throw new ApiError(
      "currency_mismatch",
      `rate card ${result.rate_card_id} prices in ${currency}; the client bills in ${result.billing_currency}`,
      { rate_card_currency: currency, billing_currency: result.billing_currency },
    );
  }
}

// ---- Answers (documentation: tests/http/response_schemas_test.ts holds answers to them).

/** spec: courier 2.5: a client and its settlement settings (clientView). */
export const CourierClientAnswer = z.object({
  id: z.string(),
  name: z.string(),
  code: z.string(),
  email: z.string().openapi({ description: "The first client user's e-mail" }),
  settlement_mode: SettlementMode,
  credit_limit: Money.openapi({ description: "In the billing currency; 0 unless on credit" }),
  credit_limit_minor: z.number().int().openapi({
    description: "credit_limit in minor units of the billing currency",
  }),
  payment_days: z.number().int().nullable(),
  billing_currency: Currency,
  external_system: z.string().nullable(),
  unique_external_reference: z.boolean(),
  rate_card_id: z.string().nullable().openapi({
    description: "The card its prices come from; null: none yet, and prices answer " +
      "`no_rate_card` until the courier assigns one",
  }),
  webhook_url: z.string().nullable(),
  created_at: UtcInstant,
}).openapi("CourierClient");

/** A new client's credentials, shown this once (stored hashed). */
export const ClientCreatedAnswer = z.object({
  id: z.string(),
  api_key: z.string().openapi({
    description: "The client's API key (`X-Client-API-Key`), shown only in this answer",
  }),
  user: z.object({
    email: z.string(),
    password: z.string().openapi({
      description: "A temporary password, shown only in this answer; changed at first sign-in",
    }),
  }),
}).openapi("CourierClientCreated");

export function courierClientRoutes(api: Api): void {
  define(api, {
    method: "post",
    path: "/business/courier/clients",
    summary: "Create a client; answers its API key and a first user's temporary password once",
    tag,
    security,
    middleware: [business({ scope: "billing:administer" }), courierPlatform],
    body: CreateClient,
    status: 201,
    response: ClientCreatedAnswer,
    refusals: {
      already_exists: "another of the courier's clients has this code",
      email_taken: "a client user already has this e-mail",
      currency_mismatch: "the rate card prices in another currency than the billing currency",
      validation_failed: "the rate card named is not one of the courier's",
    },
  }, async (c, { body }) => {
    const p = businessPrincipalOf(c);
    const env = c.get("env");
    const courier = p.business.id;
    if (await env.runtime.lookup("client_code", `${courier}:${body.code}`)) {
      throw new ApiError("already_exists", `a client already has this code: ${body.code}`);
    }
    if (await env.runtime.lookup("client_email", body.email)) {
      throw new ApiError("email_taken", `a client user already has this e-mail: ${body.email}`);
    }
    const settings = settingsFrom(body, body.billing_currency);
    await checkRateCard(c, courier, body.rate_card_id, {
      billing_currency: body.billing_currency,
      rate_card_id: body.rate_card_id ?? null,
    });
    const id = newId("cli");
    const key = await issueCredential(clientKeyPrefix(env.name), env.clock.now());
    const password = temporaryPassword();
    await ask(c, courierClientActor, courier, id, {
      kind: "create",
      client: {
        id,
        business_id: courier,
        name: body.name,
        code: body.code,
        email: body.email,
        settings: {
          settlement_mode: body.settlement_mode,
          credit_limit_minor: 0,
          payment_days: null,
          billing_currency: body.billing_currency,
          external_system: null,
          unique_external_reference: false,
          rate_card_id: null,
          ...settings,
        },
        api_key: key.record,
        users: [{
          id: newId("cus"),
          email: body.email,
          name: body.name,
          role: "client_admin",
          password_hash: await hashPassword(password),
          must_change_password: true,
          session_epoch: 0,
        }],
      },
      by: principalName(p),
    });
    return ok(c, { id, api_key: key.secret, user: { email: body.email, password } }, 201);
  });

  define(api, {
    method: "get",
    path: "/business/courier/clients/{client}",
    summary: "A client and its settlement settings",
    tag,
    security,
    middleware: [business({ scope: "billing:view-own" }), courierPlatform],
    params: ClientParam,
    response: CourierClientAnswer,
  }, async (c, { params }) => {
    const courier = businessPrincipalOf(c).business.id;
    const client = asClient(
      await read(c, courierClientActor, courier, params.client, { kind: "get" }),
    );
    return ok(c, clientView(client));
  });

  define(api, {
    method: "patch",
    path: "/business/courier/clients/{client}",
    summary: "Change a client's settlement settings (courier 2.5)",
    tag,
    security,
    middleware: [business({ scope: "billing:administer" }), courierPlatform],
    params: ClientParam,
    body: Settlement.partial(),
    response: CourierClientAnswer,
    refusals: {
      currency_mismatch: "the rate card prices in another currency than the billing currency",
      validation_failed: "the rate card named is not one of the courier's; a new billing " +
        "currency without the credit limit in it",
      balance_not_settled: "the billing currency or settlement mode changes before the " +
        "balances are settled, invoices paid and conversions resolved; external before every " +
        "entry is invoiced",
      settings_changed: "the billing currency or rate card kept changing while this was checked",
    },
  }, async (c, { params, body }) => {
    const p = businessPrincipalOf(c);
    const courier = p.business.id;
    const runtime = c.get("env").runtime;
    for (let attempt = 1;; attempt++) {
      const current = asClient(
        await read(c, courierClientActor, courier, params.client, { kind: "get" }),
      );
      const before = current.settings;
      // A credit limit given with a new billing currency is an amount in that currency.
      const changes = settingsFrom(body, body.billing_currency ?? before.billing_currency);
      if (body.billing_currency !== undefined || body.rate_card_id !== undefined) {
        await checkRateCard(c, courier, body.rate_card_id, { ...before, ...changes });
      }
      const r = await runtime.ask(courierClientActor, courier, params.client, {
        kind: "change_settings",
        changes,
        // The checks above hold for these; the client refuses the change if they moved since.
        basis: { billing_currency: before.billing_currency, rate_card_id: before.rate_card_id },
        by: principalName(p),
      });
      if (r.ok) return ok(c, clientView(asClient(r.reply)));
      if (r.code !== "settings_changed" || attempt >= SETTINGS_ATTEMPTS) throw fromRejection(r);
    }
  });
}
