/**
 * Courier 2.5 and 4.2 (client rows): the courier creates its clients and sets their settlement.
 * Creating a client answers its API key and a first user with a temporary password, once.
 */
import {
  asClient,
  type ClientSettings,
  clientView,
  courierClientActor,
} from "../../actors/courier_client.ts";
import { issueCredential } from "../../src/domain/credentials.ts";
import { CURRENCY_PATTERN, toMinor } from "../../src/domain/money.ts";
import { hashPassword, temporaryPassword } from "../../src/domain/secrets.ts";
import {
  business,
  businessPrincipalOf,
  CLIENT_KEY_PREFIX,
  courierPlatform,
  principalName,
} from "../../src/http/auth.ts";
import { type Api, ok } from "../../src/http/app.ts";
import { ApiError, validationFailed } from "../../src/http/errors.ts";
import { define, z } from "../../src/http/route.ts";
import { newId } from "../../src/runtime/ids.ts";
import { stripUndefined } from "../operator.ts";
import { ask, read } from "../ask.ts";

const tag = "Courier clients";
const security = "business" as const;
const Amount = z.union([z.number().nonnegative(), z.string().regex(/^\d+(\.\d+)?$/)]);

const Settlement = z.object({
  settlement_mode: z.enum(["prepaid", "credit", "external"]),
  credit_limit: Amount,
  payment_days: z.number().int().min(0).max(365).nullable(),
  billing_currency: z.string().regex(CURRENCY_PATTERN, "three-letter ISO 4217 code, upper case"),
  external_system: z.string().trim().max(120).nullable(),
  unique_external_reference: z.boolean(),
  rate_card_id: z.string().min(1).max(64).nullable(),
});

const CreateClient = Settlement.partial().extend({
  name: z.string().trim().min(1).max(200),
  code: z.string().regex(
    /^[A-Za-z0-9._-]{1,40}$/,
    "1 to 40 letters, digits, dot, dash, underscore",
  ),
  email: z.email().transform((e) => e.toLowerCase()),
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
    const id = newId("cli");
    const key = await issueCredential(CLIENT_KEY_PREFIX, env.clock.now());
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
  }, async (c, { params, body }) => {
    const p = businessPrincipalOf(c);
    const courier = p.business.id;
    const current = asClient(
      await read(c, courierClientActor, courier, params.client, { kind: "get" }),
    );
    const currency = body.billing_currency ?? current.settings.billing_currency;
    const client = asClient(
      await ask(c, courierClientActor, courier, params.client, {
        kind: "change_settings",
        changes: settingsFrom(body, currency),
        by: principalName(p),
      }),
    );
    return ok(c, clientView(client));
  });
}
