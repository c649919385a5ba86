/**
 * Invoicing (courier 4.2 `invoice`, 2.6 rule 5): one invoice per currency with uninvoiced
 * entries of the period; entries reaching a period already invoiced go on a supplementary one.
 */
import { asInvoices } from "../../../../actors/courier/courier_client.ts";
import { entryAsk } from "../../../../actors/courier/client_ledger.ts";
import { invoicedCurrencies } from "../../queries/invoices.ts";
import { refuse } from "../../../runtime/actor.ts";
import type { Deps } from "../../../environment.ts";
import { askAccount, type BillingCaller } from "./account.ts";

/**
 * Invoices `period`; with `key` (the request's Idempotency-Key) once per key: a retry after a
 * lost answer gets the invoices the first request issued, not a refusal that nothing is left to
 * invoice, nor a supplementary invoice of what came since. The key for another period is refused.
 */
export async function issueInvoices(
  deps: Pick<Deps, "runtime" | "db">,
  caller: BillingCaller,
  client: string,
  period: string,
  key: string | null,
) {
  // spec: courier 2.6 rule 5: an invoice of this period issued so long ago that the account no
  // longer keeps the period still makes the new one supplementary.
  const invoiced = await invoicedCurrencies(deps.db, caller.courier, client, period);
  const r = await askAccount(deps.runtime, caller.courier, client, {
    kind: "issue_invoice",
    period,
    by: caller.by,
    invoiced_currencies: invoiced,
  }, key === null ? {} : entryAsk(`invoice:key:${key}`));
  const issued = asInvoices(r.reply);
  const first = issued.invoices[0]?.period;
  if (r.replayed && first !== undefined && first !== period) {
    refuse(
      "reference_conflict",
      `Idempotency-Key already invoiced period ${first}, not ${period}: ${key}`,
    );
  }
  return { ...issued, replayed: r.replayed };
}
