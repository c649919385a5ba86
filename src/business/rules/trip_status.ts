/**
 * A trip's statuses (Business API 3.1) with their cancellable and final flags: the one table the
 * trip actor, its answers and the OpenAPI document read.
 */

/** spec: business 3.1, every status. */
export const TRIP_STATUSES = [
  "pending",
  "scheduled",
  "queued",
  "accepted",
  "enroute",
  "arrived",
  "active",
  "completed",
  "cancelled",
] as const;

export type TripStatus = typeof TRIP_STATUSES[number];

export interface StatusFlags {
  readonly cancellable: boolean;
  readonly final: boolean;
}

/** spec: business 3.1, the Cancellable and Final columns. */
export const TRIP_STATUS_FLAGS: Readonly<Record<TripStatus, StatusFlags>> = {
  pending: { cancellable: true, final: false },
  scheduled: { cancellable: true, final: false },
  queued: { cancellable: true, final: false },
  accepted: { cancellable: true, final: false },
  enroute: { cancellable: true, final: false },
  arrived: { cancellable: true, final: false },
  active: { cancellable: false, final: false },
  completed: { cancellable: false, final: true },
  cancelled: { cancellable: false, final: true },
};

/**
 * The trip's eta_minutes as its reads and webhooks give it (2.2): the booking's estimate while it
 * may still arrive, null once it ended (2.4: what is not assigned is null), never an ended trip
 * still some minutes away.
 */
export function shownEtaMinutes(t: { status: TripStatus; eta_minutes: number }): number | null {
  return TRIP_STATUS_FLAGS[t.status].final ? null : t.eta_minutes;
}

/** spec: business 3.1: "enroute: older clients ... treat as accepted". */
export function isAccepted(s: TripStatus): boolean {
  return s === "accepted" || s === "enroute";
}

/** Who cancelled a trip, as the business is told (trip.cancelled, the trip's reads). */
export type Canceller = "business" | "driver" | "system";

/**
 * spec: business 3.1, 6 trip.cancelled `cancelled_by`: `driver`, `system` (no driver answered)
 * or `business` (its own request, whichever key or person sent it). The credential that asked
 * stays in the trip's event log; a key's or a person's id is not the business's webhook's.
 */
export function cancellerOf(by: string | null): Canceller | null {
  if (by === null) return null;
  return by === "driver" || by === "system" ? by : "business";
}
