/**
 * Business wallets (CONTRACT operator wallet credit; Business API 4.3, 8, appendix 2): credits are
 * booked once per reference, for good (the key is kept permanently, not for the replay window).
 */
import {
  walletActor,
  type WalletEvent,
  type WalletReply,
  type WalletState,
  type WalletTransaction,
} from "../../../actors/platform/wallet.ts";
import { asBusiness, businessActor, type Settings } from "../../../actors/platform/business/mod.ts";
import type { Deps } from "../../environment.ts";
import { formatMinor, toMinor } from "../../domain/money.ts";
import { SANDBOX_WALLET_OPENING_MINOR } from "../../limits.ts";
import { invalidFields, orRefuse, refuse, Refused } from "../../runtime/actor.ts";
import type { ActorRuntime, AskResult } from "../../runtime/runtime.ts";

export interface WalletCreditInput {
  /** A decimal in `currency`, as sent (a JSON number or a string). */
  readonly amount: number | string;
  readonly currency: string;
  readonly reference: string;
}

export interface WalletCredit {
  /** The transaction the reference booked (the first time), null if its reply kept none. */
  readonly transaction_id: string | null;
  readonly reference: string;
  readonly amount_minor: number;
  readonly currency: string;
  /** The wallet's balance in `currency` after the credit. */
  readonly balance_minor: number;
  /** The reference was credited before: nothing was credited again. */
  readonly replayed: boolean;
}

/**
 * The operator's manual credit of a business's wallet. The same reference with the same amount
 * and currency answers the first credit (`replayed`); with another, 409 reference_conflict.
 */
export async function creditWallet(
  deps: Pick<Deps, "runtime">,
  businessId: string,
  input: WalletCreditInput,
): Promise<WalletCredit> {
  const minor = toMinor(input.amount, input.currency);
  if (!minor.ok || minor.minor <= 0) {
    throw new Refused(invalidFields([{
      path: "amount",
      message: minor.ok ? `must be positive: ${input.amount}` : minor.message,
    }]));
  }
  orRefuse(await deps.runtime.read(businessActor, businessId, businessId, { kind: "get" }));
  const r = await credit(deps.runtime, businessId, minor.minor, input.currency, input.reference);
  if (!r.ok) throw new Refused(r);
  const replayed = r.replayed;
  const t = r.reply.transaction;
  if (replayed && (t?.amount_minor !== minor.minor || t?.currency !== input.currency)) {
    // spec: business appendix 2: same reference, different details.
    refuse("reference_conflict", `reference already used for ${mention(t)}: ${input.reference}`);
  }
  return {
    transaction_id: t?.id ?? null,
    reference: input.reference,
    amount_minor: minor.minor,
    currency: input.currency,
    balance_minor: r.reply.state.balances[input.currency] ?? 0,
    replayed,
  };
}

/** spec: business 8: sandbox wallets open with 100,000 BWP and 100,000 ZAR. */
export async function openSandboxWallets(runtime: ActorRuntime, businessId: string): Promise<void> {
  for (const [currency, minor] of Object.entries(SANDBOX_WALLET_OPENING_MINOR)) {
    orRefuse(await credit(runtime, businessId, minor, currency, `sandbox-opening-${currency}`));
  }
}

/** An operator credit, booked once per reference however late it is sent again. */
function credit(
  runtime: ActorRuntime,
  businessId: string,
  minor: number,
  currency: string,
  reference: string,
): Promise<AskResult<WalletReply>> {
  return runtime.ask(walletActor, businessId, businessId, {
    kind: "credit",
    amount_minor: minor,
    currency,
    reference,
    by: "operator",
  }, { idempotencyKey: `credit:${reference}`, permanent: true });
}

function mention(t: WalletTransaction | null): string {
  return `${t ? formatMinor(t.amount_minor, t.currency) : "?"} ${t?.currency}`;
}

/** Transactions in one page of GET /business/wallet/transactions. */
export const WALLET_TRANSACTIONS_PAGE_MAX = 200;

/**
 * spec: business 4.3 wallet/transactions: debits, credits and top-ups after `after` (the wallet's
 * event seq), oldest first, from the wallet's own log: every transaction it ever booked.
 */
export async function walletTransactions(
  deps: Pick<Deps, "runtime">,
  businessId: string,
  after: number,
): Promise<{ readonly seq: number; readonly transaction: WalletTransaction }[]> {
  const page: { seq: number; transaction: WalletTransaction }[] = [];
  for await (const e of deps.runtime.events(walletActor, businessId, after + 1)) {
    const event = e.event as WalletEvent;
    if (event.kind !== "wallet_transaction") continue;
    page.push({ seq: e.seq, transaction: event.transaction });
    if (page.length >= WALLET_TRANSACTIONS_PAGE_MAX) break;
  }
  return page;
}

/** GET /business/wallet: the balances and how the business pays (its billing settings). */
export async function walletOf(
  deps: Pick<Deps, "runtime">,
  businessId: string,
): Promise<{ readonly state: WalletState; readonly settings: Settings }> {
  const [w, account] = await Promise.all([
    deps.runtime.read(walletActor, businessId, businessId, { kind: "get" }),
    deps.runtime.read(businessActor, businessId, businessId, { kind: "get" }),
  ]);
  return { state: orRefuse(w).state, settings: asBusiness(orRefuse(account)).settings };
}
