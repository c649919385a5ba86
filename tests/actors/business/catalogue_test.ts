import assert from "node:assert/strict";
import {
  BUSINESS_CATALOGUE_ID as ID,
  BUSINESS_CATALOGUE_TENANT as T,
  businessCatalogueActor,
} from "../../../actors/business/catalogue.ts";
import {
  type CatalogueInput,
  PARCEL_SIZES_MAX,
  VEHICLE_TYPES_MAX,
  ZONES_MAX,
} from "../../../src/business/rules/catalogue.ts";
import { DEFAULT_CATALOGUE } from "../../../src/business/rules/default_catalogue.ts";
import { openTestRuntime } from "../../runtime/fixtures.ts";

/** A catalogue at every list's bound: the largest state the operator can make. */
function largest(): CatalogueInput {
  const car = DEFAULT_CATALOGUE.vehicle_types[1]!;
  const vehicle_types = Array.from({ length: VEHICLE_TYPES_MAX }, (_, i) => ({
    ...car,
    id: 1_000 + i,
    name: `Vehicle type number ${i} with a long descriptive name`,
    payload_kg: 100 + i,
  }));
  const zones = Array.from({ length: ZONES_MAX }, (_, i) => ({
    id: `zone_${i}`,
    name: `Zone number ${i} with a long descriptive name`,
    country: "BW",
    currency: "BWP",
    area: { center_lat: -24 + i / 10, center_lng: 25.5, radius_km: 5 },
    minimum_fare: "30.00",
    rates: vehicle_types.map((v) => ({
      vehicle_type_id: v.id,
      base_fare: "12345.67",
      per_km: "123.45",
      per_stop: "1234.56",
    })),
  }));
  const parcel_sizes = Array.from({ length: PARCEL_SIZES_MAX }, (_, i) => ({
    size_key: `band_${i}`,
    label: `Band number ${i} with a long descriptive label`,
    min_kg: i * 10,
    max_kg: (i + 1) * 10,
    eligible_vehicle_type_ids: vehicle_types.map((v) => v.id),
    rates: zones.map((z) => ({ zone_id: z.id, amount: "123.45" })),
  }));
  return { road_factor: 1.25, volumetric_divisor: 4_000, vehicle_types, parcel_sizes, zones };
}

Deno.test("business catalogue actor: the largest catalogue is stored and read back whole after a restart", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/kv.sqlite`;
  const definitions = [businessCatalogueActor];
  try {
    const first = await openTestRuntime(path, { definitions });
    const replaced = await first.runtime.ask(businessCatalogueActor, T, ID, {
      kind: "replace",
      input: largest(),
      by: "operator",
    });
    assert.ok(replaced.ok);
    assert.equal(replaced.reply.version, 1);
    await first.close();
    const second = await openTestRuntime(path, { definitions, clock: first.clock });
    try {
      const r = await second.runtime.read(businessCatalogueActor, T, ID, { kind: "get" });
      assert.ok(r.ok);
      assert.deepEqual(r.reply, replaced.reply);
      assert.equal(r.reply.catalogue.zones.length, ZONES_MAX);
    } finally {
      await second.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("business catalogue actor: until replaced it answers the default; a refused catalogue changes nothing", async () => {
  const t = await openTestRuntime(":memory:", { definitions: [businessCatalogueActor] });
  try {
    const before = await t.runtime.read(businessCatalogueActor, T, ID, { kind: "get" });
    assert.ok(before.ok);
    assert.equal(before.reply.version, 0);
    assert.equal(before.reply.catalogue.zones.length, DEFAULT_CATALOGUE.zones.length);
    const bad = await t.runtime.ask(businessCatalogueActor, T, ID, {
      kind: "replace",
      input: { ...DEFAULT_CATALOGUE, road_factor: 1.00001 },
      by: "operator",
    });
    assert.equal(!bad.ok && bad.code, "validation_failed");
    const after = await t.runtime.read(businessCatalogueActor, T, ID, { kind: "get" });
    assert.deepEqual(after, before);
  } finally {
    await t.close();
  }
});
