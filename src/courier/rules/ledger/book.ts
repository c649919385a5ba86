/**
 * The bounded book the account actor keeps (courier 2.6, 4.2): period totals, invoices, charges
 * awaiting a rate, COD awaiting remittance, credit on account; the entries themselves live in
 * the event log and, projected, in Postgres.
 */
import { INVOICES_RECENT_MAX, PERIODS_KEPT_MAX } from "./limits.ts";
import type { EntryKind, LedgerEntry } from "./entries.ts";
import type { NotesInFlight } from "./notes_in_flight.ts";
import { applyEffect, type Balances, type Effect, NO_EFFECT } from "./balances.ts";

export interface PeriodTotal {
  /** Posted entries of this period and currency not yet on an invoice. */
  readonly uninvoiced_minor: number;
  readonly count: number;
  /** Highest entry seq counted here: an invoice covers the entries up to it. */
  readonly watermark: number;
  /** Invoices issued for this period and currency so far (a later one is supplementary). */
  readonly invoices: number;
  /**
   * Of `uninvoiced_minor`, the duties paid on the client's behalf (courier 2.6: recoverable, kept
   * apart from charges). Absent on totals kept before it was: their duties are not known.
   */
  readonly recoverable_minor?: number;
}

export interface Invoice {
  readonly id: string;
  readonly period: string;
  readonly currency: string;
  readonly amount_minor: number;
  readonly paid_minor: number;
  /** Entries posted after an earlier invoice of the same period (courier 2.6 rule 5). */
  readonly supplementary: boolean;
  readonly issued_at: number;
  readonly due_on: string;
  readonly watermark: number;
  readonly entries: number;
  /**
   * Of `amount_minor`, the duties paid on the client's behalf (courier 2.6: recoverable, not
   * revenue). Absent on invoices issued before it was kept.
   */
  readonly recoverable_minor?: number;
}

export interface UnresolvedEntry {
  readonly reference: string;
  readonly seq: number;
  readonly kind: EntryKind;
  readonly amount_minor: number;
  readonly currency: string;
  readonly recoverable: boolean;
  readonly period: string;
  readonly created_at: number;
  /**
   * The waybill and evidence of the charge, carried to its `charge.resolved` event (courier 2.7);
   * absent on entries queued before they were kept.
   */
  readonly shipment?: string | null;
  readonly evidence_path?: string | null;
}

export interface CodAwaiting {
  readonly waybill: string;
  readonly amount_minor: number;
  readonly currency: string;
  readonly collected_at: number;
}

export interface Allocation {
  readonly invoice_id: string;
  readonly amount_minor: number;
  /** The invoice's paid total after this allocation (projections set it, so replays are safe). */
  readonly paid_minor: number;
}

export interface LedgerBook {
  /** The last entry seq handed out. */
  readonly seq: number;
  readonly recoverable_minor: number;
  /**
   * Credit on account per currency: payments, remitted COD and credit invoices no invoice took.
   * Never held while an invoice of its currency is open: it pays them at once (courier 4.2).
   */
  readonly unallocated: Readonly<Record<string, number>>;
  /** `YYYY-MM|CUR` -> its uninvoiced total. */
  readonly periods: Readonly<Record<string, PeriodTotal>>;
  /** Open invoices and the last INVOICES_RECENT_MAX settled ones, oldest first. */
  readonly invoices: readonly Invoice[];
  readonly unresolved: readonly UnresolvedEntry[];
  readonly cod: readonly CodAwaiting[];
  /** Absent until the first note judged against Postgres' watermark. */
  readonly notes?: NotesInFlight;
  /**
   * Balances in currencies other than the billing currency, by currency, zero ones left out:
   * notes on entries booked before the billing currency changed post in their entry's currency
   * (courier 2.6 rule 5) and are never converted one-to-one (rule 4). Absent: none.
   */
  readonly other_currencies?: Readonly<Record<string, Balances>>;
}

export const EMPTY_BOOK: LedgerBook = {
  seq: 0,
  recoverable_minor: 0,
  unallocated: {},
  periods: {},
  invoices: [],
  unresolved: [],
  cod: [],
};

/** The balances of `currency` in a book's other currencies (zero when it holds none). */
export function otherBalancesOf(book: LedgerBook, currency: string): Balances {
  return book.other_currencies?.[currency] ?? NO_EFFECT;
}

/** The book with `e` applied to its balances in `currency` (not the billing currency). */
export function withOtherEffect(book: LedgerBook, currency: string, e: Effect): LedgerBook {
  const b = applyEffect(otherBalancesOf(book, currency), e);
  const { [currency]: _, ...rest } = book.other_currencies ?? {};
  const zero = b.prepaid_minor === 0 && b.receivable_minor === 0 && b.recoverable_minor === 0;
  return { ...book, other_currencies: zero ? rest : { ...rest, [currency]: b } };
}

export function periodKey(period: string, currency: string): string {
  return `${period}|${currency}`;
}

export function balanceOf(invoice: Invoice): number {
  return invoice.amount_minor - invoice.paid_minor;
}

export function isOpen(invoice: Invoice): boolean {
  return balanceOf(invoice) > 0;
}

/**
 * The duties part of money `allocations` apply to `invoices` (courier 2.6: duties recoverable,
 * kept apart from charges). Within an invoice its charges are paid first, then its duties: an
 * invoice paid in full has recovered every duty on it. Invoices issued before their duties were
 * kept count none.
 */
export function dutiesAllocated(
  invoices: readonly Invoice[],
  allocations: readonly Allocation[],
): number {
  let sum = 0;
  for (const a of allocations) {
    const inv = invoices.find((i) => i.id === a.invoice_id);
    const duties = inv?.recoverable_minor ?? 0;
    if (!inv || duties <= 0) continue;
    const charges = inv.amount_minor - duties;
    const before = a.paid_minor - a.amount_minor;
    sum += Math.max(0, a.paid_minor - charges) - Math.max(0, before - charges);
  }
  return sum;
}

/** Books an entry: its seq, its period total when it goes on an invoice, or the FX queue. */
export function bookEntry(book: LedgerBook, entry: LedgerEntry, invoiceable: boolean): LedgerBook {
  const seq = Math.max(book.seq, entry.seq);
  if (entry.status === "unresolved_fx") {
    const u: UnresolvedEntry = {
      reference: entry.reference,
      seq: entry.seq,
      kind: entry.kind,
      amount_minor: entry.amount_minor,
      currency: entry.currency,
      recoverable: entry.recoverable,
      period: entry.period,
      created_at: entry.created_at,
      shipment: entry.shipment,
      evidence_path: entry.evidence_path,
    };
    return { ...book, seq, unresolved: [...book.unresolved, u] };
  }
  if (!invoiceable) return { ...book, seq };
  const key = periodKey(entry.period, entry.currency);
  const p: PeriodTotal = book.periods[key] ??
    { uninvoiced_minor: 0, count: 0, watermark: 0, invoices: 0, recoverable_minor: 0 };
  const next: PeriodTotal = {
    uninvoiced_minor: p.uninvoiced_minor + entry.amount_minor,
    count: p.count + 1,
    watermark: Math.max(p.watermark, entry.seq),
    invoices: p.invoices,
    // spec: courier 2.6: duties kept apart, so the invoice that takes them tells them apart.
    ...(p.recoverable_minor === undefined ? {} : {
      recoverable_minor: p.recoverable_minor + (entry.recoverable ? entry.amount_minor : 0),
    }),
  };
  return { ...book, seq, periods: { ...book.periods, [key]: next } };
}

/** Money received goes to the allocated invoices; the rest waits as credit on account. */
export function bookReceipt(
  book: LedgerBook,
  currency: string,
  allocations: readonly Allocation[],
  unallocatedMinor: number,
): LedgerBook {
  const paid = new Map(allocations.map((a) => [a.invoice_id, a.paid_minor]));
  const invoices = book.invoices.map((i) => {
    const p = paid.get(i.id);
    return p === undefined ? i : { ...i, paid_minor: p };
  });
  return {
    ...book,
    invoices: pruneInvoices(invoices),
    unallocated: addUnallocated(book.unallocated, currency, unallocatedMinor),
  };
}

/**
 * Issued invoices empty their period totals; credit on account they used is spent, and so is the
 * credit `allocations` applied to invoices issued before (absent from older events).
 */
export function bookInvoices(
  book: LedgerBook,
  issued: readonly Invoice[],
  allocations: readonly Allocation[] = [],
): LedgerBook {
  const periods: Record<string, PeriodTotal> = { ...book.periods };
  let unallocated = book.unallocated;
  const paid = new Map(allocations.map((a) => [a.invoice_id, a]));
  const earlier = book.invoices.map((i) => {
    const a = paid.get(i.id);
    if (a === undefined) return i;
    unallocated = addUnallocated(unallocated, i.currency, -a.amount_minor);
    return { ...i, paid_minor: a.paid_minor };
  });
  for (const inv of issued) {
    const key = periodKey(inv.period, inv.currency);
    const p = periods[key];
    periods[key] = {
      uninvoiced_minor: (p?.uninvoiced_minor ?? 0) - inv.amount_minor,
      count: (p?.count ?? 0) - inv.entries,
      watermark: Math.max(p?.watermark ?? 0, inv.watermark),
      invoices: (p?.invoices ?? 0) + 1,
      // An invoice takes its period's whole uninvoiced total, its duties with it.
      recoverable_minor: (p?.recoverable_minor ?? 0) - (inv.recoverable_minor ?? 0),
    };
    // A credit invoice (amount <= 0) is settled at issue and its credit waits on account.
    unallocated = addUnallocated(unallocated, inv.currency, -inv.paid_minor);
  }
  return {
    ...book,
    periods: prunePeriods(periods),
    invoices: pruneInvoices([...earlier, ...issued]),
    unallocated,
  };
}

function addUnallocated(
  u: Readonly<Record<string, number>>,
  currency: string,
  delta: number,
): Readonly<Record<string, number>> {
  if (delta === 0) return u;
  const next = { ...u, [currency]: (u[currency] ?? 0) + delta };
  if (next[currency] === 0) delete next[currency];
  return next;
}

/** Every open invoice, and the last INVOICES_RECENT_MAX settled ones, in issue order. */
export function pruneInvoices(invoices: readonly Invoice[]): Invoice[] {
  const settled = invoices.filter((i) => !isOpen(i));
  if (settled.length <= INVOICES_RECENT_MAX) return [...invoices];
  const old = settled.slice(0, settled.length - INVOICES_RECENT_MAX);
  const dropped = new Set(old.map((i) => i.id));
  return invoices.filter((i) => !dropped.has(i.id));
}

/** Keeps every period with uninvoiced entries and the latest PERIODS_KEPT_MAX invoiced ones. */
export function prunePeriods(
  periods: Readonly<Record<string, PeriodTotal>>,
): Record<string, PeriodTotal> {
  const done = Object.keys(periods).filter((k) => periods[k]!.count === 0).sort().reverse();
  const drop = new Set(done.slice(PERIODS_KEPT_MAX));
  return Object.fromEntries(Object.entries(periods).filter(([k]) => !drop.has(k)));
}

/** The uninvoiced total of one currency over every period. */
export function uninvoicedMinor(book: LedgerBook, currency: string): number {
  let sum = 0;
  for (const [key, p] of Object.entries(book.periods)) {
    if (key.endsWith(`|${currency}`)) sum += p.uninvoiced_minor;
  }
  return sum;
}
