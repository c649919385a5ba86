/**
 * The sandbox test wallet (Business API 4.4 PUT /business/sandbox/wallet): sets one currency's
 * balance exactly. The wallet actor books the difference as a credit or a debit, so the ledger
 * (GET /business/wallet/transactions) explains the balance, and bookings see it at once.
 */
import { walletActor } from "../../../actors/platform/wallet.ts";
import { toMinor } from "../../domain/money.ts";
import type { Deps } from "../../environment.ts";
import { invalidFields, orRefuse, Refused } from "../../runtime/actor.ts";
import { SANDBOX_WALLET_OPENING_MINOR } from "../../limits.ts";
import { newId } from "../../runtime/ids.ts";
import {
  refuseUnlessSandbox,
  SANDBOX_TOP_UP_BELOW_MINOR,
  sandboxTopUpMinor,
} from "../rules/sandbox.ts";
import { walletOf } from "../../platform/flows/wallet.ts";
import { catalogueOf } from "./fares.ts";
import { lowBalanceWatchOf } from "./low_balance.ts";

export interface SandboxWalletInput {
  readonly currency: string;
  /** A decimal in `currency`, as sent (a JSON number or a string). */
  readonly balance: number | string;
}

/** Sets the business's `currency` balance to `balance`; answers the wallet after. */
export async function setSandboxWallet(
  deps: Pick<Deps, "name" | "runtime" | "requestId">,
  businessId: string,
  input: SandboxWalletInput,
): Promise<Awaited<ReturnType<typeof walletOf>>> {
  refuseUnlessSandbox(deps.name, "PUT /business/sandbox/wallet");
  const { currency } = input;
  // A currency the platform knows is one its zones price in (the trips' wallets).
  const known = [...new Set((await catalogueOf(deps)).zones.map((z) => z.currency))].sort();
  if (!known.includes(currency)) {
    throw new Refused(invalidFields([{
      path: "currency",
      message: `not a currency of the service's zones (${known.join(", ")}): ${currency}`,
    }]));
  }
  const minor = toMinor(input.balance, currency);
  if (!minor.ok || minor.minor < 0) {
    throw new Refused(invalidFields([{
      path: "balance",
      message: minor.ok ? `must not be negative: ${input.balance}` : minor.message,
    }]));
  }
  orRefuse(
    await deps.runtime.ask(walletActor, businessId, businessId, {
      kind: "set_balance",
      balance_minor: minor.minor,
      currency,
      reference: "sandbox:set_balance",
      by: "sandbox",
      // spec: business 6 wallet.low_balance: a balance set lower is a debit like any other.
      low_balance: await lowBalanceWatchOf(deps.runtime, businessId, currency),
    }, { requestId: deps.requestId }),
  );
  return await walletOf(deps, businessId);
}

/**
 * spec: business 8: each sandbox wallet below 10,000 back up to 100,000 when credentials are
 * created again (a twin's POST /business/sandbox/credentials, a sign-up verified again). The
 * wallet decides it on the balance it holds then, so two calls at once top it up once.
 */
export async function topUpSandboxWallets(
  deps: Pick<Deps, "runtime">,
  businessId: string,
): Promise<void> {
  const wallet = orRefuse(
    await deps.runtime.read(walletActor, businessId, businessId, { kind: "get" }),
  );
  const reference = newId("sandbox-top-up");
  for (const [currency, opening] of Object.entries(SANDBOX_WALLET_OPENING_MINOR)) {
    if (sandboxTopUpMinor(currency, wallet.state.balances[currency] ?? 0) === 0) continue;
    orRefuse(
      await deps.runtime.ask(walletActor, businessId, businessId, {
        kind: "set_balance",
        balance_minor: opening,
        below_minor: SANDBOX_TOP_UP_BELOW_MINOR,
        currency,
        reference: `${reference}-${currency}`,
        by: "sandbox",
        low_balance: null,
      }),
    );
  }
}
