/**
 * A trip's creation (Business API 2.2, 3.1): the trip made of its claim's draft and what the
 * creation decided. `decide` and `evolve` both make it here, so a field's starting value is set in
 * one place, and the creation's event carries only what the creation decided: the draft is in
 * the claim's event already (issue 36: events carry what changed, not the whole record).
 */
import { DRIVER_APP_DEFAULTS, type Trip, type TripCreation, type TripDraft } from "./types.ts";

/** A trip not yet offered to anyone (spec: business 3.1 dispatch). */
export function noDispatch(): Trip["dispatch"] {
  return {
    first_offer_at: null,
    window_ends_at: null,
    window_ms: null,
    excluded: [],
    offer_after: null,
  };
}

/** The trip a creation makes of the draft: what it did not decide starts empty. */
export function createdTrip(d: TripDraft, c: TripCreation): Trip {
  return {
    ...d,
    id: c.id,
    status: c.status,
    created_at: c.created_at,
    charge: c.charge,
    ready_at: null,
    accepted_at: null,
    acceptances: 0,
    started_at: null,
    positions_since: null,
    driver: null,
    offer: null,
    dispatch: c.dispatch ?? noDispatch(),
    arrived_at: null,
    collected_at: null,
    completed_at: null,
    returning: false,
    return_reason: null,
    delivery_outcome: null,
    cancelled_at: null,
    cancelled_by: null,
    cancel_reason: null,
    refund: null,
    ...DRIVER_APP_DEFAULTS,
    scan_code: c.scan_code,
    tracking_revoked_at: null,
    retired_tracking_hashes: [],
  };
}
