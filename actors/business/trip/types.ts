/**
 * A Business API trip (2.1, 2.2, 3.1): its state, commands and events. One actor per trip, keyed
 * by its reference; it is also the claim of the booking's external_reference or Idempotency-Key
 * (appendix 1, 2): the reference is derived from them, so every retry of one booking reaches this
 * actor, and its commands, one at a time, decide replay, conflict and in-progress.
 */
import type { TripStatus } from "../../../src/business/rules/trip_status.ts";
import type { VehicleFields } from "../../../src/business/rules/vehicle.ts";
import type { FareLine } from "../../../src/business/rules/fare.ts";

export interface Place {
  readonly address: string;
  readonly lat: number;
  readonly lng: number;
}

/** What a booking decided before its charge: everything the trip is made of but its number. */
export interface TripDraft {
  readonly business_id: string;
  readonly reference: string;
  readonly type: "ride" | "parcel";
  readonly segment: "parcel" | "cargo" | null;
  readonly passenger_name: string | null;
  readonly passenger_phone: string | null;
  readonly pickup: Place;
  readonly stops: readonly Place[];
  /** dropoff_* for a ride, dest_* for a delivery (2.1). */
  readonly dest: Place;
  readonly external_reference: string | null;
  readonly scheduled_at: number | null;
  readonly prep_minutes: number | null;
  readonly handover_required: boolean;
  readonly order_payload: Readonly<Record<string, unknown>> | null;
  readonly cod_amount_minor: number | null;
  readonly delivery_code: string | null;
  readonly age_verification_required: boolean;
  readonly expense_code: string | null;
  readonly shop_deliver: boolean;
  readonly parcel_weight_kg: number | null;
  readonly vehicle: VehicleFields;
  readonly billing_amount_minor: number;
  readonly billing_currency: string;
  readonly fare_lines: readonly FareLine[];
  readonly distance_m: number;
  readonly eta_minutes: number;
  readonly chat_token: string;
  readonly tracking_token: string;
  readonly is_test: boolean;
}

/** The wallet transaction that paid for a trip, or refunded it. */
export interface Money {
  readonly transaction_id: string | null;
  readonly amount_minor: number;
  readonly currency: string;
}

/**
 * The driver a trip was accepted by (spec: business 2.4 driver_name, driver_phone, driver_plate,
 * driver_color), copied at acceptance: the trip keeps who drove it whatever the driver changes.
 */
export interface TripDriver {
  readonly id: string;
  readonly name: string;
  readonly phone: string | null;
  readonly plate: string | null;
  readonly color: string | null;
  readonly vehicle_type_id: number;
}

/** The offer waiting now for one driver's answer (spec: business 3.1 dispatch). */
export interface TripOffer {
  readonly offer_id: string;
  readonly driver_id: string;
  readonly expires_at: number;
}

/** The trip's dispatch so far: the window counts from the first offer (spec: business 3.1). */
export interface TripDispatch {
  readonly first_offer_at: number | null;
  /** Drivers who declined or let an offer expire: never asked again for this trip. */
  readonly excluded: readonly string[];
  /** A prep order or a scheduled trip is not offered before this (null: at once). */
  readonly offer_after: number | null;
}

export interface Trip extends TripDraft {
  /** spec: business 2.2: the integer id, numbered per business. */
  readonly id: number;
  readonly status: TripStatus;
  readonly created_at: number;
  readonly charge: Money | null;
  readonly ready_at: number | null;
  readonly accepted_at: number | null;
  /** Null until a driver accepts; one driver ever holds a trip at a time (spec: business 3.1). */
  readonly driver: TripDriver | null;
  readonly offer: TripOffer | null;
  readonly dispatch: TripDispatch;
  readonly arrived_at: number | null;
  readonly collected_at: number | null;
  readonly completed_at: number | null;
  readonly returning: boolean;
  readonly return_reason: string | null;
  readonly delivery_outcome: "delivered" | "returned" | null;
  readonly cancelled_at: number | null;
  readonly cancelled_by: string | null;
  readonly cancel_reason: string | null;
  /** Set once the refund of the charge is credited back (the refund outbox). */
  readonly refund: Money | null;
}

/** Which retry contract a booking came under (appendix 1 or 2): it names its refusals. */
export type KeyKind = "external_reference" | "idempotency_key" | "none";

/** A booking claimed and not yet a trip (its charge may or may not have been made). */
export interface Claim {
  readonly draft: TripDraft;
  readonly fingerprint: string;
  readonly key_kind: KeyKind;
  readonly claimed_at: number;
}

export type TripState =
  | { readonly phase: "free" }
  | { readonly phase: "booking"; readonly claim: Claim }
  | { readonly phase: "booked"; readonly trip: Trip; readonly fingerprint: string };

export type DriverAction =
  /** `offer_id`: the offer answered; `queued`: the driver holds a trip this one follows. */
  | { kind: "accept"; driver: TripDriver; offer_id?: string; queued?: boolean }
  | { kind: "arrive" }
  | { kind: "collect" }
  | { kind: "deliver"; cod_collected_amount_minor?: number }
  | { kind: "fail"; reason: string }
  | { kind: "refuse_id"; reason: string }
  | { kind: "complete_return" };

export type TripCommand =
  | { kind: "claim"; claim: Omit<Claim, "claimed_at"> }
  | { kind: "release"; fingerprint: string }
  | { kind: "create"; fingerprint: string; id: number; charge: Money | null }
  | { kind: "ready" }
  | { kind: "cancel"; by: string; reason: string | null }
  | { kind: "refunded"; refund: Money }
  | DriverAction
  | DispatchCommand
  | { kind: "get" }
  /** The booking's state, a claim in progress included (the completing sweep). */
  | { kind: "claim_state" };

export type TripEvent =
  | { kind: "booking_claimed"; claim: Claim }
  | { kind: "booking_released"; at: number }
  | { kind: "booking_stalled"; at: number }
  | { kind: "trip_created"; trip: Trip }
  | { kind: "trip_ready"; at: number }
  | { kind: "trip_accepted"; at: number; driver: TripDriver; queued?: boolean }
  | { kind: "trip_offered"; at: number; offer: TripOffer }
  /** The offer ended unanswered: declined or expired; the driver is never asked again. */
  | { kind: "offer_ended"; at: number; offer_id: string; driver_id: string; declined: boolean }
  | { kind: "offer_after_set"; at: number }
  | { kind: "offer_due"; at: number }
  | { kind: "trip_arrived"; at: number }
  | { kind: "trip_collected"; at: number }
  | {
    kind: "trip_delivered";
    at: number;
    age_verified: boolean;
    cod_collected_minor: number | null;
  }
  | { kind: "delivery_failed"; at: number; reason: string; id_refused: boolean }
  | { kind: "return_completed"; at: number }
  | {
    kind: "trip_cancelled";
    at: number;
    by: string;
    reason: string | null;
    refund_due: Money | null;
  }
  | { kind: "trip_refunded"; refund: Money };

/** The dispatcher's commands (spec: business 3.1): the settings' times come with them. */
export type DispatchCommand =
  | { kind: "offer"; offer: TripOffer; window_ends_at: number }
  | { kind: "decline"; offer_id: string; driver_id: string }
  | { kind: "offer_after"; at: number };

/** What the trip answers: the state, and what the booking's retry contract makes of it. */
export type TripReply =
  | { readonly phase: "free" }
  | {
    readonly phase: "booking";
    readonly claimed_at: number;
    readonly new_claim: boolean;
    readonly claim: Claim;
  }
  | {
    readonly phase: "booked";
    readonly trip: Trip;
    readonly replayed?: boolean;
    readonly already_cancelled?: boolean;
  };
