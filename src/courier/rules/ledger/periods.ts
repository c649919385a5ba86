/** Periods (`YYYY-MM`) and dates of the ledger, in UTC (courier 4.2). */
import { PAYMENT_DAYS_DEFAULT } from "./limits.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

const PERIOD = /^\d{4}-(0[1-9]|1[0-2])$/;

export function isPeriod(text: string): boolean {
  return PERIOD.test(text);
}

/** `YYYY-MM` of an epoch-milliseconds instant, in UTC. */
export function periodOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 7);
}

/** `YYYY-MM-DD` of an instant, in UTC. */
export function dateOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The due date of an invoice issued at `issuedAt` with `paymentDays` to pay. */
export function dueOn(issuedAt: number, paymentDays: number | null): string {
  return dateOf(issuedAt + (paymentDays ?? PAYMENT_DAYS_DEFAULT) * DAY_MS);
}

/** Whole days from the due date to `now`'s date; 0 or less is not yet overdue. */
export function daysPastDue(due: string, now: number): number {
  return Math.round((Date.parse(dateOf(now)) - Date.parse(due)) / DAY_MS);
}
