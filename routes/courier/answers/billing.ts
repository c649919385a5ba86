/**
 * Client billing in answers (courier 2.6, 4.2): what each billing action answers (the entry it
 * posted with the balances after it, 201 or the 200 replay), the invoices issued, and the
 * courier's billing view with its statement and payments. Amounts are decimals in their currency.
 */
import type { AccountBalances, FxResolution } from "../../../actors/courier/client_ledger.ts";
import type { asPosting } from "../../../actors/courier/courier_client.ts";
import { OUTBOUND_STATUSES } from "../../../actors/platform/outbound_event/mod.ts";
import type { Invoice } from "../../../src/courier/rules/ledger.ts";
import type { ClientBilling } from "../../../src/courier/flows/billing/view.ts";
import type { CodRecorded } from "../../../src/courier/flows/billing/cod.ts";
import {
  type PaymentListed,
  PAYMENTS_LISTED_MAX,
  type Statement,
  STATEMENT_ENTRIES_MAX,
} from "../../../src/courier/queries/statement.ts";
import { EXPORT_STATES } from "../../../src/platform/rules/export_state.ts";
import { decimal } from "../../../src/domain/money.ts";
import { iso } from "../../../src/domain/iso.ts";
import { z } from "../../../src/http/route.ts";
import { Currency, Money, orNull, UtcInstant } from "../../../src/http/schemas.ts";
import { Settlement } from "./schemas.ts";
import {
  AccountBalancesAnswer,
  accountView,
  AgeingAnswer,
  balancesView,
  CodAwaitingRemittanceAnswer,
  CreditAnswer,
  entryView,
  InvoiceAnswer,
  invoiceView,
  LedgerEntryAnswer,
  LedgerEntryFields,
  OtherCurrencyAnswer,
  otherCurrencyView,
  Period,
  UnresolvedConversionAnswer,
} from "./ledger.ts";

/** The account's balances after a billing action (balancesAnswer). */
const BalancesAfterAnswer = z.object({
  settlement_mode: Settlement,
  currency: Currency.openapi({ description: "The billing currency" }),
  balances: AccountBalancesAnswer,
  credit: orNull(CreditAnswer).openapi({ description: "Credit settlement only, else null" }),
  other_currencies: z.array(
    z.object({ currency: Currency, balances: AccountBalancesAnswer }).openapi(
      "OtherCurrencyBalancesAfter",
    ),
  ),
}).openapi("BalancesAfter");

const Replayed = z.boolean().openapi({
  description: "true: the same action again, answered with what the first one did (200)",
});

/** correct and cod-remitted (postingAnswer). */
export const PostingAnswer = z.object({
  replayed: Replayed,
  entry: LedgerEntryAnswer,
  balances: BalancesAfterAnswer,
}).openapi("Posting");

export const TopUpAnswer = z.object({
  reference: z.string(),
  replayed: Replayed,
  balance: Money.openapi({ description: "Prepaid funds in the top-up's currency after it" }),
  available: Money.openapi({
    description: "What bookings can spend now; 0 for funds in a currency other than the " +
      "billing currency, which pay for no booking",
  }),
  currency: Currency,
  entry: LedgerEntryAnswer,
}).openapi("TopUp");

export const PaymentAnswer = z.object({
  replayed: Replayed,
  entry: LedgerEntryAnswer,
  allocations: z.array(z.object({ invoice_id: z.string(), amount: Money })).openapi({
    description: "The invoices the payment went to: those named, then the oldest open ones",
  }),
  unallocated: Money.openapi({ description: "What no invoice took: credit on account" }),
  currency: Currency.openapi({ description: "Of the payment, its allocations and unallocated" }),
  balances: BalancesAfterAnswer,
}).openapi("PaymentPosted");

export const CodCollectedAnswer = z.object({
  waybill: z.string(),
  client_id: z.string(),
  amount: Money,
  currency: Currency,
  replayed: Replayed,
}).openapi("CodCollected");

export const FxResolvedAnswer = z.object({
  replayed: Replayed,
  reference: z.string(),
  amount: Money.openapi({ description: "In the billing currency, at the rate given" }),
  currency: Currency,
  status: z.enum(["posted", "external"]),
  original_amount: Money,
  original_currency: Currency,
  fx_rate: z.string().openapi({ description: "Exact decimal text", example: "0.7525" }),
  fx_source: z.string(),
  period: Period.openapi({ description: "Booked now: this period's" }),
  created_at: UtcInstant,
  charged_at: UtcInstant.nullable().openapi({ description: "When the charge arose" }),
  balances: BalancesAfterAnswer,
}).openapi("FxResolved");

export const InvoicesIssuedAnswer = z.object({
  replayed: Replayed,
  invoices: z.array(InvoiceAnswer).openapi({ description: "One per currency with entries" }),
  balances: BalancesAfterAnswer,
}).openapi("InvoicesIssued");

/** GET /business/courier/clients/{client}/billing: accountView, a statement and payments. */
export const ClientBillingAnswer = z.object({
  client_id: z.string(),
  settlement_mode: Settlement,
  currency: Currency.openapi({ description: "The billing currency" }),
  balances: AccountBalancesAnswer,
  credit: orNull(CreditAnswer).openapi({ description: "Credit settlement only, else null" }),
  ageing: orNull(AgeingAnswer).openapi({ description: "null for external settlement" }),
  cod_awaiting_remittance: z.array(CodAwaitingRemittanceAnswer),
  unresolved_conversions: z.array(UnresolvedConversionAnswer),
  invoices: z.array(InvoiceAnswer).openapi({
    description: "Open invoices and the latest settled ones, newest first",
  }),
  other_currencies: z.array(OtherCurrencyAnswer),
  statement: z.object({
    period: Period,
    entries: z.array(
      z.object({
        ...LedgerEntryFields,
        invoice_id: z.string().nullable(),
        export_state: z.enum(EXPORT_STATES),
        event_state: z.enum(OUTBOUND_STATUSES).nullable().openapi({
          description: "Delivery of the entry's billing event; null when it has none",
        }),
        external_reference: z.string().nullable().openapi({
          description: "The reference the courier's system reported with export_state",
        }),
      }).openapi("StatementEntry"),
    ).openapi({
      description: `In the order they reached the account, at most ${STATEMENT_ENTRIES_MAX}`,
    }),
    truncated: z.boolean().openapi({
      description: `true: the period has more than ${STATEMENT_ENTRIES_MAX} entries`,
    }),
    totals: z.array(z.object({
      currency: Currency,
      opening_balance: Money,
      charges: Money.openapi({ description: "Revenue: charges and notes, duties apart" }),
      recoverable_duties: Money,
      received: Money.openapi({ description: "Top-ups, payments and remitted COD (negative)" }),
      net: Money,
      closing_balance: Money,
    })).openapi({ description: "Posted entries only, one row per currency" }),
  }).openapi("Statement"),
  payments: z.array(
    z.object({
      reference: z.string(),
      amount: Money,
      currency: Currency,
      received_at: UtcInstant,
      allocations: z.array(z.object({ invoice_id: z.string(), amount: Money })).nullable().openapi({
        description: "By invoice; null when not known (projected before allocations were kept)",
      }),
    }).openapi("Payment"),
  ).openapi({
    description: `The latest ${PAYMENTS_LISTED_MAX}, newest first`,
  }),
}).openapi("ClientBilling");

/** The other currencies' balances a billing action's answer carries with the billing ones. */
export function balancesAnswer(b: AccountBalances) {
  return {
    ...balancesView(b),
    other_currencies: (b.other_currencies ?? []).map(otherCurrencyView),
  };
}

type Posting = ReturnType<typeof asPosting>;

/** correct and cod-remitted: the entry posted and the balances after it. */
export function postingView(posting: Posting, replayed: boolean) {
  return {
    replayed,
    entry: entryView(posting.entry),
    balances: balancesAnswer(posting.balances),
  };
}

/** A top-up and the funds it left in its currency. */
export function topUpView(reference: string, posting: Posting, replayed: boolean) {
  const b = posting.balances;
  // A top-up in another currency settles what is owed in it: its funds there are the balance,
  // and they pay for no booking (priced in the billing currency), so nothing is available.
  const cur = posting.entry.currency;
  const other = b.other_currencies?.find((o) => o.currency === cur);
  const billing = cur === b.currency;
  return {
    reference,
    replayed,
    balance: decimal(billing ? b.prepaid_minor : other?.prepaid_minor ?? 0, cur),
    available: decimal(billing ? b.available_minor ?? 0 : 0, cur),
    currency: cur,
    entry: entryView(posting.entry),
  };
}

/** A payment, the invoices it went to and what no invoice took. */
export function paymentView(posting: Posting, replayed: boolean) {
  const cur = posting.entry.currency;
  const allocated = posting.allocations.reduce((n, a) => n + a.amount_minor, 0);
  return {
    replayed,
    entry: entryView(posting.entry),
    allocations: posting.allocations.map((a) => ({
      invoice_id: a.invoice_id,
      amount: decimal(a.amount_minor, cur),
    })),
    unallocated: decimal(-posting.entry.amount_minor - allocated, cur),
    // The currency of the payment, its allocations and what is left unallocated.
    currency: cur,
    balances: balancesAnswer(posting.balances),
  };
}

export function codCollectedView(r: CodRecorded) {
  return {
    waybill: r.waybill,
    client_id: r.client_id,
    amount: decimal(r.cod.amount_minor, r.cod.currency),
    currency: r.cod.currency,
    replayed: r.replayed,
  };
}

export function fxResolvedView(
  resolved: FxResolution,
  balances: AccountBalances,
  replayed: boolean,
) {
  return {
    replayed,
    reference: resolved.reference,
    amount: decimal(resolved.amount_minor, resolved.currency),
    currency: resolved.currency,
    status: resolved.status,
    original_amount: decimal(resolved.original_amount_minor, resolved.original_currency),
    original_currency: resolved.original_currency,
    fx_rate: resolved.fx_rate,
    fx_source: resolved.fx_source,
    // spec: courier 2.6 rule 4, 3.1: booked now, in this period and export range.
    period: resolved.period,
    created_at: iso(resolved.created_at),
    charged_at: iso(resolved.charged_at),
    balances: balancesAnswer(balances),
  };
}

export function invoicesIssuedView(
  issued: { readonly invoices: readonly Invoice[]; readonly balances: AccountBalances },
  now: number,
  replayed: boolean,
) {
  return {
    replayed,
    invoices: issued.invoices.map((i) => invoiceView(i, now)),
    balances: balancesAnswer(issued.balances),
  };
}

/** The courier's billing view of a client: the account, a statement and payments. */
export function clientBillingView(b: ClientBilling) {
  return {
    ...accountView(b.account, b.now),
    statement: statementView(b.statement),
    payments: b.payments.map(paymentListedView),
  };
}

function statementView(s: Statement) {
  return {
    period: s.period,
    entries: s.entries.map((e) => ({
      ...entryView(e.entry),
      invoice_id: e.invoice_id,
      export_state: e.export_state,
      event_state: e.event_state,
      external_reference: e.external_reference,
    })),
    truncated: s.truncated,
    // Revenue and recovered duties apart (courier 2.6 recoverable), posted entries only; the
    // balance the client owes (negative: held for it) before and after the period's entries.
    totals: s.totals.map((t) => {
      const net = t.charges_minor + t.recoverable_minor + t.received_minor;
      return {
        currency: t.currency,
        opening_balance: decimal(t.opening_minor, t.currency),
        charges: decimal(t.charges_minor, t.currency),
        recoverable_duties: decimal(t.recoverable_minor, t.currency),
        received: decimal(t.received_minor, t.currency),
        net: decimal(net, t.currency),
        closing_balance: decimal(t.opening_minor + net, t.currency),
      };
    }),
  };
}

function paymentListedView(p: PaymentListed) {
  return {
    reference: p.reference,
    amount: decimal(p.amount_minor, p.currency),
    currency: p.currency,
    received_at: p.received_at.toISOString(),
    // spec: courier 4.2: a payment is allocated by invoice; null when not known (projected
    // before allocations were kept).
    allocations: p.allocations === null ? null : p.allocations.map((a) => ({
      invoice_id: a.invoice_id,
      amount: decimal(a.amount_minor, p.currency),
    })),
  };
}
