import assert from "node:assert/strict";
import { parseCatalogue } from "../../../src/business/rules/catalogue.ts";
import { DEFAULT_CATALOGUE } from "../../../src/business/rules/default_catalogue.ts";
import { priceTrip } from "../../../src/business/rules/fare.ts";
import { decimal } from "../../../src/domain/money.ts";
import { FareEstimateAnswer } from "../../../routes/business/answers/reference_data.ts";
import { documented } from "../../helpers/documented.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import { book, fundedBusiness, PARCEL } from "./trips_fixtures.ts";

const ESTIMATE = "/business/trip/fare-estimate";
// Gaborone: the Main Mall to Block 8.
const TRIP = {
  pickup_lat: "-24.6545",
  pickup_lng: "25.9086",
  dest_lat: "-24.6019",
  dest_lng: "25.9350",
};

function url(params: Record<string, string>): string {
  return `${ESTIMATE}?${new URLSearchParams(params)}`;
}

Deno.test("fare estimate: answers the calculator's fare with the resolved vehicle, in BWP", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const r = await t.call("GET", url({ ...TRIP, vehicle_type_id: "2", stops: "-24.63,25.92" }), {
      key: b.api_key,
    });
    documented(FareEstimateAnswer, r, 200, "fare estimate");
    const parsed = parseCatalogue(DEFAULT_CATALOGUE);
    assert.ok(parsed.ok);
    const expected = priceTrip(
      parsed.catalogue,
      {
        pickup: { lat: -24.6545, lng: 25.9086 },
        stops: [{ lat: -24.63, lng: 25.92 }],
        dest: { lat: -24.6019, lng: 25.935 },
      },
      { vehicle_type_id: 2 },
      "upgrade",
    );
    assert.ok(expected.ok);
    const fare = expected.price.fare;
    assert.equal(r.body.data.billing_amount, decimal(fare.amount_minor, "BWP"));
    assert.equal(r.body.data.billing_currency, "BWP");
    assert.equal(r.body.data.zone_id, "gaborone");
    assert.equal(r.body.data.distance_km, fare.distance_m / 1_000);
    assert.deepEqual(r.body.data.lines.map((l: { code: string }) => l.code), [
      "base_fare",
      "distance",
      "parcel_size",
      "stops",
    ]);
    assert.deepEqual(r.body.data.vehicle_class, {
      id: 2,
      name: "Car",
      body_type: "closed",
      capacity_class: null,
    });
    assert.equal(r.body.data.parcel_size, "small");
    assert.equal(r.body.data.vehicle_upgraded, false);
    const ride = await t.call("GET", url({ ...TRIP, type: "ride" }), { key: b.api_key });
    assert.equal(ride.body.data.vehicle_class.name, "Car");
  }));

Deno.test("fare estimate: a vehicle too small for the goods follows each account's own policy", () =>
  withTestEnv(async (t) => {
    const [upgrading, refusing] = [await t.createBusiness(), await t.createBusiness()];
    const patched = await t.call("PATCH", `/operator/businesses/${refusing.id}`, {
      operator: true,
      body: { vehicle_upgrade_policy: "refuse" },
    });
    assert.equal(patched.status, 200);
    const heavy = url({ ...TRIP, vehicle_type_id: "2", parcel_weight_kg: "400" });
    const up = await t.call("GET", heavy, { key: upgrading.api_key });
    documented(FareEstimateAnswer, up, 200, "upgraded fare estimate");
    assert.equal(up.body.data.vehicle_class.name, "Panel van");
    assert.equal(up.body.data.vehicle_upgraded, true);
    assert.equal(up.body.data.parcel_size, "oversized");
    assert.match(up.body.data.vehicle_upgrade_reason, /Car's payload of 150 kg/);
    const refused = await t.call("GET", heavy, { key: refusing.api_key });
    assert.equal(refused.status, 422);
    assert.equal(refused.body.code, "vehicle_upgrade_refused");
    assert.match(refused.body.message, /refuses vehicle upgrades/);
  }));

Deno.test("fare estimate: bad parameters answer 422 naming each one", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const r = await t.call(
      "GET",
      url({
        pickup_lat: "91",
        pickup_lng: "abc",
        dest_lat: "-24.6",
        vehicle_type_id: "0",
        stops: "1,2;3",
        cargo_body_type: "tank",
      }),
      { key: b.api_key },
    );
    assert.equal(r.status, 422);
    assert.equal(r.body.code, "validation_failed");
    assert.deepEqual(r.body.errors.map((e: { path: string }) => e.path).sort(), [
      "cargo_body_type",
      "dest_lng",
      "pickup_lat",
      "pickup_lng",
      "stops",
      "vehicle_type_id",
    ]);
    const unknown = await t.call("GET", url({ ...TRIP, vehicle_type_id: "99" }), {
      key: b.api_key,
    });
    assert.equal(unknown.status, 422);
    assert.deepEqual(unknown.body.errors.map((e: { path: string }) => e.path), ["vehicle_type_id"]);
    const size = await t.call("GET", url({ ...TRIP, parcel_size: "huge" }), { key: b.api_key });
    assert.deepEqual(size.body.errors.map((e: { path: string }) => e.path), ["parcel_size"]);
    const far = await t.call("GET", url({ ...TRIP, pickup_lat: "10", pickup_lng: "10" }), {
      key: b.api_key,
    });
    assert.equal(far.status, 422);
    assert.equal(far.body.code, "outside_service_area");
    // Plain decimal digits only: Number() would read these as 24, 1000 and 5.
    const written = await t.call(
      "GET",
      url({
        ...TRIP,
        pickup_lat: "-0x18",
        parcel_weight_kg: "1e3",
        vehicle_type_id: " 5",
        stops: "0x1,25",
      }),
      { key: b.api_key },
    );
    assert.equal(written.status, 422);
    assert.deepEqual(written.body.errors.map((e: { path: string }) => e.path).sort(), [
      "parcel_weight_kg",
      "pickup_lat",
      "stops",
      "vehicle_type_id",
    ]);
    const heavy = await t.call("GET", url({ ...TRIP, parcel_weight_kg: "9000" }), {
      key: b.api_key,
    });
    assert.equal(heavy.body.code, "no_vehicle_fits");
  }));

Deno.test("fare estimate: reads parcel_size and parcel_weight_kg as booking does, so the same details price or refuse alike", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t, "5000.00");
    // Booking trims a parcel_size (" large " books the large band): the estimate prices it so.
    const padded = await t.call("GET", url({ ...TRIP, parcel_size: " large " }), {
      key: b.api_key,
    });
    assert.equal(padded.status, 200, JSON.stringify(padded.body));
    assert.equal(padded.body.data.parcel_size, "large");
    const booked = await book(t, b.api_key, { ...PARCEL, parcel_size: " large " });
    assert.equal(booked.status, 201, JSON.stringify(booked.body));
    assert.equal(booked.body.data.billing_amount, padded.body.data.billing_amount);
    // Booking refuses a weight of 0 kg: the estimate does not price it either.
    const none = await t.call("GET", url({ ...TRIP, parcel_weight_kg: "0" }), { key: b.api_key });
    assert.equal(none.status, 422, JSON.stringify(none.body));
    assert.deepEqual(none.body.errors.map((e: { path: string }) => e.path), ["parcel_weight_kg"]);
    const zero = await book(t, b.api_key, { ...PARCEL, parcel_weight_kg: 0 });
    assert.equal(zero.status, 422);
  }));

Deno.test("fare estimate: a deliveries partner key reads it, a rewards one is refused scope_denied", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const keys: Record<string, string> = {};
    for (const scope of ["deliveries", "rewards"]) {
      const r = await t.call("POST", `/operator/businesses/${b.id}/partner-keys`, {
        operator: true,
        body: { partner: "Connector", scopes: [scope] },
      });
      keys[scope] = r.body.data.key;
    }
    assert.equal((await t.call("GET", url(TRIP), { key: keys.deliveries! })).status, 200);
    const denied = await t.call("GET", url(TRIP), { key: keys.rewards! });
    assert.equal(denied.status, 403);
    assert.equal(denied.body.code, "scope_denied");
  }));

Deno.test("fare estimate: an operator's new rates price the next estimate", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const before = await t.call("GET", url(TRIP), { key: b.api_key });
    const catalogue = (await t.call("GET", "/operator/business-catalogue", { operator: true }))
      .body.data;
    const zones = catalogue.zones.map((z: { id: string; rates: { base_fare: number }[] }) =>
      z.id === "gaborone"
        ? { ...z, rates: z.rates.map((r) => ({ ...r, base_fare: r.base_fare + 100 })) }
        : z
    );
    const put = await t.call("PUT", "/operator/business-catalogue", {
      operator: true,
      body: { ...catalogue, zones },
    });
    assert.equal(put.status, 200);
    const after = await t.call("GET", url(TRIP), { key: b.api_key });
    assert.equal(
      Math.round((after.body.data.billing_amount - before.body.data.billing_amount) * 100),
      10_000,
    );
  }));
