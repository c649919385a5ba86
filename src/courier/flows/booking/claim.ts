/**
 * Courier 4.2, 7: with unique_external_reference a client's external reference books once: the
 * booking claims it (reference_claim) before its charge, and a repeated reference is a duplicate
 * order. A claim held by a booking that stopped before its charge is taken over once that
 * booking's charge is fenced off (fence.ts).
 */
import { bookedBefore } from "../../queries/shipments.ts";
import type { CourierClient } from "../../../../actors/courier/courier_client.ts";
import type { PriceOffer } from "../../../../actors/courier/price_offer.ts";
import { claimId, referenceClaimActor } from "../../../../actors/courier/reference_claim.ts";
import type { Deps } from "../../../environment.ts";
import { foundOrNull, refuse, Refused, type Rejection } from "../../../runtime/actor.ts";
import { waybillOf } from "../../rules/waybill.ts";
import { withdrawStopped } from "./fence.ts";
import { type Booked, type BookingChoice, madeBefore } from "./replay.ts";

/** The booking that claims: its offer, its client, its waybill, and what it asks for. */
export interface Claimant {
  readonly offer: PriceOffer;
  readonly client: CourierClient;
  readonly waybill: string;
  readonly choice: BookingChoice;
}

/**
 * Claims the booking's external reference when its client books each once (spec: courier 4.2):
 * the claim taken (null: nothing to claim), or the booking this request made before (a retry).
 * Refuses duplicate_order when another booking holds the reference.
 */
export async function claimReference(
  deps: Pick<Deps, "runtime" | "clock" | "db" | "requestId">,
  b: Claimant,
): Promise<{ readonly claim: string | null } | { readonly booked: Booked }> {
  const { runtime } = deps;
  const courierId = b.offer.courier_id, clientId = b.client.id;
  const uniqueRef = b.offer.request.client_order_reference ??
    b.offer.request.external_billing_reference;
  if (!b.client.settings.unique_external_reference || !uniqueRef) return { claim: null };
  const claim = claimId(clientId, uniqueRef);
  // A booking made before the flag was set holds no claim: found in Postgres, it takes the
  // claim now, and this booking is the second one (spec: courier 4.2).
  const earlier = await bookedBefore(deps.db, courierId, clientId, uniqueRef, b.waybill);
  const claimFor = () =>
    runtime.ask(referenceClaimActor, courierId, claim, {
      kind: "claim",
      waybill: earlier ?? b.waybill,
      ...(earlier === null ? { reference: b.offer.reference } : {}),
    }, { requestId: deps.requestId });
  let claimed = await claimFor();
  // Nothing is ever lost: a booking that claimed the reference and stopped before its charge
  // (a crash between the two commits) holds it until its prices expire, or for
  // STOPPED_AFTER_CLAIM_MS, and no longer: its charge is then withdrawn, so it can never be
  // charged, however late it wakes, and this booking takes the claim over, or the reference
  // would be a duplicate of a shipment that does not exist (spec: courier 4.2). So too when an
  // earlier booking takes it (a holder that read the shipments before that booking reached
  // them): the answers then name that booking, never a waybill that will not exist.
  if (!claimed.ok && await claimHolderWithdrawn(deps, courierId, claimed)) {
    await runtime.ask(referenceClaimActor, courierId, claim, {
      kind: "release",
      waybill: claimed.details!.waybill as string,
    }, { requestId: deps.requestId });
    claimed = await claimFor();
  }
  if (!claimed.ok || earlier !== null) {
    // spec: courier 4.1, 7: a booking made before the flag, sent again, is already booked,
    // not a duplicate of the earlier booking that now holds the reference.
    const made = await madeBefore(runtime, courierId, b.waybill, b.choice);
    if (made) return { booked: made };
  }
  if (!claimed.ok) {
    // The holder's offer reference and time are the claim's bookkeeping, not the answer's.
    const { reference: _held, claimed_at: _at, ...details } = claimed.details ?? {};
    throw new Refused({ ...claimed, details });
  }
  if (earlier !== null) {
    refuse("duplicate_order", `external reference already booked: ${earlier}`, {
      waybill: earlier,
    });
  }
  return { claim };
}

/**
 * A booking whose charge was found withdrawn (another booking took its claim over, above) is
 * answered, as a retry of it would be, the booking that holds the reference now: refused
 * duplicate_order naming that waybill. Nothing when no other booking holds it.
 */
export async function refuseIfClaimedElsewhere(
  deps: Pick<Deps, "runtime">,
  courierId: string,
  claim: string | null,
  waybill: string,
): Promise<void> {
  if (claim === null) return;
  // A refused read (a full mailbox) is thrown: taken as no holder, the check would pass.
  const held = await deps.runtime.read(referenceClaimActor, courierId, claim, { kind: "get" });
  const holder = foundOrNull(held)?.waybill ?? null;
  if (holder === null || holder === waybill) return;
  refuse("duplicate_order", `external reference already booked: ${holder}`, { waybill: holder });
}

/**
 * Whether the claim's holder (refused: its waybill and offer reference) stopped before its
 * charge and had its charge withdrawn (withdrawStopped): it can never be charged now.
 */
async function claimHolderWithdrawn(
  deps: Pick<Deps, "runtime" | "clock">,
  courierId: string,
  refused: Rejection,
): Promise<boolean> {
  const held = refused.details?.waybill, heldReference = refused.details?.reference;
  if (refused.code !== "duplicate_order") return false;
  if (typeof held !== "string" || typeof heldReference !== "string") return false;
  if (waybillOf(courierId, heldReference) !== held) return false;
  const at = refused.details?.claimed_at;
  const claimedAt = typeof at === "number" ? at : undefined;
  return await withdrawStopped(deps, courierId, heldReference, claimedAt) === "withdrawn";
}
