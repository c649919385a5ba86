/**
 * Courier 2.1-2.3, 4.1, 4.6: pricing and booking as flows (dependencies, the caller's facts and
 * the input in; a result or a Refused out), callable from a route, a reactor or a sweep alike.
 */
export { bookOffer, type BookOfferInput } from "./book.ts";
export {
  STOPPED_AFTER_CLAIM_MS,
  STOPPED_AFTER_EXPIRY_MS,
  type Withdrawal,
  withdrawBooking,
  withdrawStopped,
} from "./fence.ts";
export { bookForClient, type Office } from "./office.ts";
export { makeOffer, type PriceInput, QUOTE_HOLD_MS } from "./offer.ts";
export { BOOKING_REFUSALS, OFFER_REFUSALS, REQUEST_REFUSALS } from "./refusals.ts";
export { REQUEST_RETRY_AFTER_SECONDS } from "./request_identity.ts";
export type { Booked } from "./replay.ts";
export {
  type BookingRequest,
  bookRequest,
  type Caller,
  fingerprintOf,
  formerOneCallIdentity,
  identityOf,
  oneCallIdentity,
} from "./request.ts";
export { type BookingRow, bookRows, type RowFailed, serviceLevelCodes } from "./rows.ts";
export { completeStalledBooking, type StalledBooking } from "./stalled.ts";
