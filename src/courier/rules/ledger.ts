/**
 * The client ledger (courier 2.6, 4.2): every money fact of a client account is an entry; the
 * account actor keeps only bounded aggregates (`LedgerBook`), the entries themselves live in the
 * event log and, projected, in Postgres. Pure: no clock, no I/O.
 *
 * Sign of an entry's amount: from the client's side. Positive adds to what the client owes
 * (charges, debit notes); negative reduces it (top-ups, payments, credit notes, COD remitted).
 *
 * One file per idea under ./ledger/ (limits, entries, periods, FX, balances, the book, allocation,
 * ageing, notes in flight); this module gathers them for the ledger's readers.
 */
export {
  COD_AWAITING_MAX,
  FX_RATE_PLACES_MAX,
  INVOICES_RECENT_MAX,
  NOTES_IN_FLIGHT_MAX,
  OPEN_INVOICES_MAX,
  PAYMENT_DAYS_DEFAULT,
  PERIODS_KEPT_MAX,
  REFERENCE_CHARS_MAX,
  TEXT_CHARS_MAX,
  UNRESOLVED_FX_MAX,
} from "./ledger/limits.ts";
export { CHARGE_KINDS, ENTRY_KINDS, ENTRY_STATUSES, entryOf } from "./ledger/entries.ts";
export type { ChargeKind, EntryKind, EntryStatus, LedgerEntry } from "./ledger/entries.ts";
export {
  NO_NOTES_IN_FLIGHT,
  notesInFlightFor,
  notesInFlightOn,
  notesSeen,
} from "./ledger/notes_in_flight.ts";
export type { NoteInFlight, NotesInFlight } from "./ledger/notes_in_flight.ts";
export { compensationSplit } from "./ledger/compensation.ts";
export type { CompensationSplit } from "./ledger/compensation.ts";
export { dateOf, daysPastDue, dueOn, isPeriod, periodOf } from "./ledger/periods.ts";
export { convertMinor, parseRate } from "./ledger/fx.ts";
export type { ParsedRate } from "./ledger/fx.ts";
export {
  applyEffect,
  chargeEffect,
  dutiesRecoveredEffect,
  NO_EFFECT,
  owedMinor,
  receiptEffect,
} from "./ledger/balances.ts";
export type { Balances, Effect } from "./ledger/balances.ts";
export {
  balanceOf,
  bookEntry,
  bookInvoices,
  bookReceipt,
  dutiesAllocated,
  EMPTY_BOOK,
  isOpen,
  otherBalancesOf,
  periodKey,
  pruneInvoices,
  prunePeriods,
  uninvoicedMinor,
  withOtherEffect,
} from "./ledger/book.ts";
export type {
  Allocation,
  CodAwaiting,
  Invoice,
  LedgerBook,
  PeriodTotal,
  UnresolvedEntry,
} from "./ledger/book.ts";
export { allocate } from "./ledger/allocation.ts";
export type { Allocated } from "./ledger/allocation.ts";
export { ageing, AGEING_BUCKETS, bucketOf } from "./ledger/ageing.ts";
export type { AgeingBucket } from "./ledger/ageing.ts";
