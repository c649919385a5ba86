/**
 * What the reference-data and fare routes answer (Business API 4.1 fare-estimate, 4.3 reference
 * data, 2.2 declared and resolved vehicle fields): the answer schemas and the views that make them
 * from the catalogue, a resolution and a fare. Amounts are decimals in the zone's currency.
 */
import type { BusinessCatalogue } from "../../../actors/business/catalogue.ts";
import {
  BODY_TYPES,
  CAPACITY_CLASSES,
  type Catalogue,
  type ParcelSize,
  type VehicleType,
  type Zone,
} from "../../../src/business/rules/catalogue.ts";
import type { TripPrice } from "../../../src/business/rules/fare.ts";
import { vehicleFields } from "../../../src/business/rules/vehicle.ts";
import { iso } from "../../../src/domain/iso.ts";
import { decimal } from "../../../src/domain/money.ts";
import { z } from "../../../src/http/route.ts";
import { Country, Currency, Money, orNull, UtcInstant } from "../../../src/http/schemas.ts";

const BodyType = z.enum(BODY_TYPES);
const CapacityClass = orNull(z.enum(CAPACITY_CLASSES));

export const VehicleTypeAnswer = z.object({
  id: z.number().int(),
  name: z.string(),
  body_type: BodyType,
  capacity_class: CapacityClass.openapi({ description: "Null below half a ton (motorcycle, car)" }),
  payload_kg: z.number(),
  load_length_cm: z.number(),
  load_width_cm: z.number(),
  load_height_cm: z.number(),
  passenger_seats: z.number().int().openapi({
    description: "Seats for passengers besides the driver; 0: the vehicle takes no rides",
  }),
}).openapi("VehicleType");

export const ParcelSizeAnswer = z.object({
  size_key: z.string().openapi({ example: "medium" }),
  label: z.string(),
  min_kg: z.number().openapi({ description: "Exclusive, except for the lightest band (0)" }),
  max_kg: z.number().openapi({ description: "Inclusive" }),
  eligible_vehicle_type_ids: z.array(z.number().int()),
  rates: z.array(z.object({ zone_id: z.string(), currency: Currency, amount: Money })).openapi({
    description: "What this band adds to a fare in each zone",
  }),
}).openapi("ParcelSize");

export const ZoneAnswer = z.object({
  id: z.string(),
  name: z.string(),
  country: Country,
  currency: Currency,
  area: z.object({
    center_lat: z.number(),
    center_lng: z.number(),
    radius_km: z.number(),
  }).openapi({ description: "A pickup within radius_km of the centre is priced by this zone" }),
  minimum_fare: Money,
  rates: z.array(z.object({
    vehicle_type_id: z.number().int(),
    base_fare: Money,
    per_km: Money,
    per_stop: Money,
  })),
}).openapi("Zone");

export const CatalogueAnswer = z.object({
  version: z.number().int().openapi({ description: "0: the shipped default; +1 each replacement" }),
  replaced_at: orNull(UtcInstant),
  road_factor: z.number(),
  volumetric_divisor: z.number().int(),
  vehicle_types: z.array(VehicleTypeAnswer),
  parcel_sizes: z.array(ParcelSizeAnswer),
  zones: z.array(ZoneAnswer),
}).openapi("BusinessCatalogue");

export const VehicleClassAnswer = z.object({
  id: z.number().int(),
  name: z.string(),
  body_type: BodyType,
  capacity_class: CapacityClass,
});

/** Business 2.2: the declared and resolved vehicle fields a trip echoes; the estimate too. */
export const VehicleFieldsAnswer = z.object({
  parcel_size: z.string(),
  parcel_size_label: z.string(),
  parcel_weight_min_kg: z.number(),
  parcel_weight_max_kg: z.number(),
  cargo_body_type: orNull(BodyType),
  cargo_capacity_class: CapacityClass,
  volumetric_weight_kg: orNull(z.number()),
  vehicle_class: VehicleClassAnswer,
  vehicle_upgraded: z.boolean(),
  vehicle_upgrade_reason: orNull(z.string()),
});

export const FareEstimateAnswer = VehicleFieldsAnswer.extend({
  billing_amount: Money,
  billing_currency: Currency,
  zone_id: z.string(),
  distance_km: z.number().openapi({ description: "Road kilometres: great-circle x road factor" }),
  lines: z.array(z.object({
    code: z.enum(["base_fare", "distance", "parcel_size", "stops", "minimum_fare"]),
    amount: Money,
  })).openapi({ description: "Add up to billing_amount exactly" }),
}).openapi("FareEstimate");

export function vehicleTypeView(v: VehicleType): z.infer<typeof VehicleTypeAnswer> {
  return { ...v };
}

export function parcelSizeView(c: Catalogue, s: ParcelSize): z.infer<typeof ParcelSizeAnswer> {
  const currencyOf = new Map(c.zones.map((z) => [z.id, z.currency]));
  return {
    ...s,
    eligible_vehicle_type_ids: [...s.eligible_vehicle_type_ids],
    rates: s.rates.map((r) => {
      const currency = currencyOf.get(r.zone_id) ?? "";
      return { zone_id: r.zone_id, currency, amount: decimal(r.amount_minor, currency) };
    }),
  };
}

export function zoneView(zone: Zone): z.infer<typeof ZoneAnswer> {
  const money = (minor: number) => decimal(minor, zone.currency);
  return {
    id: zone.id,
    name: zone.name,
    country: zone.country,
    currency: zone.currency,
    area: { ...zone.area },
    minimum_fare: money(zone.minimum_fare_minor),
    rates: zone.rates.map((r) => ({
      vehicle_type_id: r.vehicle_type_id,
      base_fare: money(r.base_fare_minor),
      per_km: money(r.per_km_minor),
      per_stop: money(r.per_stop_minor),
    })),
  };
}

/** The operator's view: the same form PUT takes, so a read can be edited and sent back. */
export function catalogueView(s: BusinessCatalogue): z.infer<typeof CatalogueAnswer> {
  const c = s.catalogue;
  return {
    version: s.version,
    replaced_at: s.replaced_at === null ? null : iso(s.replaced_at),
    road_factor: c.road_factor_bp / 10_000,
    volumetric_divisor: c.volumetric_divisor,
    vehicle_types: c.vehicle_types.map(vehicleTypeView),
    parcel_sizes: c.parcel_sizes.map((p) => parcelSizeView(c, p)),
    zones: c.zones.map(zoneView),
  };
}

export function fareEstimateView(p: TripPrice): z.infer<typeof FareEstimateAnswer> {
  const { fare } = p;
  const money = (minor: number) => decimal(minor, fare.currency);
  return {
    billing_amount: money(fare.amount_minor),
    billing_currency: fare.currency,
    zone_id: fare.zone_id,
    distance_km: fare.distance_m / 1_000,
    lines: fare.lines.map((l) => ({ code: l.code, amount: money(l.amount_minor) })),
    ...vehicleFields(p.resolution),
  };
}
