/**
 * The Business API's reference data (4.3: vehicle types, parcel sizes, zones; 3.2): what vehicles
 * exist, which parcel band a load falls in, and what a zone charges. One catalogue per environment,
 * shipped as a default (default_catalogue.ts) that the operator may replace. Amounts are kept in
 * minor units of the zone's currency; requests and answers carry decimals (money.ts).
 */
import { type FieldError } from "../../runtime/actor.ts";
import { isCountryCode, isCurrencyCode } from "../../domain/iso_codes.ts";
import { toMinor } from "../../domain/money.ts";
import { greatCircleKm } from "../../domain/geo.ts";

/** spec: business 2.1 cargo_body_type. Ordered: each body can carry what those before it carry. */
export const BODY_TYPES = ["open", "closed", "refrigerated"] as const;
export type BodyType = typeof BODY_TYPES[number];

/** spec: business 2.1 cargo_capacity_class, smallest first ("a minimum, not an exact match"). */
export const CAPACITY_CLASSES = ["half_ton", "one_ton", "three_ton", "eight_ton"] as const;
export type CapacityClass = typeof CAPACITY_CLASSES[number];

/** Bounds of a catalogue, so that it stays one small actor state read on every price. */
export const VEHICLE_TYPES_MAX = 30;
export const PARCEL_SIZES_MAX = 12;
export const ZONES_MAX = 60;

export interface VehicleType {
  readonly id: number;
  readonly name: string;
  readonly body_type: BodyType;
  /** Null for vehicles below half a ton (a motorcycle, a car). */
  readonly capacity_class: CapacityClass | null;
  readonly payload_kg: number;
  readonly load_length_cm: number;
  readonly load_width_cm: number;
  readonly load_height_cm: number;
  /** Seats for passengers besides the driver: 0 for a vehicle that takes no rides. */
  readonly passenger_seats: number;
}

/** What a parcel band adds to the fare in one zone, in that zone's currency. */
export interface BandRate {
  readonly zone_id: string;
  readonly amount_minor: number;
}

/** A parcel band (spec: business 4.3 parcel-sizes: size_key, kilogram range, vehicles, rates). */
export interface ParcelSize {
  readonly size_key: string;
  readonly label: string;
  /** Exclusive, except for the first band (0 kg); equal to the previous band's max_kg. */
  readonly min_kg: number;
  readonly max_kg: number;
  readonly eligible_vehicle_type_ids: readonly number[];
  readonly rates: readonly BandRate[];
}

/** What one vehicle class costs in a zone (business 5: fares per vehicle class over distance). */
export interface VehicleRate {
  readonly vehicle_type_id: number;
  readonly base_fare_minor: number;
  readonly per_km_minor: number;
  /** Each stop between pickup and destination (business 8: up to 3). */
  readonly per_stop_minor: number;
}

/** A circle on the map: pickups inside it are priced by its zone. */
export interface ZoneArea {
  readonly center_lat: number;
  readonly center_lng: number;
  readonly radius_km: number;
}

export interface Zone {
  readonly id: string;
  readonly name: string;
  readonly country: string;
  readonly currency: string;
  readonly area: ZoneArea;
  readonly minimum_fare_minor: number;
  readonly rates: readonly VehicleRate[];
}

export interface Catalogue {
  /** Road distance over great-circle distance, in basis points (1.3 = 13_000). */
  readonly road_factor_bp: number;
  /** cm³ per kg: volumetric weight is length x width x height / this. */
  readonly volumetric_divisor: number;
  readonly vehicle_types: readonly VehicleType[];
  /** Lightest band first, ranges contiguous from 0 kg. */
  readonly parcel_sizes: readonly ParcelSize[];
  readonly zones: readonly Zone[];
}

/** A decimal amount as a request or the default data states it. */
export type Amount = number | string;

/** The catalogue as the operator sends it (and the default is written): decimals, not minor units. */
export interface CatalogueInput {
  readonly road_factor: number;
  readonly volumetric_divisor: number;
  readonly vehicle_types: readonly VehicleType[];
  readonly parcel_sizes: readonly (Omit<ParcelSize, "rates"> & {
    readonly rates: readonly { readonly zone_id: string; readonly amount: Amount }[];
  })[];
  readonly zones: readonly (Omit<Zone, "minimum_fare_minor" | "rates"> & {
    readonly minimum_fare: Amount;
    readonly rates: readonly {
      readonly vehicle_type_id: number;
      readonly base_fare: Amount;
      readonly per_km: Amount;
      readonly per_stop: Amount;
    }[];
  })[];
}

export type CatalogueParsed =
  | { readonly ok: true; readonly catalogue: Catalogue }
  | { readonly ok: false; readonly errors: readonly FieldError[] };

/**
 * Checks what a field's own schema cannot: unique ids, contiguous bands, references between the
 * lists, a rate for every vehicle in every zone and every band in every zone, amounts exact in the
 * zone's currency. Each problem is named by its path; the shapes and ranges are the route's.
 */
export function parseCatalogue(input: CatalogueInput): CatalogueParsed {
  const errors: FieldError[] = [];
  const add = (path: string, message: string) => errors.push({ path, message });
  const vehicleIds = uniqueIds(input.vehicle_types.map((v) => v.id), "vehicle_types", "id", add);
  const zoneIds = uniqueIds(input.zones.map((z) => z.id), "zones", "id", add);
  uniqueIds(input.parcel_sizes.map((s) => s.size_key), "parcel_sizes", "size_key", add);
  const road_factor_bp = Math.round(input.road_factor * 10_000);
  if (road_factor_bp / 10_000 !== input.road_factor) {
    add("road_factor", `at most 4 decimals: ${input.road_factor}`);
  }
  const currencyOf = new Map(input.zones.map((z) => [z.id, z.currency]));
  const zones = input.zones.map((z, i) => parseZone(z, `zones.${i}`, vehicleIds, add));
  const parcel_sizes = input.parcel_sizes.map((s, i) => {
    const at = `parcel_sizes.${i}`;
    const previous = input.parcel_sizes[i - 1];
    const from = previous?.max_kg ?? 0;
    if (s.min_kg !== from) add(`${at}.min_kg`, `must be ${from}, where the band before ends`);
    if (s.max_kg <= s.min_kg) add(`${at}.max_kg`, `must be above min_kg: ${s.max_kg}`);
    s.eligible_vehicle_type_ids.forEach((id, j) => {
      if (!vehicleIds.has(id)) add(`${at}.eligible_vehicle_type_ids.${j}`, `no vehicle type ${id}`);
    });
    const rates = everyOnce(s.rates, (r) => r.zone_id, zoneIds, `${at}.rates`, "zone", add)
      .map(({ item: r, index: j }) => ({
        zone_id: r.zone_id,
        amount_minor: minor(r.amount, currencyOf.get(r.zone_id), `${at}.rates.${j}.amount`, add),
      }));
    return { ...s, rates };
  });
  if (errors.length) return { ok: false, errors };
  return {
    ok: true,
    catalogue: {
      road_factor_bp,
      volumetric_divisor: input.volumetric_divisor,
      vehicle_types: input.vehicle_types,
      parcel_sizes,
      zones,
    },
  };
}

type Add = (path: string, message: string) => void;

function parseZone(
  z: CatalogueInput["zones"][number],
  at: string,
  vehicleIds: ReadonlySet<number>,
  add: Add,
): Zone {
  if (!isCurrencyCode(z.currency)) add(`${at}.currency`, `not an ISO 4217 code: ${z.currency}`);
  if (!isCountryCode(z.country)) add(`${at}.country`, `not an ISO 3166-1 code: ${z.country}`);
  const rates = everyOnce(
    z.rates,
    (r) => r.vehicle_type_id,
    vehicleIds,
    `${at}.rates`,
    "vehicle type",
    add,
  )
    .map(({ item: r, index: j }) => ({
      vehicle_type_id: r.vehicle_type_id,
      base_fare_minor: minor(r.base_fare, z.currency, `${at}.rates.${j}.base_fare`, add),
      per_km_minor: minor(r.per_km, z.currency, `${at}.rates.${j}.per_km`, add),
      per_stop_minor: minor(r.per_stop, z.currency, `${at}.rates.${j}.per_stop`, add),
    }));
  const { minimum_fare: _, rates: __, ...rest } = z;
  return {
    ...rest,
    minimum_fare_minor: minor(z.minimum_fare, z.currency, `${at}.minimum_fare`, add),
    rates,
  };
}

function uniqueIds<T>(ids: readonly T[], list: string, field: string, add: Add): Set<T> {
  const seen = new Set<T>();
  ids.forEach((id, i) => {
    if (seen.has(id)) add(`${list}.${i}.${field}`, `repeated: ${id}`);
    seen.add(id);
  });
  return seen;
}

/** The items keyed by `keyOf`, each key of `all` exactly once; the others are named and dropped. */
function everyOnce<T, K>(
  items: readonly T[],
  keyOf: (item: T) => K,
  all: ReadonlySet<K>,
  at: string,
  noun: string,
  add: Add,
): { item: T; index: number }[] {
  const seen = new Set<K>();
  const kept: { item: T; index: number }[] = [];
  items.forEach((item, index) => {
    const key = keyOf(item);
    if (!all.has(key)) add(`${at}.${index}`, `no ${noun} ${key}`);
    else if (seen.has(key)) add(`${at}.${index}`, `a second rate for ${noun} ${key}`);
    else kept.push({ item, index });
    seen.add(key);
  });
  for (const key of all) {
    if (!seen.has(key)) add(at, `no rate for ${noun} ${key}`);
  }
  return kept;
}

/** A non-negative amount in the currency's minor units; 0 (and a named error) when it is not. */
function minor(amount: Amount, currency: string | undefined, path: string, add: Add): number {
  if (currency === undefined || !isCurrencyCode(currency)) return 0;
  const m = toMinor(amount, currency);
  if (!m.ok) add(path, m.message);
  else if (m.minor < 0) add(path, `must not be negative: ${amount}`);
  return m.ok ? m.minor : 0;
}

/** The vehicle type of this id, if the catalogue has one. */
export function vehicleTypeOf(c: Catalogue, id: number): VehicleType | undefined {
  return c.vehicle_types.find((v) => v.id === id);
}

/** The zone whose area holds the point: the nearest centre when areas overlap. */
export function zoneAt(c: Catalogue, lat: number, lng: number): Zone | undefined {
  let best: { zone: Zone; km: number } | undefined;
  for (const zone of c.zones) {
    const km = greatCircleKm(
      { lat, lng },
      { lat: zone.area.center_lat, lng: zone.area.center_lng },
    );
    if (km <= zone.area.radius_km && (!best || km < best.km)) best = { zone, km };
  }
  return best?.zone;
}
