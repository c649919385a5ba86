/**
 * Courier 4.1: a saved quote holds 7 days (2.2). A booking of it whose charge was withdrawn
 * (fence.ts: it stopped before its charge and another booking took what it held) can never be
 * charged under its waybill, yet the quote still holds: it is booked again under a copy of the
 * quote, a new reference and so a new waybill, which the quote names from then on (rebooked_as).
 */
import {
  asOffer,
  type PriceOffer,
  priceOfferActor,
} from "../../../../actors/courier/price_offer.ts";
import type { Deps } from "../../../environment.ts";
import { orRefuse } from "../../../runtime/actor.ts";
import { newOfferReference } from "../waybills.ts";

/** The offer whose waybill books `offer` now: its copy when a quote was booked again. */
export async function offerBookedAs(
  deps: Pick<Deps, "runtime">,
  offer: PriceOffer,
): Promise<PriceOffer> {
  if (offer.rebooked_as === undefined) return offer;
  return asOffer(orRefuse(
    await deps.runtime.read(priceOfferActor, offer.courier_id, offer.rebooked_as, { kind: "get" }),
  ));
}

/**
 * Books `quote` under a copy from now on, its booking under `withdrawn` having been withdrawn:
 * the copy is made first, so the quote never names an offer that does not exist; two bookings
 * that found the same withdrawal name one copy (the first to commit), and an unused copy is never
 * listed nor booked. Answers the quote as it stands after.
 */
export async function rebookQuote(
  deps: Pick<Deps, "runtime" | "clock" | "requestId">,
  quote: PriceOffer,
  withdrawn: string,
): Promise<PriceOffer> {
  const { runtime } = deps;
  const reference = await newOfferReference(runtime, "quote");
  const { rebooked_as: _moved, ...prices } = quote;
  const copy: PriceOffer = { ...prices, reference, rebooks: quote.reference };
  const options = { requestId: deps.requestId };
  orRefuse(
    await runtime.ask(priceOfferActor, quote.courier_id, reference, {
      kind: "make",
      offer: copy,
    }, options),
  );
  return asOffer(orRefuse(
    await runtime.ask(priceOfferActor, quote.courier_id, quote.reference, {
      kind: "rebook",
      withdrawn,
      reference,
    }, options),
  ));
}
