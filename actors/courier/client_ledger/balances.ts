/**
 * An account's balances (courier 2.6, 4.2): in its billing currency and in others, reckoned
 * apart and never converted (2.6 rule 4), what a billing reply carries, and an effect applied.
 */
import {
  applyEffect,
  type Balances,
  type Effect,
  otherBalancesOf,
  owedMinor,
  withOtherEffect,
} from "../../../src/courier/rules/ledger.ts";
import { AMOUNT_MINOR_MAX } from "../../../src/domain/money.ts";
import { available } from "../../../src/courier/rules/settlement.ts";
import type { CourierClient } from "../courier_client/state.ts";
import type { AccountBalances, OtherCurrencyBalances } from "./messages.ts";

/** The account's balances in its billing currency. */
export function balancesOf(c: CourierClient): Balances {
  return {
    prepaid_minor: c.money.prepaid_minor,
    receivable_minor: c.money.receivable_minor,
    recoverable_minor: c.ledger.recoverable_minor,
  };
}

/** The account's balances in `currency`, the billing currency or another one. */
export function balancesIn(c: CourierClient, currency: string): Balances {
  return currency === c.settings.billing_currency
    ? balancesOf(c)
    : otherBalancesOf(c.ledger, currency);
}

/**
 * The currencies besides the billing currency in which the account holds a balance or credit on
 * account, in code order; each is reckoned on its own, never converted (courier 2.6 rule 4).
 */
export function otherCurrencies(c: CourierClient): OtherCurrencyBalances[] {
  const billing = c.settings.billing_currency;
  const codes = new Set([
    ...Object.keys(c.ledger.other_currencies ?? {}),
    ...Object.keys(c.ledger.unallocated),
  ]);
  codes.delete(billing);
  return [...codes].sort().map((currency) => {
    const b = otherBalancesOf(c.ledger, currency);
    return {
      currency,
      ...b,
      unallocated_minor: c.ledger.unallocated[currency] ?? 0,
      owed_minor: owedMinor(b),
    };
  });
}

/**
 * The first of an account's balances past AMOUNT_MINOR_MAX (the most an answer states exactly),
 * or null. Each amount is bounded when it is read; their sums are checked here, so that a command
 * that would take a balance there is refused whole, never kept rounded (courier 2.2, 9.4).
 */
export function balanceOutOfRange(c: CourierClient): string | null {
  const b = balancesOf(c);
  const named: [string, number][] = [
    ["the prepaid balance", b.prepaid_minor],
    ["the receivable", b.receivable_minor],
    ["the recoverable duties", b.recoverable_minor],
    ["what the client owes", owedMinor(b)],
    ...Object.entries(c.ledger.other_currencies ?? {}).flatMap(([cur, o]): [string, number][] => [
      [`the prepaid balance in ${cur}`, o.prepaid_minor],
      [`the receivable in ${cur}`, o.receivable_minor],
      [`the recoverable duties in ${cur}`, o.recoverable_minor],
      [`what the client owes in ${cur}`, owedMinor(o)],
    ]),
    ...Object.entries(c.ledger.unallocated).map(([cur, v]): [string, number] => [
      `the credit on account in ${cur}`,
      v,
    ]),
    ...Object.entries(c.ledger.periods).map(([key, p]): [string, number] => [
      `the uninvoiced total of ${key.replace("|", " in ")}`,
      p.uninvoiced_minor,
    ]),
  ];
  const over = named.find(([, v]) => !Number.isSafeInteger(v) || Math.abs(v) > AMOUNT_MINOR_MAX);
  return over ? over[0] : null;
}

export function accountBalances(c: CourierClient): AccountBalances {
  const s = c.settings;
  const b = balancesOf(c);
  return {
    settlement_mode: s.settlement_mode,
    currency: s.billing_currency,
    ...b,
    unallocated_minor: c.ledger.unallocated[s.billing_currency] ?? 0,
    owed_minor: owedMinor(b),
    credit_limit_minor: s.credit_limit_minor,
    available_minor: available(s, b),
    other_currencies: otherCurrencies(c),
  };
}

/** The account with `e` applied to its balances in `currency`. */
export function withEffect(state: CourierClient, currency: string, e: Effect): CourierClient {
  if (currency !== state.settings.billing_currency) {
    return { ...state, ledger: withOtherEffect(state.ledger, currency, e) };
  }
  const b = applyEffect(balancesOf(state), e);
  return {
    ...state,
    money: { prepaid_minor: b.prepaid_minor, receivable_minor: b.receivable_minor },
    ledger: { ...state.ledger, recoverable_minor: b.recoverable_minor },
  };
}

/**
 * Whether the account is in use: its billing currency and settlement mode may not change then. A
 * balance in another currency counts too: the mode settles it as it settles the billing one.
 */
export function hasBalances(c: CourierClient): boolean {
  const b = balancesOf(c);
  return b.prepaid_minor !== 0 || b.receivable_minor !== 0 || b.recoverable_minor !== 0 ||
    c.ledger.cod.length > 0 || Object.keys(c.ledger.other_currencies ?? {}).length > 0;
}
