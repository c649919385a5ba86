/**
 * Old data: claims filed before a shipment had one claim (its id from the waybill, claimKeyOf)
 * have ids of their own (random, or from an idempotency key), so the shipment's own claim id
 * holds nothing and a second claim could be filed there and paid again. This pass names, at each
 * such shipment's own id, its first claim (ClaimFiledAs): filing again then answers that claim or
 * refuses claim_conflict naming it (spec: courier 2.6 rule 2: one claim, paid once).
 */
import {
  type Claim,
  claimActor,
  type ClaimState,
  isFiledAs,
} from "../../../../actors/courier/claim/mod.ts";
import type { ActorRuntime } from "../../../runtime/runtime.ts";
import { claimIdOf } from "../claims.ts";

/** A shipment's first claim filed under an id of its own, and the shipment's own claim id. */
interface Unnamed {
  readonly tenant: string;
  readonly own: string;
  readonly claim: Claim;
}

/**
 * Names each shipment's first claim filed under another id at the shipment's own claim id, where
 * that holds nothing yet. Idempotent: once named, the own id is stored. Answers how many it named.
 */
export async function nameClaimsFiledBefore(runtime: ActorRuntime): Promise<number> {
  const stored = new Set<string>();
  const first = new Map<string, Unnamed>();
  for await (const { id, record } of runtime.stored(claimActor)) {
    stored.add(id);
    const state = record.state as ClaimState;
    if (state === null || isFiledAs(state)) continue;
    const own = claimIdOf(record.tenant, state.waybill);
    if (own === id) continue;
    const seen = first.get(own);
    // The first filed (then the lowest id) is the shipment's claim; a later one stays its own.
    if (!seen || earlier(state, seen.claim)) {
      first.set(own, { tenant: record.tenant, own, claim: state });
    }
  }
  let named = 0;
  for (const u of first.values()) {
    if (stored.has(u.own)) continue; // named already, or claimed there since
    const r = await runtime.ask(claimActor, u.tenant, u.own, {
      kind: "name_filed_claim",
      claim_id: u.claim.id,
      waybill: u.claim.waybill,
    });
    if (!r.ok) throw new Error(`naming claim ${u.claim.id}: ${r.code}: ${r.message}`);
    named++;
  }
  return named;
}

function earlier(a: Claim, b: Claim): boolean {
  return a.filed_at < b.filed_at || (a.filed_at === b.filed_at && a.id < b.id);
}
