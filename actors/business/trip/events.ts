/**
 * What a Business API trip records (2.2, 3.1): its events, the outcomes its commands decided. Apart
 * from the state and commands (types.ts), whose file they outgrew.
 */
import type {
  Claim,
  DeliveryProof,
  Money,
  Trip,
  TripCreation,
  TripDriver,
  TripOffer,
} from "./types.ts";

export type TripEvent =
  | { kind: "booking_claimed"; claim: Claim }
  | { kind: "booking_released"; at: number }
  | { kind: "booking_stalled"; at: number }
  /** The claim became a trip: what the creation decided (the draft is the claim's event's). */
  | ({ kind: "trip_created" } & TripCreation)
  /** A creation stored before its event carried only what changed: the whole trip. */
  | { kind: "trip_created"; trip: Trip }
  /** `window_ends_at`: a prep order ready before its offer time begins its window now. */
  | { kind: "trip_ready"; at: number; window_ends_at?: number }
  | {
    kind: "trip_accepted";
    at: number;
    driver: TripDriver;
    queued?: boolean;
    /** Trip positions_since (absent on events stored before it was kept: the acceptance). */
    positions_since?: number;
    /** The trip's nth acceptance, 1 the first (absent on events stored before they were counted). */
    acceptance?: number;
  }
  | { kind: "trip_offered"; at: number; offer: TripOffer }
  /** The queued trip became its driver's current one (spec: business 3.1 queued to accepted). */
  | { kind: "trip_started"; at: number; with_batch?: boolean }
  /** The offer ended unanswered: declined or expired; the driver is never asked again. */
  | { kind: "offer_ended"; at: number; offer_id: string; driver_id: string; declined: boolean }
  | { kind: "offer_after_set"; at: number }
  /** A trip stored before its window was decided at booking has it decided (time_dispatch). */
  | {
    kind: "dispatch_timed";
    at: number;
    offer_after: number | null;
    window_ends_at: number;
    window_ms: number;
  }
  | { kind: "offer_due"; at: number }
  | { kind: "trip_arrived"; at: number }
  | {
    kind: "trip_collected";
    at: number;
    /** Absent on events stored before custody scanning: as a forced collection without reason. */
    scanned?: boolean;
    override_reason?: string | null;
  }
  | { kind: "trip_arrived_dropoff"; at: number }
  | {
    kind: "trip_delivered";
    at: number;
    age_verified: boolean;
    cod_collected_minor: number | null;
    proof?: DeliveryProof;
  }
  | {
    kind: "delivery_failed";
    at: number;
    reason: string;
    id_refused: boolean;
    return_due_at?: number;
  }
  /** The driver gave the trip back before collection: it is dispatched again without them. */
  | { kind: "driver_withdrew"; at: number; driver_id: string; reason: string }
  | { kind: "return_completed"; at: number }
  | {
    kind: "trip_cancelled";
    at: number;
    by: string;
    reason: string | null;
    refund_due: Money | null;
  }
  /** `at`: when the credit was recorded (absent on events stored before it was kept). */
  | { kind: "trip_refunded"; refund: Money; at?: number }
  | { kind: "tracking_link_rotated"; at: number; token: string; retired_hashes: string[] }
  | { kind: "tracking_link_revoked"; at: number };
