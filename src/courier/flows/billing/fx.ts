/**
 * FX resolution (courier 2.6 rule 4, 4.2 `resolve-fx`): a charge awaiting its rate gets a rate and
 * its source; it is then booked now, in this period's statement, invoice and export range.
 */
import { asResolved } from "../../../../actors/courier/courier_client.ts";
import { entryAsk } from "../../../../actors/courier/client_ledger.ts";
import { parseRate } from "../../rules/ledger.ts";
import { refuse } from "../../../runtime/actor.ts";
import type { Deps } from "../../../environment.ts";
import { askAccount, type BillingCaller } from "./account.ts";

/** A resolution as sent: the rate as exact decimal text. */
export interface ResolveFxInput {
  readonly entry_reference: string;
  readonly rate: string;
  readonly source: string;
}

/** Resolves a conversion once; another rate sent later is refused, never ignored (2.6 rule 2). */
export async function resolveFx(
  deps: Pick<Deps, "runtime">,
  caller: BillingCaller,
  client: string,
  input: ResolveFxInput,
) {
  const r = await askAccount(deps.runtime, caller.courier, client, {
    kind: "resolve_fx",
    reference: input.entry_reference,
    rate: input.rate,
    source: input.source,
    by: caller.by,
  }, entryAsk(`charge.resolved:${input.entry_reference}`));
  const { resolved, balances } = asResolved(r.reply);
  const rate = parseRate(input.rate);
  if (r.replayed && (!rate.ok || rate.text !== resolved.fx_rate)) {
    refuse(
      "reference_conflict",
      `rate: the entry was already resolved at ${resolved.fx_rate}: ${input.rate}`,
    );
  }
  return { resolved, balances, replayed: r.replayed };
}
