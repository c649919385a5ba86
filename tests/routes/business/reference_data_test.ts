import assert from "node:assert/strict";
import { DEFAULT_CATALOGUE } from "../../../src/business/rules/default_catalogue.ts";
import {
  CatalogueAnswer,
  ParcelSizeAnswer,
  VehicleTypeAnswer,
  ZoneAnswer,
} from "../../../routes/business/answers/reference_data.ts";
import { documented } from "../../helpers/documented.ts";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { z } from "../../../src/http/route.ts";
import { invite, login } from "./account_fixtures.ts";

const PATHS = ["/business/vehicle-types", "/business/parcel-sizes", "/business/zones"];

async function partnerKey(t: TestEnv, business: string, scopes: string[]): Promise<string> {
  const r = await t.call("POST", `/operator/businesses/${business}/partner-keys`, {
    operator: true,
    body: { partner: "Connector", scopes },
  });
  assert.equal(r.status, 201);
  return r.body.data.key;
}

Deno.test("reference data: the default catalogue names vehicles, bands and zones in BWP and ZAR", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const vehicles = await t.call("GET", "/business/vehicle-types", { key: b.api_key });
    documented(z.array(VehicleTypeAnswer), vehicles, 200, "vehicle types");
    assert.deepEqual(vehicles.body.data[1], {
      id: 2,
      name: "Car",
      body_type: "closed",
      capacity_class: null,
      payload_kg: 150,
      load_length_cm: 100,
      load_width_cm: 90,
      load_height_cm: 50,
      passenger_seats: 4,
    });
    const sizes = await t.call("GET", "/business/parcel-sizes", { key: b.api_key });
    documented(z.array(ParcelSizeAnswer), sizes, 200, "parcel sizes");
    assert.deepEqual(sizes.body.data.map((s: { size_key: string }) => s.size_key), [
      "small",
      "medium",
      "large",
      "oversized",
    ]);
    const medium = sizes.body.data[1];
    assert.equal(medium.min_kg, 5);
    assert.equal(medium.max_kg, 15);
    assert.ok(medium.eligible_vehicle_type_ids.includes(1));
    assert.deepEqual(medium.rates.find((r: { zone_id: string }) => r.zone_id === "gaborone"), {
      zone_id: "gaborone",
      currency: "BWP",
      amount: 10,
    });
    const zones = await t.call("GET", "/business/zones", { key: b.api_key });
    documented(z.array(ZoneAnswer), zones, 200, "zones");
    const gaborone = zones.body.data.find((z: { id: string }) => z.id === "gaborone");
    assert.equal(gaborone.currency, "BWP");
    assert.deepEqual(gaborone.area, { center_lat: -24.6282, center_lng: 25.9231, radius_km: 40 });
    assert.deepEqual(gaborone.rates[1], {
      vehicle_type_id: 2,
      base_fare: 35,
      per_km: 6.5,
      per_stop: 15,
    });
    assert.equal(zones.body.data.find((z: { id: string }) => z.id === "cape_town").currency, "ZAR");
  }));

Deno.test("reference data: the key, people, and deliveries partner keys read it; other partner keys get scope_denied", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const owner = await login(t, b.owner.email, b.owner.password);
    const coordinator = await invite(t, owner, "coordinator");
    const deliveries = await partnerKey(t, b.id, ["deliveries"]);
    const rewards = await partnerKey(t, b.id, ["rewards"]);
    for (const path of PATHS) {
      for (const key of [b.api_key, owner, coordinator, deliveries]) {
        assert.equal((await t.call("GET", path, { key })).status, 200, path);
      }
      const denied = await t.call("GET", path, { key: rewards });
      assert.equal(denied.status, 403);
      assert.equal(denied.body.code, "scope_denied");
      const none = await t.call("GET", path);
      assert.equal(none.status, 401);
      assert.equal(none.body.code, "unauthenticated");
    }
  }));

Deno.test("reference data: the operator replaces the catalogue whole; every business reads the new one", () =>
  withTestEnv(async (t) => {
    const [a, b] = [await t.createBusiness(), await t.createBusiness()];
    const before = await t.call("GET", "/operator/business-catalogue", { operator: true });
    documented(CatalogueAnswer, before, 200, "catalogue");
    assert.equal(before.body.data.version, 0);
    assert.equal(before.body.data.replaced_at, null);
    // What GET answers is what PUT takes: one zone fewer, Maun gone.
    const next = {
      ...before.body.data,
      zones: before.body.data.zones.filter((z: { id: string }) => z.id !== "maun"),
      parcel_sizes: before.body.data.parcel_sizes.map((s: { rates: { zone_id: string }[] }) => ({
        ...s,
        rates: s.rates.filter((r) => r.zone_id !== "maun"),
      })),
    };
    const put = await t.call("PUT", "/operator/business-catalogue", { operator: true, body: next });
    documented(CatalogueAnswer, put, 200, "catalogue replaced");
    assert.equal(put.body.data.version, 1);
    assert.ok(put.body.data.replaced_at);
    for (const key of [a.api_key, b.api_key]) {
      const zones = await t.call("GET", "/business/zones", { key });
      assert.deepEqual(
        zones.body.data.map((z: { id: string }) => z.id),
        next.zones.map((z: { id: string }) => z.id),
      );
    }
    // The business key is not the operator's.
    const byBusiness = await t.call("PUT", "/operator/business-catalogue", {
      key: a.api_key,
      body: next,
    });
    assert.equal(byBusiness.status, 401);
  }));

Deno.test("reference data: a bad catalogue answers 422 naming each bad field and changes nothing", () =>
  withTestEnv(async (t) => {
    const [gaborone, ...zones] = DEFAULT_CATALOGUE.zones;
    const [small, medium, ...sizes] = DEFAULT_CATALOGUE.parcel_sizes;
    const bad = {
      ...DEFAULT_CATALOGUE,
      zones: [{ ...gaborone!, minimum_fare: "30.001", rates: gaborone!.rates.slice(1) }, ...zones],
      parcel_sizes: [small, { ...medium!, min_kg: 4 }, ...sizes],
    };
    const r = await t.call("PUT", "/operator/business-catalogue", { operator: true, body: bad });
    assert.equal(r.status, 422);
    assert.equal(r.body.code, "validation_failed");
    const paths = r.body.errors.map((e: { path: string }) => e.path);
    assert.deepEqual(paths.sort(), [
      "parcel_sizes.1.min_kg",
      "zones.0.minimum_fare",
      "zones.0.rates",
    ]);
    assert.match(r.body.message, /no rate for vehicle type 1/);

    const shape = await t.call("PUT", "/operator/business-catalogue", {
      operator: true,
      body: { ...DEFAULT_CATALOGUE, road_factor: 0.5, vehicle_types: [] },
    });
    assert.equal(shape.status, 422);
    assert.deepEqual(
      shape.body.errors.map((e: { path: string }) => e.path).sort(),
      ["road_factor", "vehicle_types"],
    );
    const after = await t.call("GET", "/operator/business-catalogue", { operator: true });
    assert.equal(after.body.data.version, 0);
  }));
