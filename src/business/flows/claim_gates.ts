/**
 * The gate before a booking's charge (the fence, as courier 4.1's withdrawn charge): a booking
 * made for a checkout (Business API 4.1) or a shopping order (shopping 2.2) charges only once
 * that let its trip's claim through. The checkout or the order decides one command at a time, so
 * of its sweep giving the hold back (the booking stopped between two steps) and the claim asking
 * through, the first wins: a late wake-up of the stopped request, or the trip's own sweep, is
 * refused and releases the claim, charging nothing.
 */
import { checkoutActor } from "../../../actors/business/checkout.ts";
import { type Claim, tripActor } from "../../../actors/business/trip/mod.ts";
import { shoppingOrderActor } from "../../../actors/shopping/order.ts";
import type { Deps } from "../../environment.ts";
import { NOT_NOW_CODES, Refused, type Rejection } from "../../runtime/actor.ts";

type D = Pick<Deps, "runtime" | "requestId">;

/** Passes the claim's gate, or releases the claim and throws the gate's refusal. */
export async function passGate(deps: D, claim: Claim) {
  const refused = await askGate(deps, claim);
  if (refused === null) return;
  // Not now (the gate too busy): the claim stands for a retry or the trip's sweep.
  if (NOT_NOW_CODES.has(refused.code)) throw new Refused(refused);
  const released = await deps.runtime.ask(
    tripActor,
    claim.draft.business_id,
    claim.draft.reference,
    { kind: "release", fingerprint: claim.fingerprint },
    { requestId: deps.requestId },
  );
  if (!released.ok) throw new Refused(released);
  throw new Refused(refused);
}

async function askGate(deps: D, claim: Claim): Promise<Rejection | null> {
  const gate = claim.gate;
  if (!gate) return null;
  const business = claim.draft.business_id;
  const claimed_at = claim.claimed_at;
  const options = { requestId: deps.requestId };
  const r = gate.kind === "checkout"
    ? await deps.runtime.ask(checkoutActor, business, gate.reference, {
      kind: "confirm_claim",
      attempt: gate.attempt,
      claimed_at,
    }, options)
    // The order is held under the trip's own reference (shopping 2.2).
    : await deps.runtime.ask(shoppingOrderActor, business, claim.draft.reference, {
      kind: "confirm_claim",
      claim_id: gate.claim_id,
      claimed_at,
    }, options);
  return r.ok ? null : r;
}
