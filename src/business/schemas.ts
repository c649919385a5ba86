/**
 * Request schemas of the Business API's reference data (4.3), shared by the operator's route and
 * its tests: the shapes and ranges of each field. What spans fields (unique ids, contiguous bands,
 * a rate for every vehicle in every zone, amounts in the zone's currency) is rules/catalogue.ts's.
 */
import { z } from "../http/route.ts";
import { DEFAULT_CATALOGUE } from "./rules/default_catalogue.ts";
import {
  BODY_TYPES,
  CAPACITY_CLASSES,
  PARCEL_SIZES_MAX,
  VEHICLE_TYPES_MAX,
  ZONES_MAX,
} from "./rules/catalogue.ts";

/** A decimal amount in the zone's currency, as a number or its text (`"12.50"`). */
const Amount = z.union([z.number().nonnegative(), z.string().max(32)]).openapi({
  description: "Decimal amount in the zone's currency, at most its minor-unit decimals",
  example: "12.50",
});

/** An identifier an operator chooses: a zone id, a size key. */
const Key = z.string().regex(/^[a-z][a-z0-9_]{0,31}$/, "lower-case letters, digits and _");

const Name = z.string().trim().min(1).max(100);
const Centimetres = z.number().positive().max(5_000);
const VehicleTypeId = z.number().int().positive().max(1_000_000);

export const VehicleTypeInput = z.object({
  id: VehicleTypeId,
  name: Name,
  body_type: z.enum(BODY_TYPES),
  capacity_class: z.enum(CAPACITY_CLASSES).nullable(),
  payload_kg: z.number().positive().max(100_000),
  load_length_cm: Centimetres,
  load_width_cm: Centimetres,
  load_height_cm: Centimetres,
  passenger_seats: z.number().int().min(0).max(100).openapi({
    description: "Seats for passengers besides the driver; 0: the vehicle takes no rides",
  }),
}).openapi("VehicleTypeInput");

export const ParcelSizeInput = z.object({
  size_key: Key,
  label: Name,
  min_kg: z.number().nonnegative().max(100_000),
  max_kg: z.number().positive().max(100_000),
  eligible_vehicle_type_ids: z.array(VehicleTypeId).min(1).max(VEHICLE_TYPES_MAX),
  rates: z.array(z.object({ zone_id: Key, amount: Amount })).max(ZONES_MAX),
}).openapi("ParcelSizeInput");

export const ZoneInput = z.object({
  id: Key,
  name: Name,
  country: z.string().length(2),
  currency: z.string().length(3),
  area: z.object({
    center_lat: z.number().min(-90).max(90),
    center_lng: z.number().min(-180).max(180),
    radius_km: z.number().positive().max(2_000),
  }),
  minimum_fare: Amount,
  rates: z.array(z.object({
    vehicle_type_id: VehicleTypeId,
    base_fare: Amount,
    per_km: Amount,
    per_stop: Amount,
  })).max(VEHICLE_TYPES_MAX),
}).openapi("ZoneInput");

/** PUT /operator/business-catalogue: the whole catalogue, replacing the one in use. */
export const CatalogueBody = z.object({
  road_factor: z.number().min(1).max(3).openapi({
    description: "Road distance over great-circle distance (1.3: roads are 30 % longer)",
  }),
  volumetric_divisor: z.number().int().min(1_000).max(10_000).openapi({
    description: "cm³ per kg: volumetric weight is length x width x height / this",
  }),
  vehicle_types: z.array(VehicleTypeInput).min(1).max(VEHICLE_TYPES_MAX),
  parcel_sizes: z.array(ParcelSizeInput).min(1).max(PARCEL_SIZES_MAX),
  zones: z.array(ZoneInput).min(1).max(ZONES_MAX),
}).openapi("BusinessCatalogueInput", {
  // The shipped catalogue: a whole one that holds together (a rate per vehicle in every zone).
  example: DEFAULT_CATALOGUE,
});
