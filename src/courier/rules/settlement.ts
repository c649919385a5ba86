/**
 * Settlement modes (courier 2.5, 4.2): what a client's account can cover and whether a charge
 * fits. Pure: the client account actor calls it inside its serialized turn, so the check and the
 * charge can never be split by another booking (spec 4.1: "checked under a lock").
 */
import { formatMinor } from "../../domain/money.ts";

export const SETTLEMENT_MODES = ["prepaid", "credit", "external"] as const;
export type SettlementMode = typeof SETTLEMENT_MODES[number];

export interface AccountMoney {
  /** Prepaid funds not yet used (prepaid mode). */
  readonly prepaid_minor: number;
  /** Charged and not yet paid (credit mode): the credit in use. */
  readonly receivable_minor: number;
  /**
   * Duties paid on the client's behalf and not yet recovered (credit mode): kept apart from
   * revenue (courier 2.6), yet owed like a charge, so credit in use too.
   */
  readonly recoverable_minor?: number;
}

export interface SettlementTerms {
  readonly settlement_mode: SettlementMode;
  readonly credit_limit_minor: number;
  readonly billing_currency: string;
}

export const NO_MONEY: AccountMoney = { prepaid_minor: 0, receivable_minor: 0 };

/**
 * What the account can cover now, never below 0 (a lowered credit limit can leave more in use
 * than it allows: the account then covers nothing); null for external settlement (no receivable
 * is posted). spec: courier 2.2: `available`, the amount the client's account can cover.
 */
export function available(terms: SettlementTerms, money: AccountMoney): number | null {
  switch (terms.settlement_mode) {
    case "prepaid":
      return Math.max(0, money.prepaid_minor);
    case "credit":
      return Math.max(0, terms.credit_limit_minor - owedOnCredit(money));
    case "external":
      return null;
  }
}

/**
 * The credit in use: what is charged and unpaid, recoverable duties included; credit on account
 * (negative) uses none.
 */
export function creditUsed(money: AccountMoney): number {
  return Math.max(0, owedOnCredit(money));
}

/**
 * What a credit account owes against its limit: charges less credit on account, and duties not
 * yet recovered. Duties credited back after they were paid (negative) are owed to the client and
 * offset its charges, as the account's credit on account offsets its next invoice: the credit in
 * use is what the client owes in all, never a charge it has in effect paid.
 */
function owedOnCredit(money: AccountMoney): number {
  return money.receivable_minor + (money.recoverable_minor ?? 0);
}

export type ChargeCheck =
  | { readonly ok: true }
  | { readonly ok: false; readonly code: string; readonly message: string };

/** spec: courier 4.2 settlement modes: prepaid within balance, credit within limit. */
export function checkCharge(
  terms: SettlementTerms,
  money: AccountMoney,
  amountMinor: number,
  currency: string,
): ChargeCheck {
  if (currency !== terms.billing_currency) {
    return {
      ok: false,
      code: "currency_mismatch",
      message: `the account bills in ${terms.billing_currency}: the price is in ${currency}`,
    };
  }
  const can = available(terms, money);
  if (can === null || amountMinor <= can) return { ok: true };
  const what = terms.settlement_mode === "prepaid"
    ? "prepaid balance too low"
    : "credit limit exceeded";
  return {
    ok: false,
    code: "insufficient_balance",
    message: `${what}: available ${formatMinor(can, currency)} ${currency}, needed ${
      formatMinor(amountMinor, currency)
    } ${currency}`,
  };
}

/** The account after a charge: prepaid spends funds, credit grows the receivable, external nothing. */
export function applyCharge(
  mode: SettlementMode,
  money: AccountMoney,
  amountMinor: number,
): AccountMoney {
  switch (mode) {
    case "prepaid":
      return { ...money, prepaid_minor: money.prepaid_minor - amountMinor };
    case "credit":
      return { ...money, receivable_minor: money.receivable_minor + amountMinor };
    case "external":
      return money;
  }
}
