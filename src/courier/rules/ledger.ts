/**
 * The client ledger (courier 2.6, 4.2): every money fact of a client account is an entry; the
 * account actor keeps only bounded aggregates (this file's `LedgerBook`), the entries themselves
 * live in the event log and, projected, in Postgres. Pure: no clock, no I/O.
 *
 * Sign of an entry's amount: from the client's side. Positive adds to what the client owes
 * (charges, debit notes); negative reduces it (top-ups, payments, credit notes, COD remitted).
 */
import { exponentOf, formatMinor, mulDiv } from "../../domain/money.ts";
import type { SettlementMode } from "./settlement.ts";

// ---- Limits (STYLE 5): what the account actor's state may hold, each far below STATE_BYTES_MAX.

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
export { REFERENCE_CHARS_MAX, TEXT_CHARS_MAX } from "../../limits.ts";
/** Notes the query side may not hold yet, kept in state (about 130 bytes each). */
export const NOTES_IN_FLIGHT_MAX = 40;
/** Due date of an invoice when the client has no payment_days set. */
export const PAYMENT_DAYS_DEFAULT = 30;
/** An FX rate has at most this many decimal places (and 7 integer digits: units stay < 2^53). */
export const FX_RATE_PLACES_MAX = 8;

const DAY_MS = 24 * 60 * 60 * 1000;

// ---- Entries.

/** Later charges (courier 2.6 rule 3): one entry per fact, posted with `post_charge`. */
export const CHARGE_KINDS = [
  "customs_admin",
  "duties",
  "errand",
  "waiting",
  "cold_chain",
  "failed_collection",
  "redelivery",
  "return",
] as const;
export type ChargeKind = typeof CHARGE_KINDS[number];

export const ENTRY_KINDS = [
  "shipment",
  ...CHARGE_KINDS,
  "top_up",
  "payment",
  "debit_note",
  "credit_note",
  "cod_remitted",
] as const;

export type EntryKind = typeof ENTRY_KINDS[number];

/** `external`: recorded for audit and profit, no receivable (courier 4.2 external row). */
export const ENTRY_STATUSES = ["posted", "external", "unresolved_fx"] as const;
export type EntryStatus = typeof ENTRY_STATUSES[number];

export interface LedgerEntry {
  readonly reference: string;
  /** Order in which entries reached the account; a conversion gets a new one when resolved. */
  readonly seq: number;
  /** `YYYY-MM` (UTC) of `created_at`: the period whose statement and invoice it goes on. */
  readonly period: string;
  readonly kind: EntryKind;
  /** Signed, see the top of this file; in `currency`'s minor units. */
  readonly amount_minor: number;
  readonly currency: string;
  readonly status: EntryStatus;
  readonly payer: "client";
  /** Duties paid on the client's behalf: recovered, never revenue (courier 2.6). */
  readonly recoverable: boolean;
  readonly reason: string | null;
  readonly evidence_path: string | null;
  readonly source_event: string | null;
  readonly original_amount_minor: number | null;
  readonly original_currency: string | null;
  /** Exact decimal text, e.g. `"0.0734"`. */
  readonly fx_rate: string | null;
  readonly fx_source: string | null;
  readonly corrects: string | null;
  /**
   * The kind of the entry a note corrects: a reference is unique within its kind only (absent on
   * notes made before it was kept).
   */
  readonly corrects_kind?: EntryKind | null;
  readonly shipment: string | null;
  /**
   * When the entry was booked: the moment it counts in its period's statement, invoice and
   * export range. A conversion resolved after it was posted is booked when resolved.
   */
  readonly created_at: number;
  /**
   * When the charge arose (its source event), set only when it was booked later: a conversion
   * resolved after it was posted. Absent or null: it arose at `created_at`.
   */
  readonly charged_at?: number | null;
}

/** The fields every entry starts from; the caller sets what differs. */
export function entryOf(
  fields:
    & Pick<LedgerEntry, "reference" | "seq" | "kind" | "amount_minor" | "currency" | "status">
    & Partial<LedgerEntry>
    & { readonly created_at: number },
): LedgerEntry {
  return {
    payer: "client",
    recoverable: false,
    reason: null,
    evidence_path: null,
    source_event: null,
    original_amount_minor: null,
    original_currency: null,
    fx_rate: null,
    fx_source: null,
    corrects: null,
    shipment: null,
    ...fields,
    period: fields.period ?? periodOf(fields.created_at),
  };
}

// ---- Notes in flight (courier 2.6 rule 5): a credit note may not take its entry below zero.
//
// The entry and the notes on it are read from Postgres, which lags the account. The account
// keeps the notes Postgres may not hold yet, and judges each note against those too, one command
// at a time: two notes sent together are judged against each other.

/** A debit or credit note, kept until the query side is seen holding it. */
export interface NoteInFlight {
  readonly corrects: string;
  readonly corrects_kind: EntryKind;
  readonly seq: number;
  readonly amount_minor: number;
  /** The waybill of the entry it corrects (absent on notes kept before it was). */
  readonly shipment?: string | null;
}

export interface NotesInFlight {
  /** Postgres was seen holding every entry of the account up to this seq. */
  readonly seen_seq: number;
  /** The notes after `seen_seq`, oldest first. */
  readonly pending: readonly NoteInFlight[];
}

export const NO_NOTES_IN_FLIGHT: NotesInFlight = { seen_seq: 0, pending: [] };

/** The notes once Postgres was seen holding every entry up to `seenSeq`: older ones are there. */
export function notesSeen(notes: NotesInFlight, seenSeq: number): NotesInFlight {
  if (seenSeq <= notes.seen_seq) return notes;
  return { seen_seq: seenSeq, pending: notes.pending.filter((n) => n.seq > seenSeq) };
}

/** What the notes in flight add to the entry of `kind` and `reference`. */
export function notesInFlightOn(notes: NotesInFlight, kind: EntryKind, reference: string): number {
  let sum = 0;
  for (const n of notes.pending) {
    if (n.corrects === reference && n.corrects_kind === kind) sum += n.amount_minor;
  }
  return sum;
}

/** How many notes in flight may be on entries of `shipment` (a note kept without one may be). */
export function notesInFlightFor(notes: NotesInFlight, shipment: string): number {
  return notes.pending.filter((n) => n.shipment === undefined || n.shipment === shipment).length;
}

// ---- Periods and dates (UTC).

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

// ---- FX (courier 2.6 rule 4): exact rates, one rounding through mulDiv, never one-to-one.

export type ParsedRate =
  | { readonly ok: true; readonly units: number; readonly text: string }
  | { readonly ok: false; readonly message: string };

const RATE = /^(\d+)(?:\.(\d+))?$/;
const RATE_SCALE = 10 ** FX_RATE_PLACES_MAX;

/**
 * `"0.07340000"` -> units of 10^-8 (7,340,000) and its canonical text `"0.0734"`. The bounds are
 * on the rate's value: leading and trailing zeros say nothing (courier 9.4, as money.ts toMinor),
 * so a feed's `"0.0752500000"` is the exact rate 0.07525, and a ninth significant place is refused.
 */
export function parseRate(rate: string): ParsedRate {
  const m = RATE.exec(rate.trim());
  const whole = (m?.[1] ?? "").replace(/^0+(?=\d)/, "");
  const fraction = (m?.[2] ?? "").replace(/0+$/, "");
  if (!m || whole.length > 7 || fraction.length > FX_RATE_PLACES_MAX) {
    return {
      ok: false,
      message:
        `an FX rate is a decimal with up to 7 integer digits and ${FX_RATE_PLACES_MAX} places: ${rate}`,
    };
  }
  const units = Number(whole) * RATE_SCALE + Number(fraction.padEnd(FX_RATE_PLACES_MAX, "0"));
  if (units <= 0) return { ok: false, message: `an FX rate must be above zero: ${rate}` };
  return { ok: true, units, text: fraction ? `${whole}.${fraction}` : whole };
}

/**
 * `amountMinor` of `from` in `to` at `rateUnits` (1 `from` = rate `to`), rounded half away from
 * zero once. 10^(8 + e_from - e_to) is at least 10^5: minor-unit exponents are 0 to 3.
 */
export function convertMinor(amountMinor: number, from: string, to: string, rateUnits: number) {
  const places = FX_RATE_PLACES_MAX + exponentOf(from) - exponentOf(to);
  return mulDiv(amountMinor, rateUnits, 10 ** places);
}

// ---- Balances and the effect of an entry on them.

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

// ---- The bounded book the account actor keeps.

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

// ---- Allocation of money received to open invoices.

export type Allocated =
  | { readonly ok: true; readonly allocations: Allocation[]; readonly rest: number }
  | { readonly ok: false; readonly code: string; readonly message: string };

/**
 * Applies `amount` to the requested invoices (each within its balance, all within the amount),
 * then oldest-due first to the other open invoices of the currency; `rest` is what is left.
 */
export function allocate(
  invoices: readonly Invoice[],
  currency: string,
  amount: number,
  requested: readonly { readonly invoice_id: string; readonly amount_minor: number }[],
): Allocated {
  const open = new Map(
    invoices.filter((i) => isOpen(i) && i.currency === currency).map((i) => [i.id, i]),
  );
  const applied = new Map<string, number>();
  let requestedTotal = 0;
  for (const [i, r] of requested.entries()) {
    const inv = open.get(r.invoice_id);
    if (!inv) {
      return refuse(
        "invoice_not_open",
        `allocations.${i}.invoice_id: no open ${currency} invoice: ${r.invoice_id}`,
      );
    }
    if (applied.has(r.invoice_id)) {
      return refuse(
        "duplicate_allocation",
        `allocations.${i}.invoice_id: invoice allocated twice: ${r.invoice_id}`,
      );
    }
    if (r.amount_minor > balanceOf(inv)) {
      return refuse(
        "allocation_exceeds_invoice",
        `allocations.${i}.amount: above the invoice balance: invoice ${inv.id}, balance ` +
          `${formatMinor(balanceOf(inv), currency)}, allocated ${
            formatMinor(r.amount_minor, currency)
          } ${currency}`,
      );
    }
    applied.set(r.invoice_id, r.amount_minor);
    requestedTotal += r.amount_minor;
  }
  if (requestedTotal > amount) {
    return refuse(
      "allocations_exceed_payment",
      `allocations: add up to more than the payment: ${formatMinor(requestedTotal, currency)} > ${
        formatMinor(amount, currency)
      } ${currency}`,
    );
  }
  let rest = amount - requestedTotal;
  const oldestFirst = [...open.values()].sort((a, b) =>
    a.due_on < b.due_on ? -1 : a.due_on > b.due_on ? 1 : a.issued_at - b.issued_at
  );
  for (const inv of oldestFirst) {
    if (rest === 0) break;
    const already = applied.get(inv.id) ?? 0;
    const more = Math.min(rest, balanceOf(inv) - already);
    if (more <= 0) continue;
    applied.set(inv.id, already + more);
    rest -= more;
  }
  const allocations = [...applied].filter(([, a]) => a > 0).map(([id, a]) => ({
    invoice_id: id,
    amount_minor: a,
    paid_minor: open.get(id)!.paid_minor + a,
  }));
  return { ok: true, allocations, rest };
}

function refuse(code: string, message: string): Allocated {
  return { ok: false, code, message };
}

// ---- Ageing of what is owed (courier 4.2): current, 1-30, 31-60, 61-90, 90+ days past due.

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
