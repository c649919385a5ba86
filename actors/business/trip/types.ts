/**
 * A Business API trip (2.1, 2.2, 3.1): its state, commands and events. One actor per trip, keyed
 * by its reference; it is also the claim of the booking's external_reference or Idempotency-Key
 * (appendix 1, 2): the reference is derived from them, so every retry of one booking reaches this
 * actor, and its commands, one at a time, decide replay, conflict and in-progress.
 */
import type {
  AutopilotScenario,
  BookedAutopilot,
} from "../../../src/business/rules/sandbox_steps.ts";
import type { TripStatus } from "../../../src/business/rules/trip_status.ts";
import type { VehicleFields } from "../../../src/business/rules/vehicle.ts";
import type { FareLine } from "../../../src/business/rules/fare.ts";
import type { DispatchTimes } from "../../../src/business/rules/dispatch.ts";

export interface Place {
  readonly address: string;
  readonly lat: number;
  readonly lng: number;
}

/** spec: business 2.3: the batch a trip is a stop of, and its place in the driving order. */
export interface TripBatch {
  readonly id: string;
  /** 1 for the first stop the driver calls at. */
  readonly position: number;
  readonly stops: number;
  /** The wallet hold its charge draws from: its batch claim's (absent on stops booked before). */
  readonly hold?: string | undefined;
  /**
   * The business's reference of the batch (its external_reference, else its batch_reference):
   * the stop's webhooks carry it (spec: business 2.7). Absent: none given, or booked before.
   */
  readonly reference?: string | undefined;
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
  /** The booking's note (business 7: a note is test-marked too); absent on trips booked before. */
  readonly note?: string | null | undefined;
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
  /** spec: business 4.4: the booking's own autopilot scenario (sandbox only; absent: none). */
  readonly sandbox_scenario?: AutopilotScenario | undefined;
  /** spec: business 4.4: the autopilot decided at booking (sandbox only; absent: decided late). */
  readonly sandbox_autopilot?: BookedAutopilot | undefined;
  /** A stop of a batch (absent: a booking of its own). */
  readonly batch?: TripBatch | undefined;
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

/**
 * The trip's dispatch so far. spec: business 3.1: the window counts from when the trip is first
 * due to be offered (decided at booking); a trip stored before counts it from its first offer.
 */
export interface TripDispatch {
  readonly first_offer_at: number | null;
  /** When no acceptance by then cancels the trip by the system (null: stored before, see above). */
  readonly window_ends_at: number | null;
  /** The window's length decided at booking, in ms: a prep order marked ready early begins it. */
  readonly window_ms: number | null;
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
  /**
   * How many times a driver accepted the trip: one given back is accepted again (spec: business
   * 3.1), and each acceptance is a trip.accepted of its own (6), numbered by this count.
   */
  readonly acceptances: number;
  /**
   * When the driver began this trip: its acceptance, or for one accepted queued behind the
   * driver's trip under way, when it became theirs (spec: business 3.1 queued to accepted); null
   * before and while queued. Where the driver was before it is not this trip's (2.4).
   */
  readonly started_at: number | null;
  /**
   * From when its driver's positions may be shown (a position observed then or later), decided at
   * acceptance: after the driver last gave up a trip, else from the acceptance; null before. One
   * observed before may be another business's trip's, at its customer's door (spec: business 2.4,
   * 3.1; rules/tracking.ts locationSince).
   */
  readonly positions_since: number | null;
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
  /** spec: business 2.2: the custody token when the business has custody scanning, else null. */
  readonly scan_code: string | null;
  /** spec: business 2.2: null until the driver's scan matches; stays null on a forced collection. */
  readonly scanned_at: number | null;
  /** spec: business 3.1: a collection without a matching scan, with the driver's reason. */
  readonly collect_override: { readonly at: number; readonly reason: string } | null;
  /** The driver reached the drop-off (3.1 keeps status active meanwhile). */
  readonly arrived_dropoff_at: number | null;
  /** When a return started by a failed delivery or a refused ID is due back. */
  readonly return_due_at: number | null;
  /** What the driver recorded at the door (spec: business 3.1 "delivery done"). */
  readonly delivery_proof: DeliveryProof | null;
  /** spec: business 2.4 rule 6: when the tracking link was turned off; null until then. */
  readonly tracking_revoked_at: number | null;
  /** Hashes of the tokens rotated away, oldest first (bounded): their holders hear 410. */
  readonly retired_tracking_hashes: readonly string[];
}

/**
 * What a trip's creation decided beyond its claim's draft (spec: business 2.2, 3.1): every other
 * field of the trip is the draft's or starts empty (creation.ts).
 */
export interface TripCreation {
  readonly id: number;
  readonly status: TripStatus;
  readonly created_at: number;
  readonly charge: Money | null;
  readonly scan_code: string | null;
  /** When it is first offered and its window ends (absent on creations stored before). */
  readonly dispatch?: TripDispatch;
}

/** A file a driver uploaded (a proof photo, a signature), stored content-addressed. */
export interface FileRef {
  readonly sha256: string;
  readonly name: string;
  readonly size: number;
  readonly content_type: string;
}

export interface DeliveryProof {
  readonly id_checked: boolean;
  readonly proof_photo: FileRef | null;
  readonly signature: FileRef | null;
  readonly cod_collected_minor: number | null;
}

/** The fields a trip stored before the driver app gained them starts with. */
export const DRIVER_APP_DEFAULTS = {
  scan_code: null,
  scanned_at: null,
  collect_override: null,
  arrived_dropoff_at: null,
  return_due_at: null,
  delivery_proof: null,
} as const;

/** Which retry contract a booking came under (appendix 1 or 2): it names its refusals. */
export type KeyKind = "external_reference" | "idempotency_key" | "none";

/** A booking claimed and not yet a trip (its charge may or may not have been made). */
export interface Claim {
  readonly draft: TripDraft;
  readonly fingerprint: string;
  readonly key_kind: KeyKind;
  readonly claimed_at: number;
  /**
   * What the booking books for (a checkout, Business API 4.1; a shopping order, shopping 2.2):
   * the claim charges only once that let it through, so a booking whose hold a sweep gave back
   * (it stopped between two steps) never charges afterwards.
   */
  readonly gate?: ClaimGate;
}

/** A checkout (and the booking's attempt holding it), or a shopping order's claim, at the gate. */
export type ClaimGate =
  | { readonly kind: "checkout"; readonly reference: string; readonly attempt: string }
  | { readonly kind: "shopping_order"; readonly claim_id: string };

export type TripState =
  | { readonly phase: "free" }
  | { readonly phase: "booking"; readonly claim: Claim }
  | { readonly phase: "booked"; readonly trip: Trip; readonly fingerprint: string };

/**
 * What a driver does (spec: business 3.1). `driver_id`, when given, must be the trip's driver:
 * another driver's trip is not found, word for word as a missing one (CONTRACT "Driver app").
 */
export type DriverAction = DriverMove & {
  /**
   * The digest of the driver app's request (CONTRACT "Driver app"), answered back in the reply
   * kept under its key, so another request under the same key is told from its replay.
   */
  readonly request?: string;
};

/** The driver's transitions themselves (DriverAction without the request's digest). */
type DriverMove =
  /** `offer_id`: the offer answered; `queued`: the driver holds a trip this one follows. */
  | {
    kind: "accept";
    driver: TripDriver;
    offer_id?: string;
    queued?: boolean;
    /** From when the driver's positions may be shown (Trip positions_since); absent: acceptance. */
    positions_since?: number;
  }
  | { kind: "arrive"; driver_id?: string }
  /**
   * spec: business 3.1 queued: the driver's trip under way ended; this one is theirs now.
   * `with_batch`: started with the stop of its batch the driver held (2.3), not held itself.
   */
  | { kind: "start"; driver_id: string; with_batch?: boolean }
  | {
    kind: "collect";
    driver_id?: string;
    scan_code?: string;
    force_reason?: string;
    /**
     * Every store of the trip's shopping order is finished (collected or unavailable), as the
     * driver app read the stores: the basket is the handover (shopping 1.1), ready before its
     * outbox marks the trip so.
     */
    basket_finished?: boolean;
  }
  | { kind: "arrive_dropoff"; driver_id?: string }
  | {
    kind: "deliver";
    driver_id?: string;
    delivery_code?: string;
    id_checked?: boolean;
    proof_photo?: FileRef;
    signature?: FileRef;
    cod_collected_amount_minor?: number;
  }
  | { kind: "fail"; driver_id?: string; reason: string }
  | { kind: "refuse_id"; driver_id?: string; reason: string }
  | { kind: "complete_return"; driver_id?: string }
  | {
    kind: "withdraw";
    driver_id: string;
    reason: string;
    /** The operator's dispatch window (dispatch_window_minutes), in ms. */
    dispatch_window_ms: number;
    /** false: the trip ends, never put back (the sandbox's simulated driver, business 4.4). */
    redispatch?: boolean;
  };

export type TripCommand =
  | { kind: "claim"; claim: Omit<Claim, "claimed_at"> }
  | { kind: "release"; fingerprint: string }
  | {
    kind: "create";
    fingerprint: string;
    id: number;
    charge: Money | null;
    /** spec: business 2.2: the custody token, when the business has custody scanning. */
    scan_code?: string | null;
    /**
     * spec: business 3.1: the first offer, decided with the creation (the dispatcher chose and
     * holds the driver), so it is committed with the trip and not behind another commit.
     */
    offer?: { offer: TripOffer; window_ends_at: number } | null;
    /**
     * spec: business 3.1: the operator's dispatch times now: when the trip is first due to be
     * offered and its window's end follow from them (absent: the window begins at a first offer).
     */
    times?: DispatchTimes;
  }
  | { kind: "ready" }
  | { kind: "cancel"; by: string; reason: string | null }
  | { kind: "refunded"; refund: Money }
  | DriverAction
  /** spec: business 2.4 rule 6: a new tracking token (made by the caller), or the link off. */
  | { kind: "rotate_tracking"; token: string }
  | { kind: "revoke_tracking" }
  | DispatchCommand
  | { kind: "get" }
  /** The booking's state, a claim in progress included (the completing sweep). */
  | { kind: "claim_state" }
  /**
   * What a retry of a keyed booking gets, without claiming: the first trip (replayed), in
   * progress or conflict as a claim answers them; free when no booking holds the key.
   */
  | { kind: "replay"; fingerprint: string; key_kind: KeyKind };

/** The dispatcher's commands (spec: business 3.1): the settings' times come with them. */
export type DispatchCommand =
  | { kind: "offer"; offer: TripOffer; window_ends_at: number }
  | { kind: "decline"; offer_id: string; driver_id: string }
  | { kind: "offer_after"; at: number }
  /**
   * spec: business 3.1: the dispatch window ended: a trip still waiting for a driver ends as its
   * window's timer ends it. The trip's own window when decided at booking; for a trip stored
   * before, `window_ends_at` (the first offer plus the operator's dispatch_window_minutes). For a
   * trip left with no such timer: one given back inside its window by code that did not set the
   * timer again.
   */
  | { kind: "window_ended"; window_ends_at: number }
  /**
   * spec: business 3.1: a trip stored before its window was decided at booking (one never
   * offered had none) has it decided now, as at booking, with the operator's times.
   */
  | { kind: "time_dispatch"; times: DispatchTimes };

/** The events one commit recorded: its first and last sequence numbers in the trip's log. */
export interface TripCommit {
  readonly first_seq: number;
  readonly last_seq: number;
}

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
    /**
     * The log positions of the events the answered command's commit recorded; absent when it
     * recorded none (a read, a retry that changed nothing). A replay answers the first's.
     */
    readonly commit?: TripCommit;
    /** The booking's body fingerprint: only the `claim_state` read answers it. */
    readonly fingerprint?: string;
    readonly replayed?: boolean;
    readonly already_cancelled?: boolean;
    /** The digest of the driver app's request this answers (DriverAction `request`). */
    readonly request?: string;
  };
