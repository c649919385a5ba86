/**
 * Courier 2.5 and 4.2 (client rows): the courier creates its clients and sets their settlement.
 * Creating a client answers its API key and a first user with a temporary password, once.
 */
import { asClient, clientView, courierClientActor } from "../../actors/courier/courier_client.ts";
import { changeClientSettings, createClient } from "../../src/courier/flows/clients.ts";
import { business } from "../../src/platform/auth/auth.ts";
import { businessCall } from "../../src/platform/auth/caller.ts";
import { clientKeyPrefix, courierPlatform } from "../../src/courier/auth.ts";
import { type Api, ok } from "../../src/http/app.ts";
import { define, z } from "../../src/http/route.ts";
import { Currency, Email } from "../../src/http/schemas.ts";
import { Settlement as SettlementMode } from "./answers/schemas.ts";
import { ClientCreatedAnswer, CourierClientAnswer } from "./answers/clients.ts";
import { stripUndefined } from "../../src/domain/objects.ts";
import { read } from "../../src/http/ask.ts";

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

const ClientParam = z.object({ client: z.string().min(1).max(64) });

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
      email_taken: "a client user of any courier already has this e-mail (it signs in alone); " +
        "the same words whichever client holds it",
      currency_mismatch: "the rate card prices in another currency than the billing currency",
      validation_failed: "the rate card named is not one of the courier's",
    },
  }, async (c, { body }) => {
    const { env, tenant, by } = businessCall(c);
    const office = { courierId: tenant, by };
    // The required fields, typed as such; stripped of what was not sent, the rest are settings.
    const input = {
      ...stripUndefined(body),
      name: body.name,
      code: body.code,
      email: body.email,
      settlement_mode: body.settlement_mode,
      billing_currency: body.billing_currency,
    };
    const created = await createClient(env, office, input, clientKeyPrefix(env.name));
    return ok(c, created, 201);
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
    const { tenant } = businessCall(c);
    const client = asClient(
      await read(c, courierClientActor, tenant, params.client, { kind: "get" }),
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
    const { env, tenant, by } = businessCall(c);
    const office = { courierId: tenant, by };
    const changed = await changeClientSettings(env, office, params.client, stripUndefined(body));
    return ok(c, clientView(changed));
  });
}
