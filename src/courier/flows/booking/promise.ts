/**
 * Courier 2.2 rules 2, 3 and 2.8: when held prices can still be booked, and the dates a booking
 * keeps. Pure over an offer and a time.
 */
import {
  type OfferOption,
  type PriceOffer,
  serviceTermsOf,
} from "../../../../actors/courier/price_offer.ts";
import {
  collectionMovesAt,
  type DeliveryWindow,
  deliveryWindow,
  type WorkingCalendar,
} from "../../../domain/calendar.ts";

/**
 * spec: courier 2.2 rule 2, 2.8: held prices are held for the operator's minutes (ending at
 * `holdEnd`), but never past the next cut-off that would move an option's collection: the dates
 * shown would no longer be true, and a booking freezes them (2.3). The last instant both hold,
 * the earliest over the options (one offer, one valid_until). A saved quote gets the dates of the
 * day it is booked, so only its 7 days end it.
 */
export function heldUntil(offer: PriceOffer, holdEnd: number): number {
  if (offer.kind !== "prices") return holdEnd;
  return offer.options.reduce((until, option) => {
    const { calendar, cut_off } = termsOfPromise(serviceTermsOf(offer, option));
    return Math.min(until, collectionMovesAt(calendar, offer.created_at, cut_off) - 1);
  }, holdEnd);
}

/**
 * Whether no booking of the offer could pass bookOffer's checks at `at`: past its hold, or, for
 * held prices, with every option's collection moved past the day shown by its cut-off (spec:
 * courier 2.2 rule 2, 3).
 */
export function expiredAt(offer: PriceOffer, at: number): boolean {
  if (at > offer.valid_until) return true;
  return offer.kind === "prices" &&
    offer.options.every((o) => collectionMovedTo(offer, o, at) !== null);
}

/**
 * spec: courier 2.2 rule 3: held prices showed their dates: the collection day booking `option`
 * at `at` gets once the cut-off has moved it past the day shown (the prices have expired), else
 * null. A saved quote, held 7 days, gets the dates of the day it is booked: never moved.
 */
export function collectionMovedTo(
  offer: PriceOffer,
  option: OfferOption,
  at: number,
): string | null {
  if (offer.kind !== "prices") return null;
  const day = promiseAtBooking(serviceTermsOf(offer, option), at).collection_on;
  return day === option.collection_on ? null : day;
}

/**
 * spec: courier 2.8: collection follows the booking's time against the cut-off. The dates shown
 * were worked out when the prices were given, on the same frozen terms: booked the same day
 * before the cut-off they are these dates; a quote booked days later cannot be collected then and
 * gets the later ones (held prices past the cut-off have expired: bookOffer, and book the dates
 * they showed: newShipment).
 */
export function promiseAtBooking(
  terms: Readonly<Record<string, unknown>>,
  bookedAt: number,
): DeliveryWindow {
  const { calendar, cut_off, transit_days } = termsOfPromise(terms);
  return deliveryWindow(calendar, bookedAt, cut_off, transit_days);
}

/** The frozen service terms a promise is worked out from (serviceTermsOf's shape). */
function termsOfPromise(terms: Readonly<Record<string, unknown>>) {
  return terms as {
    calendar: WorkingCalendar;
    cut_off: string;
    transit_days: number;
  };
}
