/**
 * The booking fence (courier 4.1, 4.2, 4.6): a booking that stopped before its charge (a crash
 * between two commits) may hold what another booking needs (an external reference's claim, a
 * request's identity). It is taken out of the way only once its charge is fenced off for good:
 * a withdrawal sent to the client's account under the booking's own charge key, where the first
 * of the charge and the withdrawal to commit answers both.
 */
import { courierClientActor, isWithdrawn } from "../../../../actors/courier/courier_client.ts";
import {
  asOffer,
  type PriceOffer,
  priceOfferActor,
} from "../../../../actors/courier/price_offer.ts";
import { shipmentActor } from "../../../../actors/courier/shipment/mod.ts";
import type { Deps } from "../../../environment.ts";
import { foundOrNull, orRefuse } from "../../../runtime/actor.ts";
import type { ActorRuntime } from "../../../runtime/runtime.ts";
import { waybillOf } from "../../rules/waybill.ts";
import { expiredAt } from "./promise.ts";

/**
 * How long after its prices expired a booking that holds a claim or a request's identity without
 * having been charged is still given to reach its charge: one that checked its prices a moment
 * before they expired is on its way, not stopped, and must not be overtaken.
 */
export const STOPPED_AFTER_EXPIRY_MS = 30_000;

/**
 * How long after it claimed an external reference a booking that has not charged is still given
 * to reach its charge, its very next step (milliseconds later even under load). Past it, the
 * claim may be taken over while the prices still hold: a saved quote's booking that stopped after
 * its claim would otherwise keep the reference from every other booking for up to 7 days.
 */
export const STOPPED_AFTER_CLAIM_MS = 2 * 60_000;

/**
 * The idempotency key of the booking of `waybill` on its client's account: its charge, and the
 * withdrawal that fences the charge off (withdrawStopped), are kept under it, first come first.
 */
export function chargeKeyOf(waybill: string): string {
  return `charge:${waybill}`;
}

/**
 * What the client's account keeps under the booking's charge key: its charge ("charged"), the
 * withdrawal that fenced it off for good ("withdrawn"), or nothing yet (null).
 */
export async function keptCharge(
  runtime: ActorRuntime,
  clientId: string,
  waybill: string,
): Promise<"charged" | "withdrawn" | null> {
  const kept = await runtime.replyUnder(courierClientActor, clientId, chargeKeyOf(waybill));
  if (kept === null) return null;
  return isWithdrawn(kept.reply) ? "withdrawn" : "charged";
}

/**
 * Whether the booking of offer `reference` looks stopped for good before its charge: its charge
 * already withdrawn (then it is, at any time), or no shipment, no charge, and prices expired
 * STOPPED_AFTER_EXPIRY_MS ago (their hold passed, or the cut-off moved every option's collection
 * past the day shown), so that a retry of it would be refused now. The latter is a guess about
 * time, not a fence (an attempt past its checks may stall for longer):
 * it says when withdrawStopped is worth trying, which alone makes a takeover safe. `claimedAt`:
 * when the booking claimed what another now asks for, if known; one that claimed it
 * STOPPED_AFTER_CLAIM_MS ago without charging looks stopped too. Answers the offer when it
 * looks stopped, else null.
 */
async function stoppedBeforeCharge(
  deps: Pick<Deps, "runtime" | "clock">,
  courierId: string,
  reference: string,
  claimedAt?: number,
): Promise<PriceOffer | null> {
  const runtime = deps.runtime;
  // A refused read (a full mailbox) is no answer that the booking stopped: thrown, not now.
  const got = foundOrNull(
    await runtime.read(priceOfferActor, courierId, reference, { kind: "get" }),
  );
  if (!got) return null;
  const offer = asOffer(got);
  const waybill = waybillOf(courierId, reference);
  // The charge is looked for where it would be: under the client the offer priced for (an
  // office's key may have been bound to another client's booking than the caller's).
  const kept = await keptCharge(runtime, offer.client_id, waybill);
  if (kept === "charged") return null;
  // A charge key that already holds a withdrawal is stopped for good, whatever the clock says:
  // the account answers every charge under it the withdrawal (permanent), so no attempt can ever
  // charge these prices nor make their shipment. Waiting for them to expire would only keep a
  // request at request_in_progress, and a reference or an identity from a booking that can be
  // made, for up to their whole hold (spec: courier 4.1, 4.2, 4.6).
  if (kept === "withdrawn") return offer;
  const now = deps.clock.now();
  const stalled = claimedAt !== undefined && now - claimedAt > STOPPED_AFTER_CLAIM_MS;
  if (!stalled && !expiredAt(offer, now - STOPPED_AFTER_EXPIRY_MS)) return null;
  const made = await runtime.read(shipmentActor, courierId, waybill, { kind: "get" });
  if (foundOrNull(made) !== null) return null;
  return offer;
}

/** What withdrawStopped did to a booking that holds what another booking needs. */
export type Withdrawal =
  /** Its charge is fenced off for good: what it holds may be given to another booking. */
  | "withdrawn"
  /** It charged after all, just before the withdrawal: it stands, and is completed. */
  | "charged"
  /** It may still be on its way (stoppedBeforeCharge): nothing was done. */
  | "on_its_way";

/**
 * Takes the booking of offer `reference` out of the way when it seems to have stopped for good
 * before its charge (stoppedBeforeCharge, a rule of time: when trying is worth it). Safety does
 * not rest on that rule, since an attempt may stall for any time between its checks and its
 * charge: the charge is fenced off in the client account, with a withdrawal sent under the
 * booking's own charge key, kept for good. The account decides one command at a time and keeps
 * one reply per key (runtime: a command under a key already kept is answered that reply, and
 * decides nothing), so of the charge and the withdrawal the first to commit answers both: a
 * withdrawal after the charge is answered the charge ("charged"), and a charge after the
 * withdrawal is answered the withdrawal, which bookOffer refuses. spec: courier 4.1, 4.2.
 */
export async function withdrawStopped(
  deps: Pick<Deps, "runtime" | "clock">,
  courierId: string,
  reference: string,
  claimedAt?: number,
): Promise<Withdrawal> {
  const offer = await stoppedBeforeCharge(deps, courierId, reference, claimedAt);
  if (offer === null) return "on_its_way";
  return await withdraw(deps.runtime, courierId, offer);
}

/**
 * Fences off the charge of offer `reference` now, whoever may still be on its way to it: for a
 * booking that itself found the prices expired, and priced again at once, while another attempt
 * of its request (which resumed the same prices) may have checked them in time and be charging
 * (request.ts bookRequest). "charged": that attempt charged first, its booking stands.
 */
export async function withdrawBooking(
  runtime: ActorRuntime,
  courierId: string,
  reference: string,
): Promise<"withdrawn" | "charged"> {
  const got = foundOrNull(
    await runtime.read(priceOfferActor, courierId, reference, { kind: "get" }),
  );
  // No offer (voided, or never made) can be charged; a refused read (a full mailbox) is thrown:
  // answered withdrawn, the request would free its identity while the charge still can be made.
  if (!got) return "withdrawn";
  return await withdraw(runtime, courierId, asOffer(got));
}

/** The withdrawal itself (withdrawStopped): the first of it and the charge answers both. */
async function withdraw(
  runtime: ActorRuntime,
  courierId: string,
  offer: PriceOffer,
): Promise<"withdrawn" | "charged"> {
  // Sent where the charge goes: the client the offer priced for.
  const waybill = waybillOf(courierId, offer.reference);
  const fenced = orRefuse(
    await runtime.ask(courierClientActor, courierId, offer.client_id, {
      kind: "withdraw_booking",
      waybill,
    }, { idempotencyKey: chargeKeyOf(waybill), permanent: true }),
  );
  return isWithdrawn(fenced) ? "withdrawn" : "charged";
}
