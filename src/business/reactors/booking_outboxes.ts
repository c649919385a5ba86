/**
 * The work that follows a trip's commit (STYLE "transactional outbox"): a cancelled trip's charge
 * credited back once (Business API 3.1 "wallet charges for the trip refunded"), and a booking that
 * stopped between its claim, charge and trip completed by the same steps the request runs, and so
 * a checkout's or a batch's booking stopped half-way; an ended trip's chat told it is closed. The
 * handlers are idempotent: every step is an ask under a key derived from the trip (or the batch and
 * its stop).
 */
import { type RefundItem, type StalledItem, tripActor } from "../../../actors/business/trip/mod.ts";
import type { Deps, Reactor } from "../../environment.ts";
import { foundOrNull, lastingRefusal, orRefuse } from "../../runtime/actor.ts";
import { businessOf } from "../../platform/flows/businesses.ts";
import { BOOKING_STALLED_OUTBOX, STALLED_RETRY, TRIP_REFUND_OUTBOX } from "../rules/booking.ts";
import { completeBooking, type CompleteDeps, refundCharge } from "../flows/complete_booking.ts";
import { sweepStalledCheckout } from "../flows/checkouts.ts";
import type { CheckoutStalledItem } from "../../../actors/business/checkout.ts";
import { CHECKOUT_STALLED_OUTBOX } from "../rules/checkout.ts";
import { sweepBatchPrices, sweepStalledBatch } from "../flows/batch_sweep.ts";
import type { BatchStalledItem } from "../../../actors/business/batch.ts";
import { BATCH_PRICES_DUE_OUTBOX, BATCH_STALLED_OUTBOX } from "../rules/batch.ts";
import type { BatchPricesDueItem } from "../../../actors/business/batch_prices.ts";
import { closeChat } from "../flows/chat.ts";
import { CHAT_CLOSE_OUTBOX, type ChatCloseItem } from "../rules/chat.ts";

/** The system, as wallet transactions and trails name it. */
const BY = "system";

/** Credits the cancelled trip's charge back once, and records the refund on the trip. */
export async function refundCancelledTrip(deps: Pick<Deps, "runtime">, item: RefundItem) {
  // A refused read (a full mailbox) is no answer that nothing is owed: thrown, the item kept.
  const read = foundOrNull(
    await deps.runtime.read(tripActor, item.business_id, item.reference, { kind: "get" }),
  );
  if (read === null || read.phase !== "booked") return;
  const { trip } = read;
  if (!trip.charge || trip.refund) return;
  const credited = await refundCharge(deps, item.business_id, trip.reference, trip.charge, BY);
  // Not recorded (the trip too busy): thrown, so the item is handed over again; the credit,
  // under its key, is not made twice.
  orRefuse(
    await deps.runtime.ask(tripActor, item.business_id, item.reference, {
      kind: "refunded",
      refund: { ...trip.charge, transaction_id: credited.transaction?.id ?? null },
    }),
  );
}

/** Completes a booking claimed and not finished in time; a refused charge frees its reference. */
export async function completeStalledBooking(deps: CompleteDeps, item: StalledItem) {
  // Never not found: any refusal (a full mailbox) is thrown, so the item is handed over again.
  const state = orRefuse(
    await deps.runtime.read(tripActor, item.business_id, item.reference, { kind: "claim_state" }),
  );
  if (state.phase !== "booking" || !("claim" in state)) return;
  const account = await businessOf(deps.runtime, item.business_id);
  try {
    await completeBooking(deps, account, state.claim, BY);
  } catch (e) {
    // A refused charge released the claim: nothing is left to complete. A "not now" (an actor
    // too busy) left it, maybe charged: thrown, so the outbox hands the item over again.
    if (lastingRefusal(e) === null) throw e;
  }
}

export function startBookingOutboxes(
  deps: CompleteDeps & Pick<Deps, "clock" | "name" | "referenceKey">,
): Reactor {
  const releases = [
    deps.runtime.handleOutbox(
      TRIP_REFUND_OUTBOX,
      (i) => refundCancelledTrip(deps, i.payload as RefundItem),
    ),
    deps.runtime.handleOutbox(
      BOOKING_STALLED_OUTBOX,
      (i) => completeStalledBooking(deps, i.payload as StalledItem),
      STALLED_RETRY,
    ),
    // spec: business 4.1: a booking stopped while holding its checkout, completed or given back.
    deps.runtime.handleOutbox(
      CHECKOUT_STALLED_OUTBOX,
      (i) => sweepStalledCheckout(deps, i.payload as CheckoutStalledItem),
      STALLED_RETRY,
    ),
    // spec: business 4.2: a batch its request stopped booking, completed or ended as refused.
    deps.runtime.handleOutbox(
      BATCH_STALLED_OUTBOX,
      (i) => sweepStalledBatch(deps, i.payload as BatchStalledItem),
      STALLED_RETRY,
    ),
    // spec: business 4.2: a batch's prices removed once their batch needs them no more.
    deps.runtime.handleOutbox(
      BATCH_PRICES_DUE_OUTBOX,
      (i) => sweepBatchPrices(deps, i.payload as BatchPricesDueItem),
    ),
    // spec: business 4.1, 8: an ended trip's chat told it is closed, so it refuses later posts.
    deps.runtime.handleOutbox(
      CHAT_CLOSE_OUTBOX,
      (i) => closeChat(deps, i.payload as ChatCloseItem),
    ),
  ];
  return {
    close() {
      for (const release of releases) release();
      return Promise.resolve();
    },
  };
}
