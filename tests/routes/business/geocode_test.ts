import assert from "node:assert/strict";
import { GeocodeAnswer } from "../../../routes/business/answers/geocode.ts";
import { TripAnswer } from "../../../routes/business/answers/trips.ts";
import { documented } from "../../helpers/documented.ts";
import { until } from "../../helpers/receiver.ts";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { book, fundedBusiness, PARCEL } from "./trips_fixtures.ts";

const GEOCODE = "/business/geocode";

/** Waits until the business's address book holds `address` (kept once its trip's creation commits). */
async function saved(t: TestEnv, key: string, address: string): Promise<void> {
  await until(t, async () => {
    const r = await t.call("POST", GEOCODE, { key, body: { address } });
    return r.body.data.candidates.some((c: { source: string }) => c.source === "saved_address");
  }, `${address} in the address book`);
}

Deno.test("geocode: forward and reverse on known towns, best first, within the business's scope", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const forward = await t.call("POST", GEOCODE, {
      key: b.api_key,
      body: { address: "Francistown, Botswana", limit: 3 },
    });
    documented(GeocodeAnswer, forward, 200, "forward geocode");
    const [first] = forward.body.data.candidates;
    assert.equal(first.address, "Francistown, BW");
    assert.equal(first.source, "gazetteer");
    assert.ok(Math.abs(first.lat - -21.17) < 0.05, JSON.stringify(first));
    const reverse = await t.call("POST", GEOCODE, {
      key: b.api_key,
      body: { lat: -24.6545, lng: 25.9086 },
    });
    documented(GeocodeAnswer, reverse, 200, "reverse geocode");
    const confidences = reverse.body.data.candidates.map((c: { confidence: number }) =>
      c.confidence
    );
    assert.equal(reverse.body.data.candidates[0].address, "Gaborone, BW");
    assert.deepEqual(confidences, [...confidences].sort((x, y) => y - x));
    const both = await t.call("POST", GEOCODE, {
      key: b.api_key,
      body: { address: "Gaborone", lat: 1 },
    });
    assert.equal(both.status, 422);
    assert.equal(both.body.code, "validation_failed");
    const half = await t.call("POST", GEOCODE, { key: b.api_key, body: { lat: 1 } });
    assert.equal(half.status, 422);
    assert.match(JSON.stringify(half.body.errors), /lng/);
  }));

Deno.test("geocode: a business's own booked addresses come first, and only for that business", () =>
  withTestEnv(async (t) => {
    const [a, other] = [await fundedBusiness(t), await fundedBusiness(t)];
    const booked = await book(t, a.api_key, { ...PARCEL, dest_address: "Plot 9, Block 8" });
    await saved(t, a.api_key, "Plot 9, Block 8");
    assert.equal(booked.status, 201, JSON.stringify(booked.body));
    const mine = await t.call("POST", GEOCODE, {
      key: a.api_key,
      body: { address: "plot 9 block 8" },
    });
    const [first] = mine.body.data.candidates;
    assert.deepEqual(
      { source: first.source, lat: first.lat, lng: first.lng, confidence: first.confidence },
      { source: "saved_address", lat: PARCEL.dest_lat, lng: PARCEL.dest_lng, confidence: 0.99 },
    );
    const theirs = await t.call("POST", GEOCODE, {
      key: other.api_key,
      body: { address: "plot 9 block 8" },
    });
    assert.equal(
      theirs.body.data.candidates.some((c: { source: string }) => c.source === "saved_address"),
      false,
    );
  }));

Deno.test("geocode: a booking without coordinates is placed by its best candidate", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    await book(t, b.api_key, { ...PARCEL, dest_address: "Plot 9, Block 8" });
    await saved(t, b.api_key, "Plot 9, Block 8");
    const { dest_lat: _, dest_lng: __, pickup_lat: ___, pickup_lng: ____, ...bare } = PARCEL;
    const r = await book(t, b.api_key, {
      ...bare,
      pickup_address: "Main Mall, Gaborone",
      dest_address: "PLOT 9 BLOCK 8",
    });
    documented(TripAnswer, r, 201, "booking geocoded");
    const trip = await t.call("GET", `/business/trips/${r.body.data.reference}`, {
      key: b.api_key,
    });
    assert.equal(trip.status, 200);
    // The saved address's own point, and the estimate of that route.
    const again = await book(t, b.api_key, { ...PARCEL, external_reference: "same-route" });
    assert.equal(r.body.data.billing_amount, again.body.data.billing_amount);
  }));

Deno.test("geocode: a booking whose stop nobody can place is refused 422 naming it, nothing booked", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const { dest_lat: _, dest_lng: __, ...bare } = PARCEL;
    const r = await book(t, b.api_key, { ...bare, dest_address: "Unheard-of Lane 12" });
    assert.equal(r.status, 422);
    assert.equal(r.body.code, "address_not_found");
    assert.deepEqual(r.body.errors.map((e: { path: string }) => e.path), ["dest_address"]);
    assert.match(r.body.message, /dest_address/);
    // A delivery sent with the ride's dropoff_* alone: the refusal names the field it came in.
    const { dest_address: ___, ...noDest } = bare;
    const dropoff = await book(t, b.api_key, { ...noDest, dropoff_address: "Unheard-of Lane 12" });
    assert.equal(dropoff.body.code, "address_not_found", JSON.stringify(dropoff.body));
    assert.deepEqual(dropoff.body.errors.map((e: { path: string }) => e.path), ["dropoff_address"]);
    const half = await book(t, b.api_key, { ...bare, dest_address: "Gaborone", dest_lat: -24.6 });
    assert.equal(half.status, 422);
    assert.equal(half.body.code, "validation_failed");
    const trips = await t.call("GET", "/business/trips", { key: b.api_key });
    assert.equal(trips.body.data.length, 0);
  }));

Deno.test("geocode: a booking without coordinates is not placed at a saved address that only shares its first characters", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    await book(t, b.api_key, { ...PARCEL, dest_address: "Plot 12, Block 8" });
    await saved(t, b.api_key, "Plot 12, Block 8");
    const { dest_lat: _, dest_lng: __, ...bare } = PARCEL;
    const r = await book(t, b.api_key, { ...bare, dest_address: "Plot 1" });
    assert.equal(r.status, 422, JSON.stringify(r.body));
    assert.equal(r.body.code, "address_not_found");
    assert.deepEqual(r.body.errors.map((e: { path: string }) => e.path), ["dest_address"]);
  }));
