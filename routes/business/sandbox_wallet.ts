/**
 * Business API 4.4 PUT /business/sandbox/wallet: the sandbox test wallet, set to a balance
 * exactly (on live, 404 not_found: it is on the sandbox base).
 */
import { setSandboxWallet } from "../../src/business/flows/sandbox_wallet.ts";
import { type Api, ok } from "../../src/http/app.ts";
import { define, z } from "../../src/http/route.ts";
import { Currency } from "../../src/http/schemas.ts";
import { business, portalAdmin } from "../../src/platform/auth/auth.ts";
import { businessCall } from "../../src/platform/auth/caller.ts";
import { WalletAnswer, walletView } from "./answers/account.ts";

export function sandboxWalletRoutes(api: Api): void {
  define(api, {
    method: "put",
    path: "/business/sandbox/wallet",
    summary: "Set a sandbox test wallet's balance in one currency",
    description: "The balance is a decimal in the currency (one the service's zones price in), " +
      "set exactly; the difference is booked as a credit or a debit by `sandbox` (reference " +
      "`sandbox:set_balance`) in GET /business/wallet/transactions. Answers the wallet as GET " +
      "/business/wallet does.",
    tag: "Sandbox",
    security: "business",
    middleware: [business(), portalAdmin],
    body: z.object({
      currency: Currency,
      balance: z.union([z.number(), z.string()]).openapi({
        description: "Not negative; as many decimals as the currency has",
        example: 2500,
      }),
    }),
    response: WalletAnswer,
    refusals: { not_found: "called on live: the test wallet is on the sandbox base" },
  }, async (c, { body }) => {
    const { env, tenant } = businessCall(c);
    const w = await setSandboxWallet(env, tenant, body);
    return ok(c, walletView(w.state, w.settings));
  });
}
