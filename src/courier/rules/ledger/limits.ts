/** What the account actor's ledger state may hold (STYLE 5), each far below STATE_BYTES_MAX. */

export { REFERENCE_CHARS_MAX, TEXT_CHARS_MAX } from "../../../limits.ts";

/** Conversions awaiting a rate, kept in state (about 220 bytes each). */
export const UNRESOLVED_FX_MAX = 80;

/** COD collected and not yet remitted, one per waybill (about 140 bytes each). */
export const COD_AWAITING_MAX = 80;

/** Open invoices; beyond this the courier must collect before invoicing more. */
export const OPEN_INVOICES_MAX = 24;

/** Settled invoices kept in state besides the open ones; all of them are in Postgres. */
export const INVOICES_RECENT_MAX = 24;

/**
 * Fully invoiced period totals kept (they tell a later invoice it is supplementary); an older
 * period's invoices are read from Postgres when it is invoiced again.
 */
export const PERIODS_KEPT_MAX = 24;

/** Notes the query side may not hold yet, kept in state (about 130 bytes each). */
export const NOTES_IN_FLIGHT_MAX = 40;

/** Due date of an invoice when the client has no payment_days set. */
export const PAYMENT_DAYS_DEFAULT = 30;

/** An FX rate has at most this many decimal places (and 7 integer digits: units stay < 2^53). */
export const FX_RATE_PLACES_MAX = 8;
