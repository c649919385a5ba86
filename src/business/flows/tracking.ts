/**
 * The public tracking view (Business API 2.4): the trip a tracking token (or, reduced, a
 * reference) names, where its driver is, how fresh that is, the ETA and the breadcrumb. Tracking
 * gives position and ETA only and never drives settlement (2.4 rule 1): nothing here writes.
 */
// @ts-types="@types/mapbox__polyline"
import polyline from "@mapbox/polyline";
import {
  endedAt,
  linkTimes,
  trackingKey,
  trackingLinkStatus,
  type Trip,
  TRIP_REFERENCE_INDEX,
  TRIP_TRACKING_INDEX,
  tripActor,
} from "../../../actors/business/trip/mod.ts";
import {
  PLATFORM_SETTINGS_ID,
  PLATFORM_TENANT,
  platformSettingsActor,
} from "../../../actors/platform/platform_settings.ts";
import type { Deps } from "../../environment.ts";
import { orRefuse, refuse } from "../../runtime/actor.ts";
import type { LivePositions, Position } from "../reactors/live_positions.ts";
import { breadcrumb, newestStoredPosition } from "../queries/driver_positions.ts";
import { TRIP_STATUS_FLAGS } from "../rules/trip_status.ts";
import { newSecret } from "../../domain/secrets.ts";
import { catalogueOf } from "./fares.ts";
import { askTrip } from "./trips.ts";
import {
  ageSeconds,
  etaFrom,
  isFresh,
  linkExpiresAt,
  locationSince,
  stopsReached,
  TRACKING_POLL_SECONDS,
} from "../rules/tracking.ts";

/** The flow's dependencies: the environment's and its live positions (livePositionsOf). */
export type TrackingDeps = Pick<Deps, "runtime" | "db" | "clock"> & {
  readonly positions: LivePositions;
};

export type Scope = "token" | "reference";

/** What 2.4 shows of a trip, before it is put in words. */
export interface Tracking {
  readonly trip: Trip;
  readonly scope: Scope;
  readonly is_active: boolean;
  readonly position: Position | null;
  readonly location_age_seconds: number | null;
  readonly location_is_fresh: boolean | null;
  readonly eta_minutes: number | null;
  readonly poll_after_seconds: number | null;
  readonly route_polyline: string | null;
  /** spec: business 2.4 stops[].reached, one per stop in order. */
  readonly stops_reached: readonly boolean[];
  readonly link_expires_at: number;
}

const NOT_FOUND = "no trip has this tracking link";

/**
 * What a link may name: a token or a reference (`/trip-track/`), or a reference alone (2.4 rule
 * 5's `/track/<reference>`, whose view is the reduced one whatever it is sent).
 */
export type LinkKind = "token_or_reference" | "reference";

/** The trip behind a token (scope token) or a reference (scope reference), or 404/410. */
export async function trackedTrip(
  deps: TrackingDeps,
  tokenOrReference: string,
  kind: LinkKind = "token_or_reference",
): Promise<{ trip: Trip; scope: Scope }> {
  const key = trackingKey(tokenOrReference);
  // Remembered once found: a token's trip never changes, and the trip itself says whether the
  // token is still its current one (a retired one answers 410 below).
  const cached = { cached: true };
  const byToken = kind === "reference"
    ? null
    : await deps.runtime.lookup(TRIP_TRACKING_INDEX, key, cached);
  const target = byToken ??
    await deps.runtime.lookup(TRIP_REFERENCE_INDEX, tokenOrReference, cached);
  if (!target) refuse("not_found", NOT_FOUND);
  const r = orRefuse(await deps.runtime.read(tripActor, target.tenant, target.id, { kind: "get" }));
  if (r.phase !== "booked") refuse("not_found", NOT_FOUND);
  const trip = r.trip;
  // spec: business 2.4 rule 6: a token rotated away was turned off, as a revoked one is.
  const retired = byToken !== null && trackingKey(trip.tracking_token) !== key;
  const status = retired ? "revoked" : trackingLinkStatus(trip, deps.clock.now());
  if (status === "revoked") {
    refuse("tracking_link_revoked", "the tracking link was turned off by the sender");
  }
  if (status === "expired") refuse("tracking_link_expired", "the tracking link has expired");
  return { trip, scope: byToken ? "token" : "reference" };
}

/** spec: business 2.4: the whole view of a tracked trip. */
export async function tracking(
  deps: TrackingDeps,
  tokenOrReference: string,
  kind: LinkKind = "token_or_reference",
): Promise<Tracking> {
  const { trip, scope } = await trackedTrip(deps, tokenOrReference, kind);
  const now = deps.clock.now();
  const is_active = !TRIP_STATUS_FLAGS[trip.status].final;
  // spec: business 2.4 rule 2: driver position null once ended.
  const position = is_active ? await driverPosition(deps, trip) : null;
  const fresh = position ? await freshSeconds(deps) : null;
  const points = await breadcrumbOf(deps, trip, now);
  return {
    trip,
    scope,
    is_active,
    position,
    location_age_seconds: position ? ageSeconds(position.at, now) : null,
    location_is_fresh: position && fresh !== null ? isFresh(position.at, now, fresh) : null,
    eta_minutes: position ? await etaOf(deps, trip, position) : null,
    poll_after_seconds: is_active ? TRACKING_POLL_SECONDS : null,
    // spec: business 2.4 rule 4: the stored breadcrumb since the trip began, else null.
    route_polyline: points.length === 0 ? null : polyline.encode(points.map((p) => [p.lat, p.lng])),
    stops_reached: stopsReached(trip.stops, {
      // This instance's newest position too: a stop is shown passed before the batch is kept.
      points: [...points, ...(position ? [position] : [])]
        .filter((p) => trip.collected_at !== null && p.at >= trip.collected_at),
      // A trip completed as returned came back from wherever it failed, maybe short of a stop.
      at_destination: trip.arrived_dropoff_at !== null || trip.delivery_outcome === "delivered",
    }),
    link_expires_at: linkExpiresAt(linkTimes(trip)),
  };
}

/**
 * This instance's newest position of the trip's driver, else the newest stored one; null while
 * it is not the trip's to show (spec: business 3.1 queued: observed on the driver's other trip).
 */
async function driverPosition(deps: TrackingDeps, trip: Trip): Promise<Position | null> {
  const since = locationSince(trip);
  if (!trip.driver || since === null) return null;
  const id = trip.driver.id;
  const newest = deps.positions.latest(id) ?? await newestStoredPosition(deps.db, id);
  return newest !== null && newest.at >= since ? newest : null;
}

/** spec: business 2.4 rule 3: the same age limit as dispatch (operator setting). */
async function freshSeconds(deps: TrackingDeps): Promise<number> {
  const settings = orRefuse(
    await deps.runtime.read(platformSettingsActor, PLATFORM_TENANT, PLATFORM_SETTINGS_ID, {
      kind: "get",
    }),
  );
  return settings.position_fresh_seconds;
}

/**
 * To the pickup until collected, then to the destination; back to the pickup while a failed
 * delivery returns there (spec: business 3.1 returning): the driver is no longer coming.
 */
async function etaOf(deps: TrackingDeps, trip: Trip, p: Position): Promise<number> {
  const target = trip.collected_at === null || trip.returning ? trip.pickup : trip.dest;
  const catalogue = await catalogueOf(deps);
  return etaFrom(p, target, {
    road_factor_bp: catalogue.road_factor_bp,
    capacity_class: trip.vehicle.vehicle_class.capacity_class,
  });
}

/**
 * The driver's stored positions since the trip began, oldest first: since acceptance, or since a
 * queued trip started (none while queued: spec: business 3.1), never before a driver.
 */
export function breadcrumbOf(
  deps: Pick<Deps, "db">,
  trip: Trip,
  now: number,
): Promise<{ lat: number; lng: number; at: number }[]> {
  const since = locationSince(trip);
  if (!trip.driver || trip.accepted_at === null || since === null) return Promise.resolve([]);
  const from = Math.max(trip.accepted_at, since);
  return breadcrumb(deps.db, trip.driver.id, from, endedAt(trip) ?? now);
}

/** spec: business 2.4 rule 6: a new tracking token for the caller's trip; the old one is off. */
export async function rotateTrackingLink(
  deps: Pick<Deps, "runtime">,
  business: string,
  idOrReference: string,
): Promise<Trip> {
  const token = newSecret("trk_");
  return (await askTrip(deps, business, idOrReference, { kind: "rotate_tracking", token })).trip;
}

/** spec: business 2.4 rule 6: turns the caller's trip's tracking link off until rotated. */
export async function revokeTrackingLink(
  deps: Pick<Deps, "runtime">,
  business: string,
  idOrReference: string,
): Promise<Trip> {
  return (await askTrip(deps, business, idOrReference, { kind: "revoke_tracking" })).trip;
}
