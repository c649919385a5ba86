/**
 * Courier 4.2, client billing actions (billing:administer). Top-ups credit a prepaid account;
 * the same reference credits once.
 */
import { asClient, courierClientActor } from "../../actors/courier_client.ts";
import { toMinor } from "../../src/domain/money.ts";
import { available } from "../../src/domain/settlement.ts";
import {
  business,
  businessPrincipalOf,
  courierPlatform,
  principalName,
} from "../../src/http/auth.ts";
import { type Api, ok } from "../../src/http/app.ts";
import { ApiError, fromRejection, validationFailed } from "../../src/http/errors.ts";
import { define, z } from "../../src/http/route.ts";
import { decimal } from "./booking_flow.ts";

const tag = "Client billing";

export function billingRoutes(api: Api): void {
  define(api, {
    method: "post",
    path: "/business/courier/clients/{client}/billing/top-up",
    summary: "Credit a prepaid client's balance; the same reference credits once",
    tag,
    security: "business",
    middleware: [business({ scope: "billing:administer" }), courierPlatform],
    params: z.object({ client: z.string().min(1).max(64) }),
    body: z.object({
      amount: z.union([z.number().positive(), z.string().regex(/^\d+(\.\d+)?$/)]),
      currency: z.string().regex(/^[A-Z]{3}$/, "three-letter ISO 4217 code, upper case"),
      reference: z.string().trim().min(1).max(120),
    }),
    status: 201,
  }, async (c, { params, body }) => {
    const p = businessPrincipalOf(c);
    const amount = toMinor(body.amount, body.currency);
    if (!amount.ok || amount.minor <= 0) {
      throw validationFailed([{
        path: "amount",
        message: amount.ok ? "must be positive" : amount.message,
      }]);
    }
    const r = await c.get("env").runtime.ask(courierClientActor, p.business.id, params.client, {
      kind: "top_up",
      amount_minor: amount.minor,
      currency: body.currency,
      reference: body.reference,
      by: principalName(p),
    }, { idempotencyKey: `top-up:${body.reference}` });
    if (!r.ok) throw fromRejection(r);
    const account = asClient(r.reply);
    if (!account) throw new ApiError("not_found", "client not found");
    const cur = account.settings.billing_currency;
    return ok(c, {
      reference: body.reference,
      replayed: r.replayed,
      balance: decimal(account.money.prepaid_minor, cur),
      available: decimal(available(account.settings, account.money) ?? 0, cur),
      currency: cur,
    }, r.replayed ? 200 : 201);
  });
}
