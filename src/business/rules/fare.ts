/**
 * The one fare calculator (Business API 4.1 fare-estimate: "same calculator as booking"): the
 * pickup's zone prices the resolved vehicle class and parcel band over the road distance
 * (great-circle distance times the catalogue's road factor; no network) and the stops between,
 * in the zone's currency. Exact: the distance charge is the only product, rounded once (mulDiv).
 */
import { reject, type Rejection } from "../../runtime/actor.ts";
import { pathKm, type Point } from "../../domain/geo.ts";
import { mulDiv, sumMinor } from "../../domain/money.ts";
import { type Catalogue, zoneAt } from "./catalogue.ts";
import { type Declared, type Resolution, resolveVehicle, type UpgradePolicy } from "./vehicle.ts";

/** spec: business 2.1, 8: up to 3 stops on a booking, between pickup and destination. */
export const BOOKING_STOPS_MAX = 3;

export const FARE_LINE_CODES = [
  "base_fare",
  "distance",
  "parcel_size",
  "stops",
  "minimum_fare",
] as const;
export type FareLineCode = typeof FARE_LINE_CODES[number];

export interface FareLine {
  readonly code: FareLineCode;
  readonly amount_minor: number;
}

export interface Fare {
  readonly zone_id: string;
  readonly currency: string;
  /** Road metres: the path's great-circle metres times the road factor. */
  readonly distance_m: number;
  /** The lines add up to the amount exactly. */
  readonly lines: readonly FareLine[];
  readonly amount_minor: number;
}

export interface Route {
  readonly pickup: Point;
  /** In the order the driver calls at them; at most BOOKING_STOPS_MAX. */
  readonly stops: readonly Point[];
  readonly dest: Point;
}

export type Priced = { readonly ok: true; readonly fare: Fare } | Rejection;

/** The fare of a resolved vehicle and band over a route. */
export function fareOf(c: Catalogue, route: Route, r: Resolution): Priced {
  if (route.stops.length > BOOKING_STOPS_MAX) {
    throw new RangeError(`at most ${BOOKING_STOPS_MAX} stops: ${route.stops.length}`);
  }
  const zone = zoneAt(c, route.pickup.lat, route.pickup.lng);
  if (!zone) {
    return reject(
      "outside_service_area",
      `no zone serves the pickup at ${route.pickup.lat}, ${route.pickup.lng}: see GET /business/zones`,
    );
  }
  // A complete catalogue has both (catalogue.ts checks it), so a gap is a broken invariant.
  const rate = zone.rates.find((x) => x.vehicle_type_id === r.vehicle.id);
  const band = r.parcel_size.rates.find((x) => x.zone_id === zone.id);
  if (!rate || !band) throw new Error(`catalogue without a rate in zone ${zone.id}`);
  const straight_m = Math.round(pathKm([route.pickup, ...route.stops, route.dest]) * 1_000);
  const distance_m = mulDiv(straight_m, c.road_factor_bp, 10_000);
  const lines: FareLine[] = [
    { code: "base_fare", amount_minor: rate.base_fare_minor },
    { code: "distance", amount_minor: mulDiv(rate.per_km_minor, distance_m, 1_000) },
    { code: "parcel_size", amount_minor: band.amount_minor },
    { code: "stops", amount_minor: rate.per_stop_minor * route.stops.length },
  ];
  const sum = sumMinor(lines.map((l) => l.amount_minor));
  if (sum < zone.minimum_fare_minor) {
    lines.push({ code: "minimum_fare", amount_minor: zone.minimum_fare_minor - sum });
  }
  return {
    ok: true,
    fare: {
      zone_id: zone.id,
      currency: zone.currency,
      distance_m,
      lines,
      amount_minor: Math.max(sum, zone.minimum_fare_minor),
    },
  };
}

/** A trip's vehicle and fare: what the estimate answers and the booking bills. */
export interface TripPrice {
  readonly resolution: Resolution;
  readonly fare: Fare;
}

/**
 * Resolves the vehicle for the declared goods and prices the route: the one function behind both
 * GET /business/trip/fare-estimate and the booking's billing_amount.
 */
export function priceTrip(
  c: Catalogue,
  route: Route,
  declared: Declared,
  policy: UpgradePolicy,
): { readonly ok: true; readonly price: TripPrice } | Rejection {
  const resolved = resolveVehicle(c, declared, policy);
  if (!resolved.ok) return resolved;
  const priced = fareOf(c, route, resolved.resolution);
  if (!priced.ok) return priced;
  return { ok: true, price: { resolution: resolved.resolution, fare: priced.fare } };
}
