/**
 * The money part of the client account actor (courier 2.6, 4.2): later charges, FX resolution,
 * payments, debit and credit notes, COD, invoices. Pure decide and evolve over the account; the
 * entries go into events (and, projected, Postgres), the state keeps bounded aggregates only.
 */
import {
  accept,
  type Ctx,
  type Decision,
  reject,
  type Rejection,
  unreachable,
} from "../../src/runtime/actor.ts";
import type { AskOptions } from "../../src/runtime/actor.ts";
import {
  allocate,
  type Allocation,
  applyEffect,
  type Balances,
  bookEntry,
  bookInvoices,
  bookReceipt,
  chargeEffect,
  type ChargeKind,
  COD_AWAITING_MAX,
  type CodAwaiting,
  convertMinor,
  dueOn,
  dutiesAllocated,
  dutiesRecoveredEffect,
  type Effect,
  type EntryKind,
  entryOf,
  type EntryStatus,
  type Invoice,
  isOpen,
  isPeriod,
  type LedgerBook,
  type LedgerEntry,
  NO_EFFECT,
  NO_NOTES_IN_FLIGHT,
  NOTES_IN_FLIGHT_MAX,
  notesInFlightFor,
  notesInFlightOn,
  notesSeen,
  OPEN_INVOICES_MAX,
  otherBalancesOf,
  owedMinor,
  parseRate,
  periodOf,
  receiptEffect,
  REFERENCE_CHARS_MAX,
  TEXT_CHARS_MAX,
  UNRESOLVED_FX_MAX,
  withOtherEffect,
} from "../../src/courier/rules/ledger.ts";
import { AMOUNT_MINOR_MAX, AmountOutOfRange, formatMinor } from "../../src/domain/money.ts";
import { COMPLETION_ADJUSTMENTS_MAX, NOTE_ADJUSTMENTS_MAX } from "../../src/limits.ts";
import { available, type SettlementMode } from "../../src/courier/rules/settlement.ts";
import type { CourierClient } from "./courier_client_state.ts";

export interface FxInput {
  /** Exact decimal text: 1 unit of the charge's currency in the billing currency. */
  readonly rate: string;
  readonly source: string;
}

export type LedgerCommand =
  | {
    kind: "post_charge";
    reference: string;
    entry_kind: ChargeKind;
    amount_minor: number;
    currency: string;
    reason: string;
    evidence_path: string | null;
    source_event: string;
    shipment: string | null;
    recoverable: boolean;
    fx?: FxInput;
    by: string;
  }
  | { kind: "resolve_fx"; reference: string; rate: string; source: string; by: string }
  | {
    kind: "payment";
    amount_minor: number;
    currency: string;
    reference: string;
    allocations?: readonly { invoice_id: string; amount_minor: number }[];
    by: string;
  }
  | {
    kind: "correct";
    /** The corrected entry as stored, and its net amount with the notes already on it. */
    original: OriginalEntry;
    /** The highest entry seq of the account Postgres held when `original` was read. */
    seen_seq: number;
    /** Positive: debit note; negative: credit note. */
    amount_minor: number;
    reason: string;
    reference?: string;
    evidence_path?: string | null;
    /**
     * A credit note paying an approved claim (courier 2.4 liability cover, 4.6 claims): it is
     * compensation, not a price correction, so it may exceed the entry's net (a covered loss is
     * worth the declared value, not the price). Only for credit notes.
     */
    compensation?: boolean;
    by: string;
  }
  | { kind: "cod_collected"; waybill: string; amount_minor: number; currency: string; by: string }
  | { kind: "cod_remitted"; waybill: string; evidence_path: string; by: string }
  | {
    kind: "issue_invoice";
    period: string;
    by: string;
    /**
     * Currencies the query side holds an invoice of this period in: a period invoiced long ago
     * is no longer in the account's state (PERIODS_KEPT_MAX), and an entry reaching it late
     * (a conversion resolved before resolutions were booked in their own period) still goes on
     * a supplementary invoice.
     */
    invoiced_currencies?: readonly string[];
  };

export interface OriginalEntry {
  readonly reference: string;
  readonly kind: EntryKind;
  readonly amount_minor: number;
  readonly currency: string;
  readonly status: EntryStatus;
  readonly recoverable: boolean;
  readonly shipment: string | null;
  /** The original amount plus every note already pointing at it. */
  readonly net_minor: number;
  /**
   * The adjustments of its shipment (courier 2.7: later charges and notes) Postgres held at
   * `seen_seq`; absent: not read.
   */
  readonly shipment_adjustments?: number;
}

/** A conversion that got its rate: the fields of the entry that change. */
export interface FxResolution {
  readonly reference: string;
  readonly seq: number;
  readonly period: string;
  readonly kind: EntryKind;
  readonly amount_minor: number;
  readonly currency: string;
  readonly status: EntryStatus;
  readonly recoverable: boolean;
  readonly original_amount_minor: number;
  readonly original_currency: string;
  readonly fx_rate: string;
  readonly fx_source: string;
  /** The resolution's moment: the converted charge is booked then (absent `charged_at`: not). */
  readonly created_at: number;
  /** When the charge arose; absent on resolutions booked at that time, made before it was kept. */
  readonly charged_at?: number;
  /** Unchanged by the conversion: the charge's waybill and evidence (courier 2.7 charge event). */
  readonly shipment?: string | null;
  readonly evidence_path?: string | null;
}

export type LedgerEvent =
  | {
    kind: "entry_posted";
    entry: LedgerEntry;
    effect: Effect;
    invoiceable: boolean;
    by: string;
    /** A note: the Postgres watermark it was judged against (absent on older notes). */
    seen_seq?: number;
  }
  | {
    kind: "fx_resolved";
    resolution: FxResolution;
    effect: Effect;
    invoiceable: boolean;
    by: string;
  }
  | {
    kind: "payment_received" | "cod_remitted";
    entry: LedgerEntry;
    effect: Effect;
    allocations: readonly Allocation[];
    /** What no invoice took: credit on account, applied to the next invoice. */
    unallocated_minor: number;
    by: string;
  }
  | {
    kind: "cod_collected";
    waybill: string;
    amount_minor: number;
    currency: string;
    collected_at: number;
    by: string;
  }
  | {
    kind: "invoices_issued";
    invoices: readonly Invoice[];
    /** Credit on account applied at this issue to invoices issued before (absent: none). */
    allocations?: readonly Allocation[];
    /**
     * Duties of invoices that credit on account paid at this issue, by currency: recovered
     * (courier 2.6), moved from the recoverable balance to the receivable. Absent: none.
     */
    duties_recovered?: Readonly<Record<string, number>>;
    by: string;
  };

/** The account's figures a billing reply carries (minor units of `currency`). */
export interface AccountBalances {
  readonly settlement_mode: SettlementMode;
  readonly currency: string;
  readonly prepaid_minor: number;
  readonly receivable_minor: number;
  readonly recoverable_minor: number;
  /** Credit on account not yet applied to an invoice. */
  readonly unallocated_minor: number;
  /** Sum of the posted entries: what the client owes (negative: what it holds). */
  readonly owed_minor: number;
  readonly credit_limit_minor: number;
  readonly available_minor: number | null;
  /**
   * The balances in other currencies (notes on entries from before the billing currency changed,
   * credit on account left in the old one), by currency; absent on replies kept before them.
   */
  readonly other_currencies?: readonly OtherCurrencyBalances[];
}

/** An account's balances in a currency other than its billing currency (minor units). */
export interface OtherCurrencyBalances extends Balances {
  readonly currency: string;
  readonly unallocated_minor: number;
  readonly owed_minor: number;
}

export type LedgerReply =
  | {
    readonly entry: LedgerEntry;
    readonly allocations: readonly Allocation[];
    readonly balances: AccountBalances;
    /**
     * A payment's allocations as sent (the rest is allocated oldest first, so `allocations` may
     * name more): a replay under its reference is the same payment only if it sends these.
     * Absent on other entries, and on payments kept before it was recorded.
     */
    readonly requested?: readonly { readonly invoice_id: string; readonly amount_minor: number }[];
  }
  | { readonly resolved: FxResolution; readonly balances: AccountBalances }
  /** COD recorded as collected (absent on records kept before it was answered). */
  | { readonly cod: CodAwaiting }
  | { readonly invoices: readonly Invoice[]; readonly balances: AccountBalances };

type S = CourierClient | null;
type LedgerDecision = Decision<S, LedgerEvent, LedgerReply>;

/** Ask options for a money fact: the same source event books once, however late (2.6 rule 2). */
export function entryAsk(sourceEvent: string): AskOptions {
  return { idempotencyKey: `entry:${sourceEvent}`, permanent: true };
}

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

function posted(
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

export function decideLedger(state: CourierClient, c: LedgerCommand, ctx: Ctx): LedgerDecision {
  switch (c.kind) {
    case "post_charge":
      return postCharge(state, c, ctx.now);
    case "resolve_fx":
      return resolveFx(state, c, ctx.now);
    case "payment":
      return payment(state, c, ctx.now);
    case "correct":
      return correct(state, c, ctx);
    case "cod_collected":
      return codCollected(state, c, ctx.now);
    case "cod_remitted":
      return codRemitted(state, c, ctx.now);
    case "issue_invoice":
      return issueInvoice(state, c, ctx);
    default:
      return unreachable(c);
  }
}

function badAmount(amount: number): boolean {
  return !Number.isSafeInteger(amount) || amount <= 0;
}

function badText(text: string, max: number): boolean {
  return text.trim().length === 0 || text.length > max;
}

function currencyMismatch(state: CourierClient, currency: string) {
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

/**
 * `amountMinor` of `from` converted to `to` at `rate` (rounded once, in convertMinor), or the
 * refusal of a conversion that cannot be booked as it comes out: past AMOUNT_MINOR_MAX (the most
 * an answer states exactly), refused, never booked rounded nor failed as an internal error
 * (courier 2.6 rule 4; 9.4 amounts are decimals); or a charge that rounds to nothing.
 */
function converted(
  amountMinor: number,
  from: string,
  to: string,
  rate: { readonly units: number; readonly text: string },
  field: string,
): number | Rejection {
  let minor: number;
  try {
    minor = convertMinor(amountMinor, from, to, rate.units);
  } catch (e) {
    if (!(e instanceof AmountOutOfRange)) throw e;
    minor = Number.POSITIVE_INFINITY;
  }
  const sent = `${formatMinor(amountMinor, from)} ${from} at ${rate.text}`;
  if (minor > AMOUNT_MINOR_MAX) {
    return reject(
      "amount_too_large",
      `${field}: ${sent} would pass ${formatMinor(AMOUNT_MINOR_MAX, to)} ${to}: nothing was booked`,
    );
  }
  // spec: courier 2.6 rules 1, 4: a later charge is an entry of what is owed, converted at its
  // rate; a rate that rounds a charge to nothing would make it vanish as a posted 0.00: refused,
  // and the charge keeps awaiting a rate.
  if (minor === 0 && amountMinor !== 0) {
    return reject(
      "invalid_fx_rate",
      `${field}: ${sent} converts to ${formatMinor(0, to)} ${to}: a charge is never booked as ` +
        "nothing; check the rate",
    );
  }
  return minor;
}

function statusFor(mode: SettlementMode): EntryStatus {
  return mode === "external" ? "external" : "posted";
}

type PostCharge = Extract<LedgerCommand, { kind: "post_charge" }>;

/** spec: courier 2.6 rules 1, 3, 4: a later charge, converted at a stated rate or left unresolved. */
function postCharge(state: CourierClient, c: PostCharge, now: number): LedgerDecision {
  if (badAmount(c.amount_minor)) return reject("invalid_amount", "a charge must be above zero");
  if (badText(c.reference, REFERENCE_CHARS_MAX)) {
    return reject("invalid_reference", `a reference has 1 to ${REFERENCE_CHARS_MAX} characters`);
  }
  if (badText(c.reason, TEXT_CHARS_MAX) || badText(c.source_event, TEXT_CHARS_MAX)) {
    return reject("reason_required", "a later charge needs a reason and its source event");
  }
  // spec: courier 7: duties need amount, currency, payer and evidence.
  if (c.entry_kind === "duties" && !c.evidence_path) {
    return reject("evidence_required", `duties need evidence: ${c.reference}`);
  }
  const mode = state.settings.settlement_mode;
  const billing = state.settings.billing_currency;
  const base = {
    reference: c.reference,
    seq: state.ledger.seq + 1,
    kind: c.entry_kind,
    recoverable: c.recoverable,
    reason: c.reason,
    evidence_path: c.evidence_path,
    source_event: c.source_event,
    shipment: c.shipment,
    created_at: now,
  };
  let entry: LedgerEntry;
  if (c.currency === billing) {
    entry = entryOf({
      ...base,
      amount_minor: c.amount_minor,
      currency: c.currency,
      status: statusFor(mode),
    });
  } else if (c.fx) {
    const rate = parseRate(c.fx.rate);
    if (!rate.ok) return reject("invalid_fx_rate", `fx.rate: ${rate.message}`);
    if (badText(c.fx.source, TEXT_CHARS_MAX)) {
      return reject("fx_source_required", "fx.source: a conversion records the source of its rate");
    }
    const amount = converted(c.amount_minor, c.currency, billing, rate, "fx.rate");
    if (typeof amount !== "number") return amount;
    entry = entryOf({
      ...base,
      amount_minor: amount,
      currency: billing,
      status: statusFor(mode),
      original_amount_minor: c.amount_minor,
      original_currency: c.currency,
      fx_rate: rate.text,
      fx_source: c.fx.source,
    });
  } else {
    if (state.ledger.unresolved.length >= UNRESOLVED_FX_MAX) {
      return reject(
        "unresolved_fx_limit",
        `too many charges await an FX rate; resolve some first: ${state.ledger.unresolved.length}`,
      );
    }
    // Never converted one-to-one: held in its own currency, outside the balances.
    entry = entryOf({
      ...base,
      amount_minor: c.amount_minor,
      currency: c.currency,
      status: "unresolved_fx",
    });
  }
  const isPosted = entry.status === "posted";
  return posted(
    [{
      kind: "entry_posted",
      entry,
      effect: isPosted ? chargeEffect(mode, entry.amount_minor, entry.recoverable) : NO_EFFECT,
      invoiceable: isPosted && mode === "credit",
      by: c.by,
    }],
    entry,
    [],
  );
}

type ResolveFx = Extract<LedgerCommand, { kind: "resolve_fx" }>;

/**
 * spec: courier 2.6 rule 4: a charge awaiting its rate was left out of balances, invoices and
 * exports; once it has one, the converted charge is a fact of this moment and is booked now, in
 * this period's statement, invoice and export range. A month already exported or invoiced is never
 * changed after the fact (2.6 rule 5, 3.1); the entry keeps when the charge arose (`charged_at`,
 * its source event) and what it was converted from.
 */
function resolveFx(state: CourierClient, c: ResolveFx, now: number): LedgerDecision {
  const u = state.ledger.unresolved.find((e) => e.reference === c.reference);
  if (!u) {
    return reject("not_found", `entry_reference: no charge awaits an FX rate: ${c.reference}`);
  }
  const rate = parseRate(c.rate);
  if (!rate.ok) return reject("invalid_fx_rate", `rate: ${rate.message}`);
  if (badText(c.source, TEXT_CHARS_MAX)) {
    return reject("fx_source_required", "source: a conversion records the source of its rate");
  }
  const mode = state.settings.settlement_mode;
  const billing = state.settings.billing_currency;
  const amount = converted(u.amount_minor, u.currency, billing, rate, "rate");
  if (typeof amount !== "number") return amount;
  const resolution: FxResolution = {
    reference: u.reference,
    seq: state.ledger.seq + 1,
    period: periodOf(now),
    kind: u.kind,
    amount_minor: amount,
    currency: billing,
    status: statusFor(mode),
    recoverable: u.recoverable,
    original_amount_minor: u.amount_minor,
    original_currency: u.currency,
    fx_rate: rate.text,
    fx_source: c.source,
    created_at: now,
    charged_at: u.created_at,
    shipment: u.shipment ?? null,
    evidence_path: u.evidence_path ?? null,
  };
  const isPosted = resolution.status === "posted";
  return accept<S, LedgerEvent, LedgerReply>([{
    kind: "fx_resolved",
    resolution,
    effect: isPosted ? chargeEffect(mode, resolution.amount_minor, u.recoverable) : NO_EFFECT,
    invoiceable: isPosted && mode === "credit",
    by: c.by,
  }], (next) => ({ resolved: resolution, balances: accountBalances(next!) }));
}

/** spec: courier 4.2: payments and invoices are for credit accounts; external posts none. */
function receivableRefusal(state: CourierClient, what: string) {
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

type Payment = Extract<LedgerCommand, { kind: "payment" }>;

function payment(state: CourierClient, c: Payment, now: number): LedgerDecision {
  const refused = receivableRefusal(state, "payment");
  if (refused) return refused;
  if (badAmount(c.amount_minor)) return reject("invalid_amount", "a payment must be above zero");
  const other = currencyRefusal(state, c.currency);
  if (other) return other;
  if (badText(c.reference, REFERENCE_CHARS_MAX)) {
    return reject("invalid_reference", `a reference has 1 to ${REFERENCE_CHARS_MAX} characters`);
  }
  if ((c.allocations ?? []).some((a) => badAmount(a.amount_minor))) {
    return reject("invalid_amount", "an allocation must be above zero");
  }
  const split = allocate(state.ledger.invoices, c.currency, c.amount_minor, c.allocations ?? []);
  if (!split.ok) return reject(split.code, split.message);
  const entry = entryOf({
    reference: c.reference,
    seq: state.ledger.seq + 1,
    kind: "payment",
    amount_minor: -c.amount_minor,
    currency: c.currency,
    status: "posted",
    source_event: `payment:${c.reference}`,
    created_at: now,
  });
  return posted(
    [{
      kind: "payment_received",
      entry,
      effect: receiptEffect(
        "credit",
        balancesIn(state, c.currency),
        c.amount_minor,
        dutiesAllocated(state.ledger.invoices, split.allocations),
        split.rest,
      ),
      allocations: split.allocations,
      unallocated_minor: split.rest,
      by: c.by,
    }],
    entry,
    split.allocations,
    (c.allocations ?? []).map((a) => ({ invoice_id: a.invoice_id, amount_minor: a.amount_minor })),
  );
}

type Correct = Extract<LedgerCommand, { kind: "correct" }>;

/**
 * Money received is never corrected by a note; nor is a note: a note points at the original entry
 * (spec: courier 2.6 rule 5), whose net with all its notes a credit note never takes below zero.
 */
export const NOT_CORRECTABLE: readonly EntryKind[] = [
  "top_up",
  "payment",
  "cod_remitted",
  "debit_note",
  "credit_note",
];

/** spec: courier 2.6 rule 5: a debit or credit note pointing at the original entry. */
function correct(state: CourierClient, c: Correct, ctx: Ctx): LedgerDecision {
  const o = c.original;
  if (!Number.isSafeInteger(c.amount_minor) || c.amount_minor === 0) {
    return reject("invalid_amount", "a correction is a non-zero amount");
  }
  if (badText(c.reason, TEXT_CHARS_MAX)) return reject("reason_required", "a note needs a reason");
  if (NOT_CORRECTABLE.includes(o.kind)) {
    const hint = o.kind === "debit_note" || o.kind === "credit_note"
      ? "; correct the entry it points at"
      : "";
    return reject(
      "not_correctable",
      `a ${o.kind} entry is not corrected by a note${hint}: ${o.reference}`,
    );
  }
  if (
    o.status === "unresolved_fx" || state.ledger.unresolved.some((u) => u.reference === o.reference)
  ) {
    return reject("fx_unresolved", `resolve the FX rate of the entry first: ${o.reference}`);
  }
  // spec: courier 2.6 rule 5, 4.2: the note is in the currency of the entry it corrects, whatever
  // the account bills in now; it counts in that currency's balances and invoice (evolveLedger).
  // Postgres lags the account: the notes it may not hold yet are counted from state, so notes
  // sent together are judged against each other (spec: courier 2.6 rule 5).
  const known = state.ledger.notes ?? NO_NOTES_IN_FLIGHT;
  if (c.seen_seq < known.seen_seq) {
    return reject(
      "ledger_catching_up",
      `the entry was read before notes the account has since seen in the statement; read it ` +
        `again: ${o.reference} (read at ${c.seen_seq}, seen ${known.seen_seq})`,
    );
  }
  const notes = notesSeen(known, c.seen_seq);
  if (notes.pending.length >= NOTES_IN_FLIGHT_MAX) {
    return reject(
      "ledger_catching_up",
      `${notes.pending.length} notes await the statement; retry once it has caught up`,
    );
  }
  if (c.compensation === true && c.amount_minor > 0) {
    return reject("invalid_amount", "compensation is a credit note: a negative amount");
  }
  // spec: courier 2.7: a shipment's completion event lists every adjustment, up to a bound the
  // charges its work books must never meet: notes stop halfway (NOTE_ADJUSTMENTS_MAX), counted
  // with those the statement does not hold yet.
  if (o.shipment !== null) {
    const adjustments = (o.shipment_adjustments ?? 0) +
      notesInFlightFor(notes, o.shipment);
    if (adjustments >= NOTE_ADJUSTMENTS_MAX) {
      return reject(
        "adjustments_limit",
        `shipment ${o.shipment} has ${adjustments} adjustments; a note joins fewer than ` +
          `${NOTE_ADJUSTMENTS_MAX} (its completion event lists every one, at most ` +
          `${COMPLETION_ADJUSTMENTS_MAX}, charges from its work included)`,
      );
    }
  }
  const net = o.net_minor + notesInFlightOn(notes, o.kind, o.reference);
  // spec: courier 2.4 (liability cover on the declared value), 2.6 rule 5: a claim's approved
  // compensation is credited in full as a note pointing at the shipment's entry, whatever the
  // price was; only a price correction is bounded by what the entry still holds.
  if (c.compensation !== true && net + c.amount_minor < 0) {
    return reject(
      "correction_exceeds_entry",
      // spec: courier 4.2 correct (amount positive or negative): the refusal names the field and
      // speaks the amounts as the caller sent them, in the currency's decimals, not minor units.
      `amount: a credit note cannot take the entry below zero: net ${
        formatMinor(net, o.currency)
      }, note ${formatMinor(c.amount_minor, o.currency)} ${o.currency}`,
    );
  }
  const debit = c.amount_minor > 0;
  const reference = c.reference ?? ctx.newId(debit ? "dn" : "cn");
  if (badText(reference, REFERENCE_CHARS_MAX)) {
    return reject("invalid_reference", `a reference has 1 to ${REFERENCE_CHARS_MAX} characters`);
  }
  const mode = state.settings.settlement_mode;
  const status: EntryStatus = o.status === "external" ? "external" : statusFor(mode);
  const entry = entryOf({
    reference,
    seq: state.ledger.seq + 1,
    kind: debit ? "debit_note" : "credit_note",
    amount_minor: c.amount_minor,
    currency: o.currency,
    status,
    recoverable: o.recoverable,
    reason: c.reason,
    evidence_path: c.evidence_path ?? null,
    source_event: `${debit ? "debit_note" : "credit_note"}.issued:${reference}`,
    corrects: o.reference,
    corrects_kind: o.kind,
    shipment: o.shipment,
    created_at: ctx.now,
  });
  const isPosted = status === "posted";
  return posted(
    [{
      kind: "entry_posted",
      entry,
      effect: isPosted ? chargeEffect(mode, c.amount_minor, o.recoverable) : NO_EFFECT,
      invoiceable: isPosted && mode === "credit",
      by: c.by,
      seen_seq: c.seen_seq,
    }],
    entry,
    [],
  );
}

type CodCollected = Extract<LedgerCommand, { kind: "cod_collected" }>;

function codCollected(state: CourierClient, c: CodCollected, now: number): LedgerDecision {
  if (badAmount(c.amount_minor)) return reject("invalid_amount", "COD must be above zero");
  if (c.currency !== state.settings.billing_currency) return currencyMismatch(state, c.currency);
  if (badText(c.waybill, REFERENCE_CHARS_MAX)) {
    return reject("invalid_reference", `a waybill has 1 to ${REFERENCE_CHARS_MAX} characters`);
  }
  if (state.ledger.cod.some((x) => x.waybill === c.waybill)) {
    return reject("cod_already_collected", `COD already awaits remittance: ${c.waybill}`);
  }
  if (state.ledger.cod.length >= COD_AWAITING_MAX) {
    return reject(
      "cod_awaiting_limit",
      `too much COD awaits remittance; confirm some first: ${state.ledger.cod.length}`,
    );
  }
  const cod: CodAwaiting = {
    waybill: c.waybill,
    amount_minor: c.amount_minor,
    currency: c.currency,
    collected_at: now,
  };
  return accept<S, LedgerEvent, LedgerReply>(
    [{ kind: "cod_collected", ...cod, by: c.by }],
    () => ({ cod }),
  );
}

type CodRemitted = Extract<LedgerCommand, { kind: "cod_remitted" }>;

/** spec: courier 2.6 rule 6: COD reduces what the client owes only once remitted. */
function codRemitted(state: CourierClient, c: CodRemitted, now: number): LedgerDecision {
  const cod = state.ledger.cod.find((x) => x.waybill === c.waybill);
  if (!cod) return reject("cod_not_collected", `waybill: no COD awaits remittance: ${c.waybill}`);
  if (badText(c.evidence_path, TEXT_CHARS_MAX)) {
    return reject("evidence_required", `remitted COD needs evidence: ${c.waybill}`);
  }
  const mode = state.settings.settlement_mode;
  const split = mode === "credit"
    ? allocate(state.ledger.invoices, cod.currency, cod.amount_minor, [])
    : { ok: true as const, allocations: [], rest: 0 };
  if (!split.ok) return reject(split.code, split.message);
  const entry = entryOf({
    reference: `cod:${c.waybill}`,
    seq: state.ledger.seq + 1,
    kind: "cod_remitted",
    amount_minor: -cod.amount_minor,
    currency: cod.currency,
    status: statusFor(mode),
    evidence_path: c.evidence_path,
    source_event: `cod.remitted:${c.waybill}`,
    shipment: c.waybill,
    reason: "cash on delivery remitted",
    created_at: now,
  });
  return posted(
    [{
      kind: "cod_remitted",
      entry,
      effect: receiptEffect(
        mode,
        balancesIn(state, cod.currency),
        cod.amount_minor,
        dutiesAllocated(state.ledger.invoices, split.allocations),
        split.rest,
      ),
      allocations: split.allocations,
      unallocated_minor: split.rest,
      by: c.by,
    }],
    entry,
    split.allocations,
  );
}

type IssueInvoice = Extract<LedgerCommand, { kind: "issue_invoice" }>;

/** spec: courier 4.2: one invoice per currency; 2.6 rule 5: later entries go on a supplementary. */
function issueInvoice(state: CourierClient, c: IssueInvoice, ctx: Ctx): LedgerDecision {
  if (!isPeriod(c.period)) return reject("invalid_period", `a period is YYYY-MM: ${c.period}`);
  if (state.settings.settlement_mode === "external") return receivableRefusal(state, "invoice")!;
  const book = state.ledger;
  const due = Object.keys(book.periods)
    .filter((k) => k.startsWith(`${c.period}|`) && book.periods[k]!.count > 0)
    .sort();
  if (due.length === 0) {
    const prepaid = state.settings.settlement_mode === "prepaid"
      ? " (a prepaid account settles from its funds)"
      : "";
    return reject("nothing_to_invoice", `no uninvoiced entries in ${c.period}${prepaid}`);
  }
  // spec: courier 2.6 rule 5: a credit (supplementary) invoice is settled at issue and opens
  // nothing, so only the invoices that will be owed count toward the bound.
  const open = book.invoices.filter(isOpen).length;
  const opening = due.filter((k) => book.periods[k]!.uninvoiced_minor > 0).length;
  if (open + opening > OPEN_INVOICES_MAX) {
    return reject(
      "open_invoices_limit",
      `too many open invoices; collect before invoicing more: ${open} open, max ${OPEN_INVOICES_MAX}`,
    );
  }
  const issued: Invoice[] = due.map((key) => {
    const p = book.periods[key]!;
    const currency = key.slice(key.indexOf("|") + 1);
    return {
      id: ctx.newId("inv"),
      period: c.period,
      currency,
      amount_minor: p.uninvoiced_minor,
      // A credit invoice (amount <= 0) is settled at issue: its credit goes on account.
      paid_minor: Math.min(p.uninvoiced_minor, 0),
      supplementary: p.invoices > 0 || (c.invoiced_currencies ?? []).includes(currency),
      issued_at: ctx.now,
      due_on: dueOn(ctx.now, state.settings.payment_days),
      watermark: p.watermark,
      entries: p.count,
      // spec: courier 2.6: the duties on it, kept apart from charges (unknown on older totals).
      ...(p.recoverable_minor === undefined ? {} : { recoverable_minor: p.recoverable_minor }),
    };
  });
  // spec: courier 4.2: credit on account, with what credit invoices add to it, pays the open
  // invoices oldest first, the new ones too; 2.6 rule 5: only settlement changes, never lines.
  const earlier: Allocation[] = [];
  const recovered: Record<string, number> = {};
  const fresh = new Set(issued.map((i) => i.id));
  let invoices = issued;
  for (const currency of new Set(issued.map((i) => i.currency))) {
    const credit = (book.unallocated[currency] ?? 0) -
      issued.reduce((n, i) => i.currency === currency ? n + i.paid_minor : n, 0);
    if (credit <= 0) continue;
    const split = allocate([...book.invoices, ...invoices], currency, credit, []);
    if (!split.ok) return reject(split.code, split.message);
    // spec: courier 2.6: the duties the credit paid are recovered (see dutiesRecoveredEffect).
    const duties = dutiesAllocated([...book.invoices, ...invoices], split.allocations);
    if (duties > 0) recovered[currency] = duties;
    const paid = new Map(split.allocations.map((a) => [a.invoice_id, a.paid_minor]));
    invoices = invoices.map((i) => ({ ...i, paid_minor: paid.get(i.id) ?? i.paid_minor }));
    earlier.push(...split.allocations.filter((a) => !fresh.has(a.invoice_id)));
  }
  return accept<S, LedgerEvent, LedgerReply>(
    [{
      kind: "invoices_issued",
      invoices,
      ...(earlier.length > 0 ? { allocations: earlier } : {}),
      ...(Object.keys(recovered).length > 0 ? { duties_recovered: recovered } : {}),
      by: c.by,
    }],
    (next) => ({ invoices, balances: accountBalances(next!) }),
  );
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

export function evolveLedger(state: CourierClient, event: LedgerEvent): CourierClient {
  switch (event.kind) {
    case "entry_posted": {
      const s = withEffect(state, event.entry.currency, event.effect);
      const ledger = bookEntry(s.ledger, event.entry, event.invoiceable);
      return { ...s, ledger: withNoteInFlight(ledger, event) };
    }
    case "fx_resolved": {
      const s = withEffect(state, event.resolution.currency, event.effect);
      const r = event.resolution;
      const rest = s.ledger.unresolved.filter((u) => u.reference !== r.reference);
      const entry = entryOf(r);
      return {
        ...s,
        ledger: bookEntry({ ...s.ledger, unresolved: rest }, entry, event.invoiceable),
      };
    }
    case "payment_received":
    case "cod_remitted": {
      const s = withEffect(state, event.entry.currency, event.effect);
      const e = event.entry;
      const cod = event.kind === "cod_remitted"
        ? s.ledger.cod.filter((x) => x.waybill !== e.shipment)
        : s.ledger.cod;
      const book = bookEntry({ ...s.ledger, cod }, e, false);
      return {
        ...s,
        ledger: bookReceipt(book, e.currency, event.allocations, event.unallocated_minor),
      };
    }
    case "cod_collected":
      return {
        ...state,
        ledger: {
          ...state.ledger,
          cod: [...state.ledger.cod, {
            waybill: event.waybill,
            amount_minor: event.amount_minor,
            currency: event.currency,
            collected_at: event.collected_at,
          }],
        },
      };
    case "invoices_issued": {
      let s = state;
      for (const [currency, duties] of Object.entries(event.duties_recovered ?? {})) {
        s = withEffect(s, currency, dutiesRecoveredEffect(balancesIn(s, currency), duties));
      }
      return { ...s, ledger: bookInvoices(s.ledger, event.invoices, event.allocations ?? []) };
    }
    default:
      return unreachable(event);
  }
}

/** A note judged against Postgres' watermark waits in state until Postgres is seen holding it. */
function withNoteInFlight(
  book: LedgerBook,
  event: Extract<LedgerEvent, { kind: "entry_posted" }>,
): LedgerBook {
  const e = event.entry;
  if (event.seen_seq === undefined || e.corrects === null || !e.corrects_kind) return book;
  const notes = notesSeen(book.notes ?? NO_NOTES_IN_FLIGHT, event.seen_seq);
  const note = {
    corrects: e.corrects,
    corrects_kind: e.corrects_kind,
    seq: e.seq,
    amount_minor: e.amount_minor,
    shipment: e.shipment,
  };
  return { ...book, notes: { ...notes, pending: [...notes.pending, note] } };
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
