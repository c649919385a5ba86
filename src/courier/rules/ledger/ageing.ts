/** Ageing of what is owed (courier 4.2): current, 1-30, 31-60, 61-90, 90+ days past due. */
import { daysPastDue } from "./periods.ts";
import { balanceOf, isOpen, type LedgerBook, uninvoicedMinor } from "./book.ts";

export const AGEING_BUCKETS = ["current", "1-30", "31-60", "61-90", "90+"] as const;

export type AgeingBucket = typeof AGEING_BUCKETS[number];

export function bucketOf(days: number): AgeingBucket {
  if (days <= 0) return "current";
  if (days <= 30) return "1-30";
  if (days <= 60) return "31-60";
  if (days <= 90) return "61-90";
  return "90+";
}

/**
 * What is owed, by days past due: open invoice balances by their due date, uninvoiced charges
 * current. Credit (on account, or uninvoiced credit notes) is taken off oldest first, as credit is
 * allocated: the buckets add up to what is owed, never more and never below zero.
 *
 * `prepaidMinor` is the account's prepaid funds in `currency`. Prepaid charges go on no invoice,
 * so funds taken below zero by later charges (courier 4.2) are owed now and not yet due: current.
 */
export function ageing(
  book: LedgerBook,
  currency: string,
  now: number,
  prepaidMinor = 0,
): Record<AgeingBucket, number> {
  const uninvoiced = uninvoicedMinor(book, currency);
  const out: Record<AgeingBucket, number> = {
    current: Math.max(uninvoiced, 0) + Math.max(-prepaidMinor, 0),
    "1-30": 0,
    "31-60": 0,
    "61-90": 0,
    "90+": 0,
  };
  for (const inv of book.invoices) {
    if (inv.currency !== currency || !isOpen(inv)) continue;
    out[bucketOf(daysPastDue(inv.due_on, now))] += balanceOf(inv);
  }
  let credit = (book.unallocated[currency] ?? 0) + Math.max(-uninvoiced, 0);
  for (const bucket of [...AGEING_BUCKETS].reverse()) {
    if (credit <= 0) break;
    const taken = Math.min(credit, out[bucket]);
    out[bucket] -= taken;
    credit -= taken;
  }
  return out;
}
