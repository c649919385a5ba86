/** What the money decisions share: the reply of a posting, the checks every command makes. */
import { accept, type Decision, reject } from "../../../src/runtime/actor.ts";
import {
  type Allocation,
  type EntryStatus,
  type LedgerEntry,
  owedMinor,
} from "../../../src/courier/rules/ledger.ts";
import type { SettlementMode } from "../../../src/courier/rules/settlement.ts";
import type { CourierClient } from "../courier_client/state.ts";
import type { LedgerEvent, LedgerReply } from "./messages.ts";
import { accountBalances, balancesIn } from "./balances.ts";

export type S = CourierClient | null;

export type LedgerDecision = Decision<S, LedgerEvent, LedgerReply>;

export function posted(
  events: LedgerEvent[],
  entry: LedgerEntry,
  allocations: readonly Allocation[],
  requested?: readonly { readonly invoice_id: string; readonly amount_minor: number }[],
) {
  return accept<S, LedgerEvent, LedgerReply>(events, (next) => ({
    entry,
    allocations,
    balances: accountBalances(next!),
    ...(requested ? { requested } : {}),
  }));
}

export function badAmount(amount: number): boolean {
  return !Number.isSafeInteger(amount) || amount <= 0;
}

export function badText(text: string, max: number): boolean {
  return text.trim().length === 0 || text.length > max;
}

export function currencyMismatch(state: CourierClient, currency: string) {
  return reject(
    "currency_mismatch",
    `currency: the account bills in ${state.settings.billing_currency}: ${currency}`,
  );
}

/**
 * Money received in `currency` (a payment, a top-up) goes to the billing currency, or to another
 * currency while the account owes in it: a note on an entry from before the billing currency
 * changed is settled in its own currency (courier 2.6 rules 4, 5), never converted one-to-one.
 */
export function currencyRefusal(state: CourierClient, currency: string) {
  const billing = state.settings.billing_currency;
  if (currency === billing || owedMinor(balancesIn(state, currency)) > 0) return null;
  return reject(
    "currency_mismatch",
    `currency: the account bills in ${billing} and owes nothing in another currency: ${currency}`,
  );
}

export function statusFor(mode: SettlementMode): EntryStatus {
  return mode === "external" ? "external" : "posted";
}

/** spec: courier 4.2: payments and invoices are for credit accounts; external posts none. */
export function receivableRefusal(state: CourierClient, what: string) {
  const mode = state.settings.settlement_mode;
  if (mode === "external") {
    return reject(
      "external_settlement",
      `the courier settles this client in its own accounting system: no ${what} here`,
    );
  }
  if (mode === "prepaid") {
    return reject(
      "not_credit",
      `${what} is for credit accounts; a prepaid account is topped up: settles ${mode}`,
    );
  }
  return null;
}
