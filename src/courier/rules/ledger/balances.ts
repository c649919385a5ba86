/** An account's balances in one currency (courier 2.6, 4.2) and the effect of an entry on them. */
import type { SettlementMode } from "../settlement.ts";

/**
 * The account's three balances in one currency (minor units): the billing currency's are kept with
 * the account's money, another currency's in `LedgerBook.other_currencies`.
 */
export interface Balances {
  /** Prepaid funds not yet used; negative when later charges went beyond them. */
  readonly prepaid_minor: number;
  /** Charged and not yet paid (credit mode): the credit in use; negative is credit on account. */
  readonly receivable_minor: number;
  /** Duties paid on the client's behalf and not yet recovered (credit mode). */
  readonly recoverable_minor: number;
}

/** What one posted entry changes; `-prepaid + receivable + recoverable` is its amount. */
export type Effect = Balances;

export const NO_EFFECT: Effect = { prepaid_minor: 0, receivable_minor: 0, recoverable_minor: 0 };

/**
 * A debit (or, negative, a credit note) in the billing currency: prepaid spends funds (later
 * charges post even past zero, courier 4.2), credit grows the receivable or, for duties, the
 * recoverable balance kept apart from revenue; external posts nothing.
 */
export function chargeEffect(mode: SettlementMode, amount: number, recoverable: boolean): Effect {
  switch (mode) {
    case "prepaid":
      return { ...NO_EFFECT, prepaid_minor: 0 - amount };
    case "credit":
      return recoverable
        ? { ...NO_EFFECT, recoverable_minor: amount }
        : { ...NO_EFFECT, receivable_minor: amount };
    case "external":
      return NO_EFFECT;
  }
}

/**
 * Money received (a payment, remitted COD), `amount` > 0: prepaid adds to the funds; credit
 * clears first the duties of the invoices it paid (`duties`, see dutiesAllocated), then the
 * receivable, then other recoverable duties. What no invoice took (`unallocated`, credit on
 * account) is held in the receivable: it recovers duties only when an invoice it pays is issued
 * (dutiesRecoveredEffect), never before as well.
 */
export function receiptEffect(
  mode: SettlementMode,
  b: Balances,
  amount: number,
  duties = 0,
  unallocated = 0,
): Effect {
  switch (mode) {
    case "prepaid":
      return { ...NO_EFFECT, prepaid_minor: amount };
    case "credit": {
      // spec: courier 2.6: an invoice's duties paid are recovered, whatever else is owed.
      const forDuties = Math.min(Math.max(duties, 0), amount, Math.max(b.recoverable_minor, 0));
      // spec: courier 2.6: credit on account recovers duties at the issue of the invoice it
      // pays, so it is held in the receivable until then: taken off the duties now as well, the
      // same duties would be recovered twice (and a charge left owed in their place).
      const held = Math.min(Math.max(unallocated, 0), amount - forDuties);
      const rest = amount - forDuties - held;
      const fromReceivable = Math.min(rest, Math.max(b.receivable_minor, 0));
      const fromRecoverable = Math.min(
        rest - fromReceivable,
        Math.max(b.recoverable_minor - forDuties, 0),
      );
      return {
        prepaid_minor: 0,
        receivable_minor: 0 - (rest - fromRecoverable + held),
        recoverable_minor: 0 - (forDuties + fromRecoverable),
      };
    }
    case "external":
      return NO_EFFECT;
  }
}

/**
 * Credit on account (held in the receivable) that paid `duties` of invoices as they were issued:
 * those duties are recovered, the credit spent (courier 2.6). Moves them from the recoverable
 * balance to the receivable; what is owed in all does not change.
 */
export function dutiesRecoveredEffect(b: Balances, duties: number): Effect {
  const moved = Math.min(Math.max(duties, 0), Math.max(b.recoverable_minor, 0));
  return { prepaid_minor: 0, receivable_minor: moved, recoverable_minor: 0 - moved };
}

export function applyEffect(b: Balances, e: Effect): Balances {
  return {
    prepaid_minor: b.prepaid_minor + e.prepaid_minor,
    receivable_minor: b.receivable_minor + e.receivable_minor,
    recoverable_minor: b.recoverable_minor + e.recoverable_minor,
  };
}

/** What the client owes over all three balances: equals the sum of its posted entries. */
export function owedMinor(b: Balances): number {
  return b.receivable_minor + b.recoverable_minor - b.prepaid_minor;
}
