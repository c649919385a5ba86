/**
 * The public tracking view's rules (Business API 2.4): how long a tracking link lives, whether a
 * position is fresh, when to poll again, and the ETA from the driver's position.
 */
import { greatCircleKm, type Point } from "../../domain/geo.ts";
import type { CapacityClass } from "./catalogue.ts";
import type { TripStatus } from "./trip_status.ts";

/** spec: business 2.4 rule 2, 8: poll every 15 seconds while the trip is active. */
export const TRACKING_POLL_SECONDS = 15;

/**
 * spec: business 2.4 rule 6: a link expires some days after the delivery is due: a week, so a
 * customer can still look back at a delivery delayed over a weekend.
 */
export const TRACKING_LINK_DAYS_AFTER_DUE = 7;

/**
 * spec: business 2.4 rule 6: and closes shortly after the trip ends: an hour, long enough for the
 * customer to see it arrived, short enough that an old link stops showing where anyone is.
 */
export const TRACKING_LINK_CLOSE_MINUTES_AFTER_END = 60;

/** Retired tokens (rotated away) a trip remembers, so their holders hear 410 and not 404. */
export const TRACKING_TOKENS_RETIRED_MAX = 5;

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

/** What the link's expiry depends on. */
export interface LinkTimes {
  readonly created_at: number;
  readonly scheduled_at: number | null;
  /** Minutes from pickup to destination estimated at booking. */
  readonly eta_minutes: number;
  /** When the trip completed or was cancelled; null while it runs. */
  readonly ended_at: number | null;
}

/** When the delivery is due: its start (scheduled or booked) plus the booking's estimate. */
export function dueAt(t: LinkTimes): number {
  return (t.scheduled_at ?? t.created_at) + t.eta_minutes * MINUTE_MS;
}

/** spec: business 2.4 rule 6: the earlier of some days after due and shortly after the end. */
export function linkExpiresAt(t: LinkTimes): number {
  const afterDue = dueAt(t) + TRACKING_LINK_DAYS_AFTER_DUE * DAY_MS;
  if (t.ended_at === null) return afterDue;
  return Math.min(afterDue, t.ended_at + TRACKING_LINK_CLOSE_MINUTES_AFTER_END * MINUTE_MS);
}

export type LinkStatus = "active" | "revoked" | "expired";

/**
 * spec: business 2.2, 2.4: the trip's tracking_url: the public view of its token under the
 * environment's address (`base`, without `/api`), as reads and webhooks both answer it.
 */
export function tripTrackingUrl(base: string, token: string): string {
  return `${base}/api/trip-track/${token}`;
}

/** spec: business 2.4 rule 6: revoked until rotated; else expired past its time. */
export function linkStatus(t: LinkTimes & { revoked_at: number | null }, now: number): LinkStatus {
  if (t.revoked_at !== null) return "revoked";
  return now >= linkExpiresAt(t) ? "expired" : "active";
}

/** The position's age in whole seconds (a device clock slightly ahead counts as 0). */
export function ageSeconds(observedAt: number, now: number): number {
  return Math.max(0, Math.floor((now - observedAt) / 1_000));
}

/**
 * The oldest observation still fresh at `now`: dispatch offers only drivers seen since then
 * (spec: business 2.4 rule 3: tracking's freshness is this same limit, to the millisecond).
 */
export function freshAfter(now: number, freshSeconds: number): number {
  return now - freshSeconds * 1_000;
}

/** spec: business 2.4 rule 3: fresh within the same age limit as dispatch. */
export function isFresh(observedAt: number, now: number, freshSeconds: number): boolean {
  return observedAt >= freshAfter(now, freshSeconds);
}

/** What of a trip says since when its driver's whereabouts are the trip's (spec: business 3.1). */
export interface TripStart {
  readonly status: TripStatus;
  readonly accepted_at?: number | null | undefined;
  /** Absent on a trip stored before it was kept: as its acceptance. */
  readonly started_at?: number | null | undefined;
  /**
   * From when its driver's positions may be shown, decided at acceptance (positionsSinceRelease).
   * Absent on a trip stored before it was kept: from its acceptance.
   */
  readonly positions_since?: number | null | undefined;
}

/** Any position of the driver may be shown: one not queued behind another trip (today's view). */
export const SEEN_ANY_TIME = -Infinity;

/**
 * spec: business 3.1 queued: from when the trip began to be its driver's, null: not now. Never
 * while the trip waits queued behind the driver's trip under way, nor for one that never left the
 * queue; from its start once a queued trip starts; for a trip not queued, SEEN_ANY_TIME.
 */
export function startedSince(t: TripStart): number | null {
  const accepted = t.accepted_at ?? null;
  const started = t.started_at === undefined ? accepted : t.started_at;
  if (t.status === "queued" || (started === null && accepted !== null)) return null;
  return started !== null && accepted !== null && started > accepted ? started : SEEN_ANY_TIME;
}

/**
 * spec: business 2.4, 3.1: from when the trip's viewers may see where its driver is (a position
 * observed then or later), null: not now. Not before the trip started (startedSince: the driver's
 * position then is the trip under way's, maybe another business's customer's door), nor before
 * the time its acceptance recorded (positions_since: a position observed before the driver last
 * gave up a trip may be that trip's); a trip stored before that was kept: from its acceptance.
 */
export function locationSince(t: TripStart): number | null {
  const started = startedSince(t);
  if (started === null) return null;
  const from = t.positions_since === undefined ? t.accepted_at ?? null : t.positions_since;
  return from === null ? started : Math.max(started, from);
}

/**
 * spec: business 2.4, 3.1; tenant isolation: from when a trip the driver accepts may show their
 * positions, given when they last gave up a trip (the pool driver's released_at: 0 never, null
 * or absent not known): only positions observed after it; undefined when not known (the trip then
 * shows none observed before its acceptance).
 */
export function positionsSinceRelease(released: number | null | undefined): number | undefined {
  return typeof released === "number" && Number.isFinite(released) ? released + 1 : undefined;
}

/**
 * Average town speeds per capacity class, in km/h. A small vehicle (motorcycle, car: no class)
 * threads traffic best; a bigger truck is slower in town and through loading bays. These are
 * planning figures for an estimate, not a routing engine.
 */
export const TOWN_SPEED_KMH: Readonly<Record<CapacityClass | "none", number>> = {
  none: 30,
  half_ton: 27,
  one_ton: 25,
  three_ton: 22,
  eight_ton: 18,
};

/** An ETA is never shown below a minute: "arriving now" is 1. */
const ETA_MINUTES_FLOOR = 1;

/**
 * spec: business 2.4 eta_minutes: from the driver's position to the target (the pickup before
 * collection, the destination after) over the road (great circle times the road factor, as the
 * fare calculator measures) at the vehicle class's town speed.
 */
export function etaFrom(
  from: Point,
  to: Point,
  o: { readonly road_factor_bp: number; readonly capacity_class: CapacityClass | null },
): number {
  const roadKm = greatCircleKm(from, to) * o.road_factor_bp / 10_000;
  const kmh = TOWN_SPEED_KMH[o.capacity_class ?? "none"];
  return Math.max(ETA_MINUTES_FLOOR, Math.ceil(roadKm / kmh * 60));
}

/**
 * spec: business 2.4 stops[].reached: a stop is passed when the driver came this close to it. A
 * phone's fix in town is good to some tens of metres and a driver stops at the kerb, not on the
 * pin; 100 m is within the same street front, short of the next stop of a multi-drop (2.1: at
 * most 3) in most towns.
 */
export const STOP_REACHED_METRES = 100;

/** What the stops' progress is worked out from. */
export interface StopProgress {
  /** The driver's positions since collection, oldest first (stops come after the pickup). */
  readonly points: readonly Point[];
  /** The driver reached the destination (arrive_dropoff) or delivered (not a return). */
  readonly at_destination: boolean;
}

/**
 * spec: business 2.4 stops[].reached, in order: stop i is reached by a position that came within
 * STOP_REACHED_METRES of it after the one that reached stop i-1; every stop once the driver is at
 * the destination, which the stops come before.
 */
export function stopsReached(stops: readonly Point[], p: StopProgress): boolean[] {
  if (p.at_destination) return stops.map(() => true);
  const reached = stops.map(() => false);
  let next = 0;
  for (const point of p.points) {
    if (next >= stops.length) break;
    if (greatCircleKm(point, stops[next]!) * 1_000 <= STOP_REACHED_METRES) reached[next++] = true;
  }
  return reached;
}
