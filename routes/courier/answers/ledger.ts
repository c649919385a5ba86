/**
 * The client account in answers (courier 2.6, 4.2): a ledger entry, balances in the billing
 * currency and in others, credit, ageing, invoices, COD awaiting remittance and conversions
 * awaiting a rate, with the views that fill them from the account. The courier's billing view,
 * its billing actions and the client's own account show them alike. Amounts are decimals in
 * their currency.
 */
import type { CourierClient } from "../../../actors/courier/courier_client.ts";
import {
  type AccountBalances,
  accountBalances,
  type OtherCurrencyBalances,
} from "../../../actors/courier/client_ledger.ts";
import {
  ageing,
  AGEING_BUCKETS,
  balanceOf,
  daysPastDue,
  ENTRY_KINDS,
  ENTRY_STATUSES,
  type Invoice,
  isOpen,
  isPeriod,
  type LedgerBook,
  type LedgerEntry,
} from "../../../src/courier/rules/ledger.ts";
import { creditUsed } from "../../../src/courier/rules/settlement.ts";
import { decimal } from "../../../src/domain/money.ts";
import { iso } from "../../../src/domain/iso.ts";
import { z } from "../../../src/http/route.ts";
import { CalendarDay, Currency, Money, orNull, UtcInstant } from "../../../src/http/schemas.ts";

/** A period of the ledger: a month, YYYY-MM (UTC). */
export const Period = z.string().refine(isPeriod, "a period is YYYY-MM")
  .openapi({ pattern: "^[0-9]{4}-(0[1-9]|1[0-2])$", example: "2026-11" });
export const EntryKindName = z.enum(ENTRY_KINDS);

/** Amounts owed by days past due (courier 4.2), in the currency of the object holding it. */
export const AgeingAnswer = z.object({
  current: Money,
  "1-30": Money,
  "31-60": Money,
  "61-90": Money,
  "90+": Money,
  credit: Money.openapi({
    description: "Held for the client beyond what it owes (prepaid funds, payments and credit " +
      "notes nothing owed took): the buckets less this are `owed`",
  }),
}).openapi("Ageing");

/** An account's balances in one currency (balancesView, otherCurrencyView). */
export const AccountBalancesAnswer = z.object({
  prepaid: Money.openapi({ description: "Prepaid funds not yet used" }),
  receivable: Money.openapi({ description: "Charged and not yet paid" }),
  recoverable_duties: Money.openapi({
    description: "Duties paid on the client's behalf, not yet recovered (not revenue)",
  }),
  unallocated_credit: Money.openapi({
    description: "Credit on account no invoice took yet: payments, remitted COD and issued " +
      "credit invoices (a credit note counts in receivable until it is invoiced)",
  }),
  owed: Money.openapi({
    description: "What the client owes in all (receivable + recoverable_duties - prepaid): " +
      "the sum of its posted entries; negative when funds are held for it",
  }),
}).openapi("AccountBalances");

/** spec: courier 2.6 rule 4: balances in a currency other than the billing currency. */
export const OtherCurrencyAnswer = z.object({
  currency: Currency,
  balances: AccountBalancesAnswer,
  ageing: orNull(AgeingAnswer).openapi({ description: "null for external settlement" }),
}).openapi("OtherCurrencyBalances");

/** spec: courier 4.2: an invoice (invoiceView). */
export const InvoiceAnswer = z.object({
  id: z.string(),
  period: Period,
  currency: Currency,
  amount: Money,
  paid: Money.openapi({ description: "0 on a credit invoice (negative amount)" }),
  credited_to_account: Money.openapi({
    description: "A credit invoice's credit, moved to the account at issue; 0 on others",
  }),
  recoverable_duties: Money.nullable().openapi({
    description: "Of amount, the duties paid on the client's behalf: recoverable, not revenue; " +
      "paid after the invoice's charges. null on invoices issued before it was kept",
  }),
  balance: Money.openapi({ description: "What is still to pay, never below 0" }),
  status: z.enum(["open", "settled"]),
  supplementary: z.boolean().openapi({
    description: "Entries posted after an earlier invoice of the same period and currency",
  }),
  issued_at: UtcInstant,
  due_on: CalendarDay,
  days_past_due: z.number().int().nonnegative().openapi({ description: "0 once settled" }),
}).openapi("Invoice");

export const CreditAnswer = z.object({
  limit: Money,
  used: Money.openapi({ description: "Charged and unpaid, recoverable duties included" }),
  available: Money.openapi({ description: "What the credit line covers now, never below 0" }),
}).openapi("CreditLine");

/** spec: courier 2.6 rule 6: cash collected on delivery, owed less only once remitted. */
export const CodAwaitingRemittanceAnswer = z.object({
  waybill: z.string(),
  amount: Money,
  currency: Currency,
  collected_at: UtcInstant,
}).openapi("CodAwaitingRemittance");

/** spec: courier 2.6 rule 4: a charge with no FX rate yet, left out of every balance. */
export const UnresolvedConversionAnswer = z.object({
  reference: z.string(),
  kind: EntryKindName,
  amount: Money.openapi({ description: "In the charge's own currency, awaiting its FX rate" }),
  currency: Currency,
  period: Period,
  created_at: UtcInstant,
}).openapi("UnresolvedConversion");

/** spec: courier 2.6: a ledger entry's fields (entryView). */
export const LedgerEntryFields = {
  reference: z.string(),
  kind: EntryKindName,
  amount: Money.openapi({ description: "Signed: positive is owed by the client" }),
  currency: Currency,
  status: z.enum(ENTRY_STATUSES),
  payer: z.literal("client"),
  recoverable: z.boolean().openapi({ description: "Duties recovered, never revenue" }),
  reason: z.string().nullable(),
  evidence_path: z.string().nullable(),
  source_event: z.string().nullable(),
  original_amount: Money.nullable().openapi({
    description: "A converted charge: its amount in original_currency",
  }),
  original_currency: Currency.nullable(),
  fx_rate: z.string().nullable().openapi({
    description: "Exact decimal text",
    example: "0.7525",
  }),
  fx_source: z.string().nullable(),
  corrects: z.string().nullable().openapi({
    description: "A debit or credit note: the reference of the entry it corrects",
  }),
  shipment: z.string().nullable().openapi({ description: "The waybill, if any" }),
  period: Period,
  created_at: UtcInstant.openapi({ description: "When it was booked" }),
  charged_at: UtcInstant.nullable().openapi({
    description:
      "When the charge arose, if booked later (a conversion resolved); null: at created_at",
  }),
};

/** spec: courier 2.6: the entry a billing action posted (entryView). */
export const LedgerEntryAnswer = z.object(LedgerEntryFields).openapi("LedgerEntry");

/** What the billing view and the client's own account show from the actor's state. */
export function accountView(account: CourierClient, now: number) {
  const cur = account.settings.billing_currency;
  const mode = account.settings.settlement_mode;
  const book = account.ledger;
  const balances = accountBalances(account);
  return {
    client_id: account.id,
    ...balancesView(balances),
    ageing: mode === "external" ? null : ageingView(book, cur, now, balances),
    cod_awaiting_remittance: book.cod.map((x) => ({
      waybill: x.waybill,
      amount: decimal(x.amount_minor, x.currency),
      currency: x.currency,
      collected_at: new Date(x.collected_at).toISOString(),
    })),
    unresolved_conversions: book.unresolved.map((u) => ({
      reference: u.reference,
      kind: u.kind,
      amount: decimal(u.amount_minor, u.currency),
      currency: u.currency,
      period: u.period,
      created_at: new Date(u.created_at).toISOString(),
    })),
    invoices: [...book.invoices].reverse().map((i) => invoiceView(i, now)),
    // Each other currency's balances with their ageing, reckoned apart (courier 2.6 rule 4).
    other_currencies: (balances.other_currencies ?? []).map((o) => ({
      ...otherCurrencyView(o),
      ageing: mode === "external" ? null : ageingView(book, o.currency, now, o),
    })),
  };
}

/**
 * What is owed by days past due (courier 4.2), and `credit`: what is held for the client beyond
 * it (prepaid funds, payments and credit notes nothing owed took). The buckets less `credit` are
 * `owed`, so a client in credit no longer shows five zeros beside a negative `owed`.
 */
function ageingView(
  book: LedgerBook,
  currency: string,
  now: number,
  b: { readonly prepaid_minor: number; readonly owed_minor: number },
) {
  const aged = ageing(book, currency, now, b.prepaid_minor);
  return {
    ...Object.fromEntries(AGEING_BUCKETS.map((k) => [k, decimal(aged[k], currency)])),
    credit: decimal(Math.max(-b.owed_minor, 0), currency),
  };
}

/**
 * An account's balances in a currency other than its billing currency: notes on entries from
 * before the billing currency changed post there (courier 2.6 rule 5). They are never converted
 * (rule 4), so they neither use nor free the credit limit, and funds there pay for no booking.
 */
export function otherCurrencyView(o: OtherCurrencyBalances) {
  const cur = o.currency;
  return {
    currency: cur,
    balances: {
      prepaid: decimal(o.prepaid_minor, cur),
      receivable: decimal(o.receivable_minor, cur),
      recoverable_duties: decimal(o.recoverable_minor, cur),
      unallocated_credit: decimal(o.unallocated_minor, cur),
      owed: decimal(o.owed_minor, cur),
    },
  };
}

export function balancesView(b: AccountBalances) {
  const cur = b.currency;
  return {
    settlement_mode: b.settlement_mode,
    currency: cur,
    balances: {
      prepaid: decimal(b.prepaid_minor, cur),
      receivable: decimal(b.receivable_minor, cur),
      recoverable_duties: decimal(b.recoverable_minor, cur),
      unallocated_credit: decimal(b.unallocated_minor, cur),
      owed: decimal(b.owed_minor, cur),
    },
    credit: b.settlement_mode === "credit"
      ? {
        limit: decimal(b.credit_limit_minor, cur),
        used: decimal(creditUsed(b), cur),
        available: decimal(b.available_minor ?? 0, cur),
      }
      : null,
  };
}

export function invoiceView(i: Invoice, now: number) {
  const open = isOpen(i);
  return {
    id: i.id,
    period: i.period,
    currency: i.currency,
    amount: decimal(i.amount_minor, i.currency),
    // A credit invoice (amount below zero) is settled at issue by moving its credit to the
    // account, where it pays open invoices: nothing was paid on it (the book keeps paid = amount).
    paid: decimal(Math.max(i.paid_minor, 0), i.currency),
    credited_to_account: decimal(Math.max(-i.amount_minor, 0), i.currency),
    // spec: courier 2.6: duties recoverable, kept apart from charges (not revenue).
    recoverable_duties: i.recoverable_minor === undefined
      ? null
      : decimal(i.recoverable_minor, i.currency),
    balance: decimal(Math.max(balanceOf(i), 0), i.currency),
    status: open ? "open" : "settled",
    supplementary: i.supplementary,
    issued_at: new Date(i.issued_at).toISOString(),
    due_on: i.due_on,
    days_past_due: open ? Math.max(daysPastDue(i.due_on, now), 0) : 0,
  };
}

export function entryView(e: LedgerEntry) {
  return {
    reference: e.reference,
    kind: e.kind,
    amount: decimal(e.amount_minor, e.currency),
    currency: e.currency,
    status: e.status,
    payer: e.payer,
    recoverable: e.recoverable,
    reason: e.reason,
    evidence_path: e.evidence_path,
    source_event: e.source_event,
    original_amount: e.original_amount_minor === null || e.original_currency === null
      ? null
      : decimal(e.original_amount_minor, e.original_currency),
    original_currency: e.original_currency,
    fx_rate: e.fx_rate,
    fx_source: e.fx_source,
    corrects: e.corrects,
    shipment: e.shipment,
    period: e.period,
    created_at: new Date(e.created_at).toISOString(),
    // spec: courier 2.6 rule 4: a conversion resolved later is booked then (created_at, period);
    // this says when the charge arose. Null: it arose at created_at.
    charged_at: iso(e.charged_at),
  };
}
