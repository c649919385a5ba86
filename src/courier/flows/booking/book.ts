/**
 * Courier 4.1: booking an option of an offer, as a chain of commands to single actors
 * (ARCHITECTURE 5): offer (read) -> reference claim -> client account (charge) -> shipment (book).
 * Every step is idempotent on the waybill the offer names, so a retry after a crash anywhere
 * completes the same booking and charges once.
 */
import {
  asClient,
  courierClientActor,
  isWithdrawn,
  type KeptBookingCharge,
} from "../../../../actors/courier/courier_client.ts";
import {
  asOffer,
  OFFER_NOT_FOUND,
  type OfferOption,
  type PriceOffer,
  priceOfferActor,
} from "../../../../actors/courier/price_offer.ts";
import { referenceClaimActor } from "../../../../actors/courier/reference_claim.ts";
import type { Deps } from "../../../environment.ts";
import { orRefuse, refuse, Refused } from "../../../runtime/actor.ts";
import type { ActorRuntime } from "../../../runtime/runtime.ts";
import { waybillOf } from "../../rules/waybill.ts";
import { openBookingCrossing } from "../customs.ts";
import { claimReference, refuseIfClaimedElsewhere } from "./claim.ts";
import { chargeKeyOf, keptCharge } from "./fence.ts";
import { collectionMovedTo } from "./promise.ts";
import { refuseFields } from "./refusals.ts";
import { type Booked, type BookingChoice, madeBefore, reBooked, replayed } from "./replay.ts";
import { completeBooking } from "./shipment.ts";
import { offerBookedAs, rebookQuote } from "./rebook.ts";

/** One booking of an offer's option, for its client. */
export interface BookOfferInput extends BookingChoice {
  readonly courierId: string;
  readonly clientId: string;
  /** The offer's reference (held prices or a saved quote). */
  readonly reference: string;
  /** Who booked (audit). */
  readonly by: string;
  /** Set when the path names a saved quote: a reference of held prices is not one. */
  readonly quoteOnly?: boolean;
}

type BookingDeps = Pick<Deps, "runtime" | "clock" | "db" | "requestId">;

/**
 * Books one option of an offer for its client. The waybill is derived from the offer, so two
 * commits (account charge, shipment) carry the whole booking and a retry after a crash between
 * them completes it with one charge. Throws the first refusal (Refused); a refused booking
 * charges nothing and leaves the reference free. A booking whose charge was withdrawn (another
 * booking took its place, fence.ts) answers as its retry would: the booking that holds its
 * external reference now, or, for a saved quote that still holds, a booking under a copy of it.
 */
export async function bookOffer(deps: BookingDeps, input: BookOfferInput): Promise<Booked> {
  const quote = await offerToBook(deps.runtime, input);
  let offer = await offerBookedAs(deps, quote);
  for (let tries = 1;; tries++) {
    const booked = await bookAs(deps, offer, input);
    if (!("withdrawn" in booked)) return booked;
    offer = await afterWithdrawal(deps, quote, offer, booked, tries);
  }
}

/** Bookings of one call under one quote: its own waybill, a copy another call made, its own. */
const BOOKINGS_PER_CALL_MAX = 3;

/**
 * What a booking of `offer` whose charge was withdrawn answers, as its retry would: expired
 * prices are expired; a quote another call booked again meanwhile is booked (or answered) under
 * that copy; the booking that holds the external reference now is the answer (duplicate_order);
 * a quote that still holds is booked again under a copy of its own; held prices are withdrawn.
 */
async function afterWithdrawal(
  deps: BookingDeps,
  quote: PriceOffer,
  offer: PriceOffer,
  booked: { readonly withdrawn: string | null; readonly waybill: string },
  tries: number,
): Promise<PriceOffer> {
  const withdrawn = () =>
    refuse(
      "prices_expired",
      "these prices can no longer be booked: their booking stopped before its charge and " +
        "another booking took its place; ask for prices again",
    );
  // spec: courier 2.2 rule 2: expired prices are never booked, whatever else a retry finds.
  if (deps.clock.now() > offer.valid_until || tries >= BOOKINGS_PER_CALL_MAX) withdrawn();
  const rebookable = quote.kind === "quote" && quote.rebooks === undefined;
  if (rebookable) {
    // Another call booked the quote again meanwhile: its copy is this booking's answer too.
    const now = await offerBookedAs(deps, await currentOffer(deps, quote));
    if (now.reference !== offer.reference) return now;
  }
  // spec: courier 4.2, 7: the booking that took its external reference is the answer.
  await refuseIfClaimedElsewhere(deps, offer.courier_id, booked.withdrawn, booked.waybill);
  // spec: courier 4.1: a saved quote holds 7 days; its withdrawn waybill does not end it.
  if (!rebookable) withdrawn();
  return await offerBookedAs(deps, await rebookQuote(deps, quote, offer.reference));
}

/** The offer as it stands now (a quote may have been booked again since it was read). */
async function currentOffer(deps: BookingDeps, offer: PriceOffer): Promise<PriceOffer> {
  return asOffer(orRefuse(
    await deps.runtime.read(priceOfferActor, offer.courier_id, offer.reference, { kind: "get" }),
  ));
}

/**
 * One booking of `offer`'s option (the offer itself, or the copy a quote is booked under now):
 * booked, or its charge found withdrawn (with the claim it held, now released).
 */
async function bookAs(
  deps: BookingDeps,
  offer: PriceOffer,
  input: BookOfferInput,
): Promise<Booked | { readonly withdrawn: string | null; readonly waybill: string }> {
  const { runtime } = deps;
  const waybill = waybillOf(input.courierId, offer.reference);
  const held = await heldOption(deps, offer, waybill, input);
  if ("booked" in held) return await crossingOpened(runtime, held.booked, input.by);
  const { option } = held;
  const client = asClient(orRefuse(
    await runtime.read(courierClientActor, input.courierId, input.clientId, { kind: "get" }),
  ));
  const claimed = await claimReference(deps, { offer, client, waybill, choice: input });
  if ("booked" in claimed) return await crossingOpened(runtime, claimed.booked, input.by);
  const { requestId } = deps;
  const charge = await chargeBooking(
    runtime,
    { offer, option, waybill, claim: claimed.claim, requestId },
    input,
  );
  if (charge === "withdrawn") return { withdrawn: claimed.claim, waybill };
  const made = await completeBooking(runtime, {
    offer,
    option,
    client,
    charge,
    waybill,
    dangerousGoodsConfirmed: input.dangerousGoodsConfirmed,
    by: input.by,
    requestId,
  });
  return made.created
    ? { shipment: made.shipment, already_booked: false }
    : replayed(made.shipment, input);
}

/**
 * CONTRACT: a cross-border shipment gets one crossing at booking, open before the answer; a
 * retry of the booking (already booked) opens it too, should a crash have come before it.
 */
async function crossingOpened(runtime: ActorRuntime, booked: Booked, by: string): Promise<Booked> {
  await openBookingCrossing(runtime, booked.shipment, by);
  return booked;
}

/** The offer the booking names, if it is the client's (and a saved quote, where one is asked). */
async function offerToBook(runtime: ActorRuntime, input: BookOfferInput): Promise<PriceOffer> {
  const offer = asOffer(orRefuse(
    await runtime.read(priceOfferActor, input.courierId, input.reference, { kind: "get" }),
  ));
  // Another client's offer does not exist for this one (courier 4.6): answered word for word as
  // one that does not exist at all, so the answer tells nothing of other clients' references.
  if (offer.client_id !== input.clientId) refuse("not_found", OFFER_NOT_FOUND);
  // spec: courier 4.1: POST /client/quotes/{reference}/book books a saved quote only.
  if (input.quoteOnly && offer.kind !== "quote") {
    refuse("not_found", `quote not found: ${input.reference}`);
  }
  return offer;
}

/**
 * The option the booking asks for, while its prices still hold. spec: courier 2.2 rule 2, 7:
 * expired prices are never booked. A booking made in time is still answered as already booked,
 * and one charged in time but stopped before its shipment (a crash between the two commits) is
 * completed: the charge stands for a booking.
 */
async function heldOption(
  deps: Pick<Deps, "runtime" | "clock">,
  offer: PriceOffer,
  waybill: string,
  input: BookOfferInput,
): Promise<{ readonly option: OfferOption } | { readonly booked: Booked }> {
  const expired = (message: string) => unlessBooked(deps.runtime, waybill, input, message);
  const now = deps.clock.now();
  // spec: courier 2.2 rule 3: only what was shown can be booked.
  const option = offer.options.find((o) => o.code === input.serviceLevel);
  // Held prices showed their dates: once the cut-off has moved collection past the day shown,
  // they have expired (a saved quote, held 7 days, gets the dates of the day it is booked).
  // Prices held now end before that cut-off (heldUntil), and the refusal says why.
  const movedTo = option ? collectionMovedTo(offer, option, now) : null;
  if (now > offer.valid_until || movedTo !== null) {
    const booked = await expired(
      option && movedTo !== null
        ? `prices expired at the cut-off: collection is no longer on ${option.collection_on} ` +
          `but on ${movedTo}; ask for prices again`
        : `prices expired at ${new Date(offer.valid_until).toISOString()}; ask for prices again`,
    );
    if (booked) return { booked };
  }
  if (!option) {
    refuseFields([{
      path: "service_level",
      message: `not among the offered options (${
        offer.options.map((o) => o.code).join(", ")
      }): ${input.serviceLevel}`,
    }]);
  }
  return { option };
}

/**
 * Expired prices: the booking they made (a retry), or nothing when they were charged in time
 * (the booking is completed), else the refusal prices_expired with `message`.
 */
async function unlessBooked(
  runtime: ActorRuntime,
  waybill: string,
  input: BookOfferInput,
  message: string,
): Promise<Booked | null> {
  const made = await madeBefore(runtime, input.courierId, waybill, input);
  if (made) return made;
  if (await keptCharge(runtime, input.clientId, waybill) !== "charged") {
    refuse("prices_expired", message);
  }
  return null;
}

/**
 * spec: courier 4.1: the charge, with the balance or credit check inside the client account
 * actor, under the booking's charge key. A booking whose charge was withdrawn first
 * (withdrawStopped: another booking took over what it held) is answered the withdrawal: it
 * charges nothing and makes no shipment. A refused or withdrawn charge frees the reference it
 * claimed.
 */
async function chargeBooking(
  runtime: ActorRuntime,
  b: {
    offer: PriceOffer;
    option: OfferOption;
    waybill: string;
    claim: string | null;
    requestId: string | undefined;
  },
  input: BookOfferInput,
): Promise<KeptBookingCharge | "withdrawn"> {
  const { offer, option, waybill } = b;
  const charged = await runtime.ask(courierClientActor, input.courierId, input.clientId, {
    kind: "charge_booking",
    waybill,
    amount_minor: option.total_minor,
    currency: option.currency,
    service_level: option.code,
    references: {
      external_customer_code: offer.request.external_customer_code,
      external_billing_reference: offer.request.external_billing_reference,
      client_order_reference: offer.request.client_order_reference,
    },
    booking: {
      prices_reference: offer.reference,
      dangerous_goods_confirmed: input.dangerousGoodsConfirmed,
      by: input.by,
    },
    by: input.by,
  }, { idempotencyKey: chargeKeyOf(waybill), permanent: true, requestId: b.requestId });
  if (!charged.ok || isWithdrawn(charged.reply)) {
    if (b.claim) {
      await runtime.ask(referenceClaimActor, input.courierId, b.claim, {
        kind: "release",
        waybill,
      });
    }
    if (!charged.ok) throw new Refused(charged);
    return "withdrawn";
  }
  // A retry of a booking charged before a crash: only the option that was charged is booked.
  // A replay answers the charge as kept (KeptBookingCharge), a first charge the whole of it.
  const reply = charged.reply as KeptBookingCharge;
  if (reply.service_level !== undefined && reply.service_level !== option.code) {
    reBooked(reply.service_level, waybill);
  }
  return reply;
}
