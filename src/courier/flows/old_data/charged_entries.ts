/**
 * Old data: entries booked before client accounts told their charged entries (courier 2.6 rule
 * 5) have none, and a later entry of the same reference (a payment quoting an old waybill) would
 * start one without them. This pass reads each account's log once and fills the charged entry of
 * every reference in it with the entries it does not hold yet, and the notes on them.
 */
import { courierClientActor } from "../../../../actors/courier/courier_client.ts";
import {
  chargedEntryActor,
  chargedEntryId,
  type Filled,
} from "../../../../actors/courier/charged_entry/mod.ts";
import type { ActorRuntime } from "../../../runtime/runtime.ts";
import { entriesInLog } from "../billing/entry_fill.ts";

/**
 * Fills the charged entries of every stored account's entries. Idempotent: an entry held is
 * left as it is. Answers how many references it filled.
 */
export async function fillChargedEntries(runtime: ActorRuntime): Promise<number> {
  let changed = 0;
  for await (const { id, record } of runtime.stored(courierClientActor)) {
    if (record.state === null) continue;
    const read = await entriesInLog(runtime, id, () => true);
    for (const [reference, entries] of read) {
      // Most are new to the store: no read of it, nor of its account's log again.
      const r = await runtime.ask(chargedEntryActor, record.tenant, chargedEntryId(id, reference), {
        kind: "fill",
        client: id,
        reference,
        entries,
      }, { fresh: true });
      if (!r.ok) throw new Error(`filling ${id}'s entry ${reference}: ${r.code}: ${r.message}`);
      if ((r.reply as Filled).filled > 0) changed++;
    }
  }
  return changed;
}
