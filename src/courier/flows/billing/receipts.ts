/**
 * Money a client sends (courier 4.2 `top-up`, `payment`): a ledger entry each (2.6), in the
 * billing currency or in another while the client owes in it; a reference credits or pays once.
 */
import { asPosting } from "../../../../actors/courier/courier_client.ts";
import { entryAsk } from "../../../../actors/courier/client_ledger.ts";
import { formatMinor } from "../../../domain/money.ts";
import { refuse, Refused } from "../../../runtime/actor.ts";
import { isInvoiceOf } from "../../queries/invoices.ts";
import type { Deps } from "../../../environment.ts";
import { askAccount, assertSameFacts, type BillingCaller, minorOf } from "./account.ts";

/** A top-up as sent: a decimal amount. */
export interface TopUpInput {
  readonly amount: number | string;
  readonly currency: string;
  readonly reference: string;
}

/** Credits a prepaid client's funds once per reference (spec: courier 2.6 rule 2, 4.2). */
export async function topUp(
  deps: Pick<Deps, "runtime">,
  caller: BillingCaller,
  client: string,
  input: TopUpInput,
) {
  const amount = minorOf(input.amount, input.currency, "amount", "positive");
  const r = await askAccount(deps.runtime, caller.courier, client, {
    kind: "top_up",
    amount_minor: amount,
    currency: input.currency,
    reference: input.reference,
    by: caller.by,
  }, entryAsk(`top_up:${input.reference}`));
  assertSameFacts(r, input.reference, { amount_minor: -amount, currency: input.currency });
  return { posting: asPosting(r.reply), replayed: r.replayed };
}

/** A payment as sent: decimal amounts, allocations by invoice id. */
export interface PaymentInput extends TopUpInput {
  readonly allocations?: readonly Allocated[] | undefined;
}

/** An allocation as sent: the invoice and a decimal amount of it. */
export interface Allocated {
  readonly invoice_id: string;
  readonly amount: number | string;
}

/** Records a credit client's payment, allocated to invoices; a reference pays once (4.2). */
export async function recordPayment(
  deps: Pick<Deps, "runtime" | "db">,
  caller: BillingCaller,
  client: string,
  input: PaymentInput,
) {
  const amount = minorOf(input.amount, input.currency, "amount", "positive");
  const sent = (input.allocations ?? []).map((a, i) => ({
    invoice_id: a.invoice_id,
    amount_minor: minorOf(a.amount, input.currency, `allocations.${i}.amount`, "positive"),
  }));
  const r = await askAccount(deps.runtime, caller.courier, client, {
    kind: "payment",
    amount_minor: amount,
    currency: input.currency,
    reference: input.reference,
    allocations: sent,
    by: caller.by,
  }, entryAsk(`payment:${input.reference}`)).catch((e) =>
    refusedAsKept(deps.db, caller.courier, client, input.currency, e)
  );
  assertSameFacts(r, input.reference, { amount_minor: -amount, currency: input.currency });
  const posting = asPosting(r.reply);
  if (r.replayed && sent.length > 0) assertSameAllocations(posting, input.reference, sent);
  return { posting, replayed: r.replayed };
}

/**
 * The account keeps its open invoices and its recent settled ones (INVOICES_RECENT_MAX); an
 * older settled invoice of the client's is in the query side only. Allocated, it is the client's
 * own invoice that is not open, as a recent one answers, not one nobody holds.
 */
async function refusedAsKept(
  db: Deps["db"],
  courier: string,
  client: string,
  currency: string,
  e: unknown,
): Promise<never> {
  const unknown = e instanceof Refused && e.rejection.code === "not_found"
    ? e.rejection.details
    : undefined;
  const id = unknown?.invoice_id;
  if (typeof id === "string" && await isInvoiceOf(db, courier, client, id)) {
    refuse("invoice_not_open", `${unknown?.field}: no open ${currency} invoice: ${id}`);
  }
  throw e;
}

type Sent = readonly { invoice_id: string; amount_minor: number }[];

/**
 * A payment sent again under its reference with allocations is the same payment only if it
 * allocates as the first did: otherwise the accountant would read allocations that were never
 * made (a reference pays once, spec: courier 4.2). The rest of a payment goes to open invoices
 * oldest first, so the allocations made may name more than were sent: the very request sent
 * first is its replay too, not a conflict with itself.
 */
export function assertSameAllocations(
  posting: ReturnType<typeof asPosting>,
  reference: string,
  sent: Sent,
): void {
  const key = (list: Sent) =>
    list.map((a) => `${a.invoice_id}\u0000${a.amount_minor}`).sort().join("\u0001");
  if (key(posting.allocations) === key(sent)) return;
  const first = "requested" in posting ? posting.requested : undefined;
  if (first !== undefined) {
    if (key(first) === key(sent)) return;
  } else {
    // Kept before what it sent was recorded: what was sent first made at least what it named.
    const made = new Map(posting.allocations.map((a) => [a.invoice_id, a.amount_minor]));
    if (sent.every((a) => (made.get(a.invoice_id) ?? 0) >= a.amount_minor)) return;
  }
  const cur = posting.entry.currency;
  const was = posting.allocations.length === 0
    ? "none"
    : posting.allocations.map((a) => `${a.invoice_id} ${formatMinor(a.amount_minor, cur)}`)
      .join(", ");
  refuse(
    "reference_conflict",
    `reference already paid with other allocations (${was}): ${reference}`,
  );
}
