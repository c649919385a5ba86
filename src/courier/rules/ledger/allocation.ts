/** Money received allocated to open invoices (courier 4.2 payment allocations). */
import { formatMinor } from "../../../domain/money.ts";
import { type Allocation, balanceOf, type Invoice, isOpen } from "./book.ts";

export type Allocated =
  | { readonly ok: true; readonly allocations: Allocation[]; readonly rest: number }
  | {
    readonly ok: false;
    readonly code: string;
    readonly message: string;
    /** The allocation refused as naming an invoice the account does not keep. */
    readonly unknown?: { readonly field: string; readonly invoice_id: string };
  };

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
  const held = new Set(invoices.map((i) => i.id));
  for (const [i, r] of requested.entries()) {
    // An invoice the client does not hold (another client's or courier's, or none) answers as an
    // id nobody holds: nobody learns it exists (courier 5 rule 4: own billing only).
    if (!held.has(r.invoice_id)) {
      const field = `allocations.${i}.invoice_id`;
      return refuse("not_found", `${field}: no such invoice: ${r.invoice_id}`, {
        field,
        invoice_id: r.invoice_id,
      });
    }
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

function refuse(
  code: string,
  message: string,
  unknown?: { readonly field: string; readonly invoice_id: string },
): Allocated {
  return { ok: false, code, message, ...(unknown ? { unknown } : {}) };
}
