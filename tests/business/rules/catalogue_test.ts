import assert from "node:assert/strict";
import {
  type CatalogueInput,
  parseCatalogue,
  zoneAt,
} from "../../../src/business/rules/catalogue.ts";
import { DEFAULT_CATALOGUE } from "../../../src/business/rules/default_catalogue.ts";

function parsed(input: CatalogueInput) {
  const r = parseCatalogue(input);
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.catalogue;
}

Deno.test("business catalogue: the default parses, in BWP for Botswana and ZAR for South Africa", () => {
  const c = parsed(DEFAULT_CATALOGUE);
  assert.equal(c.road_factor_bp, 13_000);
  const currencies = new Map(c.zones.map((z) => [z.country, z.currency]));
  assert.deepEqual([...currencies], [["BW", "BWP"], ["ZA", "ZAR"]]);
  // Car in Gaborone: 35.00 base, 6.50 a km, 15.00 a stop.
  const gaborone = c.zones.find((z) => z.id === "gaborone")!;
  assert.deepEqual(gaborone.rates.find((r) => r.vehicle_type_id === 2), {
    vehicle_type_id: 2,
    base_fare_minor: 3_500,
    per_km_minor: 650,
    per_stop_minor: 1_500,
  });
});

Deno.test("business catalogue: a pickup is priced by the zone around it, the nearest centre when two overlap", () => {
  const c = parsed(DEFAULT_CATALOGUE);
  assert.equal(zoneAt(c, -24.65, 25.91)?.id, "gaborone");
  // Midrand lies inside both Johannesburg's and Pretoria's circles; nearer Johannesburg's centre.
  assert.equal(zoneAt(c, -25.99, 28.13)?.id, "johannesburg");
  assert.equal(zoneAt(c, -25.75, 28.2)?.id, "pretoria");
  assert.equal(zoneAt(c, 0, 0), undefined);
});

Deno.test("business catalogue: every cross-field problem is named by its path", () => {
  const d = DEFAULT_CATALOGUE;
  const [first, second, ...rest] = d.parcel_sizes;
  const [gaborone, ...zones] = d.zones;
  const r = parseCatalogue({
    ...d,
    road_factor: 1.23456,
    vehicle_types: [...d.vehicle_types, d.vehicle_types[0]!],
    parcel_sizes: [
      { ...first!, eligible_vehicle_type_ids: [1, 99] },
      { ...second!, min_kg: 6 },
      ...rest,
    ],
    zones: [
      {
        ...gaborone!,
        currency: "XYZ",
        rates: gaborone!.rates.slice(1),
      },
      ...zones.map((z, i) => i === 0 ? { ...z, minimum_fare: "30.005" } : z),
    ],
  });
  assert.equal(r.ok, false);
  const paths = r.ok ? [] : r.errors.map((e) => e.path);
  for (
    const p of [
      "road_factor",
      "vehicle_types.9.id",
      "parcel_sizes.0.eligible_vehicle_type_ids.1",
      "parcel_sizes.1.min_kg",
      "zones.0.currency",
      "zones.0.rates",
      "zones.1.minimum_fare",
    ]
  ) assert.ok(paths.includes(p), `${p} in ${paths.join(", ")}`);
});

Deno.test("business catalogue: a rate for a zone or vehicle that does not exist, or twice, is refused", () => {
  const d = DEFAULT_CATALOGUE;
  const [small, ...sizes] = d.parcel_sizes;
  const r = parseCatalogue({
    ...d,
    parcel_sizes: [
      { ...small!, rates: [...small!.rates, { zone_id: "atlantis", amount: "1.00" }] },
      ...sizes,
    ],
    zones: d.zones.map((z, i) =>
      i === 0 ? { ...z, rates: [...z.rates, z.rates[0]!, { ...z.rates[0]!, per_km: "-1" }] } : z
    ),
  });
  assert.equal(r.ok, false);
  const errors = r.ok ? [] : r.errors;
  assert.deepEqual(errors.map((e) => e.path), [
    "zones.0.rates.9",
    "zones.0.rates.10",
    "parcel_sizes.0.rates.7",
  ]);
  assert.match(errors[0]!.message, /second rate for vehicle type 1/);
  assert.match(errors[2]!.message, /no zone atlantis/);
});
