/**
 * The catalogue every environment starts with: the launch markets, Botswana (BWP) and South Africa
 * (ZAR). Plain data, checked by the same rules as the operator's replacement (catalogue.ts), which
 * takes its place once sent (PUT /operator/business-catalogue).
 */
import type { CatalogueInput, VehicleType } from "./catalogue.ts";

const VEHICLE_TYPES: readonly VehicleType[] = [
  vehicle(1, "Motorcycle", "closed", null, 15, [45, 40, 40]),
  // The one class that takes rides: four passengers besides the driver.
  { ...vehicle(2, "Car", "closed", null, 150, [100, 90, 50]), passenger_seats: 4 },
  vehicle(3, "Panel van", "closed", "half_ton", 600, [180, 130, 120]),
  vehicle(4, "Bakkie", "open", "one_ton", 1_000, [180, 150, 100]),
  vehicle(5, "One-ton van", "closed", "one_ton", 1_000, [250, 160, 150]),
  vehicle(6, "Refrigerated one-ton van", "refrigerated", "one_ton", 1_000, [240, 150, 140]),
  vehicle(7, "Three-ton dropside", "open", "three_ton", 3_000, [420, 210, 120]),
  vehicle(8, "Three-ton truck", "closed", "three_ton", 3_000, [420, 210, 210]),
  vehicle(9, "Eight-ton truck", "closed", "eight_ton", 8_000, [720, 245, 250]),
];

/** Per vehicle id 1..9: base fare, per km, per stop; in the market's currency. */
type RateRow = readonly [base: string, perKm: string, perStop: string];

const BWP_RATES: readonly RateRow[] = [
  ["25.00", "4.50", "10.00"],
  ["35.00", "6.50", "15.00"],
  ["90.00", "11.00", "25.00"],
  ["120.00", "13.00", "30.00"],
  ["150.00", "14.50", "35.00"],
  ["220.00", "18.00", "40.00"],
  ["420.00", "22.00", "60.00"],
  ["450.00", "24.00", "60.00"],
  ["950.00", "38.00", "100.00"],
];

const ZAR_RATES: readonly RateRow[] = [
  ["35.00", "6.00", "15.00"],
  ["48.00", "9.00", "20.00"],
  ["120.00", "15.00", "35.00"],
  ["160.00", "17.50", "40.00"],
  ["200.00", "19.50", "45.00"],
  ["300.00", "24.00", "55.00"],
  ["560.00", "30.00", "80.00"],
  ["600.00", "32.00", "80.00"],
  ["1280.00", "51.00", "130.00"],
];

/** size_key, label, kg from, kg to, smallest eligible vehicle id, band fee BWP, band fee ZAR. */
const BANDS = [
  ["small", "Small (up to 5 kg)", 0, 5, 1, "0.00", "0.00"],
  ["medium", "Medium (5 to 15 kg)", 5, 15, 1, "10.00", "14.00"],
  ["large", "Large (15 to 50 kg)", 15, 50, 2, "25.00", "35.00"],
  ["oversized", "Oversized (over 50 kg)", 50, 8_000, 3, "60.00", "80.00"],
] as const;

/** id, name, country, currency, centre, radius km, minimum fare. */
const ZONES = [
  ["gaborone", "Gaborone", "BW", "BWP", -24.6282, 25.9231, 40, "30.00"],
  ["francistown", "Francistown", "BW", "BWP", -21.1661, 27.5144, 30, "30.00"],
  ["maun", "Maun", "BW", "BWP", -19.9833, 23.4167, 25, "30.00"],
  ["johannesburg", "Johannesburg", "ZA", "ZAR", -26.2041, 28.0473, 50, "40.00"],
  ["pretoria", "Pretoria", "ZA", "ZAR", -25.7479, 28.2293, 35, "40.00"],
  ["cape_town", "Cape Town", "ZA", "ZAR", -33.9249, 18.4241, 50, "40.00"],
  ["durban", "Durban", "ZA", "ZAR", -29.8587, 31.0218, 40, "40.00"],
] as const;

export const DEFAULT_CATALOGUE: CatalogueInput = {
  // Roads are longer than the straight line; 1.3 is the usual urban detour factor.
  road_factor: 1.3,
  // The courier trade's 5,000 cm³ per kg.
  volumetric_divisor: 5_000,
  vehicle_types: VEHICLE_TYPES,
  parcel_sizes: BANDS.map(([size_key, label, min_kg, max_kg, smallest, bwp, zar]) => ({
    size_key,
    label,
    min_kg,
    max_kg,
    // A larger vehicle can always take a smaller band (cargo minimums may ask for one).
    eligible_vehicle_type_ids: VEHICLE_TYPES.filter((v) => v.id >= smallest).map((v) => v.id),
    rates: ZONES.map(([zone_id, , , currency]) => ({
      zone_id,
      amount: currency === "BWP" ? bwp : zar,
    })),
  })),
  zones: ZONES.map(([id, name, country, currency, center_lat, center_lng, radius_km, min]) => ({
    id,
    name,
    country,
    currency,
    area: { center_lat, center_lng, radius_km },
    minimum_fare: min,
    rates: (currency === "BWP" ? BWP_RATES : ZAR_RATES).map(([base_fare, per_km, per_stop], i) => ({
      vehicle_type_id: VEHICLE_TYPES[i]!.id,
      base_fare,
      per_km,
      per_stop,
    })),
  })),
};

function vehicle(
  id: number,
  name: string,
  body_type: VehicleType["body_type"],
  capacity_class: VehicleType["capacity_class"],
  payload_kg: number,
  [load_length_cm, load_width_cm, load_height_cm]: readonly [number, number, number],
): VehicleType {
  return {
    id,
    name,
    body_type,
    capacity_class,
    payload_kg,
    load_length_cm,
    load_width_cm,
    load_height_cm,
    passenger_seats: 0,
  };
}
