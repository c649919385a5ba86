/** Invoices (courier 4.2; 2.6 rule 5): one per currency, later entries on a supplementary. */
import { accept, type Ctx, reject } from "../../../src/runtime/actor.ts";
import {
  allocate,
  type Allocation,
  dueOn,
  dutiesAllocated,
  type Invoice,
  isOpen,
  isPeriod,
  type LedgerBook,
  OPEN_INVOICES_MAX,
  periodOf,
} from "../../../src/courier/rules/ledger.ts";
import type { CourierClient } from "../courier_client/state.ts";
import type { LedgerCommand, LedgerEvent, LedgerReply } from "./messages.ts";
import { accountBalances } from "./balances.ts";
import { type LedgerDecision, receivableRefusal, type S } from "./decisions.ts";

type IssueInvoice = Extract<LedgerCommand, { kind: "issue_invoice" }>;

/** spec: courier 4.2: one invoice per currency; 2.6 rule 5: later entries go on a supplementary. */
export function issueInvoice(state: CourierClient, c: IssueInvoice, ctx: Ctx): LedgerDecision {
  if (!isPeriod(c.period)) return reject("invalid_period", `a period is YYYY-MM: ${c.period}`);
  // spec: courier 4.2: a period not yet begun is bad input, not a period with nothing in it
  // (YYYY-MM text sorts as time does).
  const current = periodOf(ctx.now);
  if (c.period > current) {
    const message = `must not be after the current month ${current}: ${c.period}`;
    return reject("validation_failed", `invalid request: period: ${message}`, {
      errors: [{ path: "period", message }],
    });
  }
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
  const settled = creditApplied(book, issued);
  if ("ok" in settled) return settled;
  const { invoices, earlier, recovered } = settled;
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

/**
 * spec: courier 4.2: credit on account, with what credit invoices add to it, pays the open
 * invoices oldest first, the new ones too; 2.6 rule 5: only settlement changes, never lines.
 * Answers the new invoices as paid, what the credit paid of earlier ones, and the duties it
 * recovered by currency.
 */
function creditApplied(book: LedgerBook, issued: readonly Invoice[]) {
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
  return { invoices, earlier, recovered };
}
