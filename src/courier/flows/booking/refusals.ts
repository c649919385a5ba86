/**
 * What the booking flows refuse (courier 4.1, 4.6, 7), by code: the routes list these in their
 * OpenAPI entries, and a refusal out of a flow is one of them.
 */
import { refuse } from "../../../runtime/actor.ts";

/** What pricing can refuse (makeOffer), besides the request's own fields. */
export const OFFER_REFUSALS = {
  validation_failed: "liability_cover without declared_value; a latitude or longitude without " +
    "the other; a size or value that makes a price too large to state exactly",
  no_rate_card: "the client has no rate card, or no version of it is in force yet",
  no_service_levels: "the courier has no service levels to offer",
} as const;

/** What booking an option of an offer can refuse (bookOffer), courier 4.1 and 7. */
export const BOOKING_REFUSALS = {
  prices_expired: "the held prices expired (their hold passed, or the cut-off moved collection " +
    "past the day shown); ask for prices again",
  validation_failed: "service_level is not among the options offered",
  duplicate_order: "unique_external_reference is set and the external reference is repeated",
  insufficient_balance: "prepaid balance or credit limit exceeded; nothing is booked or charged",
  currency_mismatch: "the client's billing currency changed since the prices were given",
  reference_conflict: "these prices were already booked with another service_level or " +
    "dangerous_goods_confirmed",
} as const;

/**
 * What booking a request in one call can refuse: pricing's and booking's refusals, and those of
 * its identity (bookRequest).
 */
export const REQUEST_REFUSALS = {
  ...OFFER_REFUSALS,
  ...BOOKING_REFUSALS,
  validation_failed: `${OFFER_REFUSALS.validation_failed}; ${BOOKING_REFUSALS.validation_failed}`,
  duplicate_order: `${BOOKING_REFUSALS.duplicate_order}, or booked before with other details`,
  request_in_progress: "another request with this idempotency key or client_order_reference is " +
    "being booked; retry after `Retry-After` seconds",
  idempotency_key_reused: "the idempotency key was sent before with another request",
} as const;

/** A field of the request and what is wrong with it. */
export interface FieldProblem {
  readonly path: string;
  readonly message: string;
}

/**
 * Refuses the request for its fields (CONTRACT: 422 validation_failed with `errors[{path,
 * message}]`), worded as the HTTP layer words a request its schema refused.
 */
export function refuseFields(errors: readonly FieldProblem[]): never {
  const summary = errors.map((e) => `${e.path || "body"}: ${e.message}`).join("; ");
  refuse("validation_failed", `invalid request: ${summary}`, { errors });
}
