/**
 * GET /business/trips/{id} (Business API 4.1: "one trip, with receipt and route"): the fare's
 * lines as billed, the places in the driving order with the planned line through them, and the
 * path driven so far; another business's trip is not found.
 */
import assert from "node:assert/strict";
import polyline from "@mapbox/polyline";
import { withTestEnv } from "../../helpers/test_env.ts";
import { acceptedTrip, bookedTrip } from "./tracking_fixtures.ts";
import { fundedBusiness } from "./trips_fixtures.ts";

Deno.test("trip detail: the receipt's lines add up to billing_amount; the route lists pickup, stops and destination in order", () =>
  withTestEnv(async (t) => {
    const b = await bookedTrip(t);
    for (const id of [b.trip.reference, String(b.trip.id)]) {
      const r = await t.call("GET", `/business/trips/${id}`, { key: b.business.api_key });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const { receipt, route, billing_amount, billing_currency } = r.body.data;
      assert.equal(receipt.currency, billing_currency);
      assert.equal(receipt.total, billing_amount);
      const cents = receipt.lines.map((l: { amount: number }) => Math.round(l.amount * 100));
      assert.equal(
        cents.reduce((a: number, x: number) => a + x, 0),
        Math.round(billing_amount * 100),
      );
      assert.ok(receipt.lines.some((l: { code: string }) => l.code === "base_fare"));
      assert.equal(receipt.refund_status, "charged");
      assert.ok(receipt.document_url.endsWith(`/api/business/trips/${b.trip.reference}/receipt`));
      const places = route.places.map((
        p: { kind: string; address: string },
      ) => [p.kind, p.address]);
      assert.deepEqual(places, [
        ["pickup", b.trip.pickup_address],
        ["stop", "Game City"],
        ["dropoff", b.trip.dest_address],
      ]);
      assert.equal(route.distance_km, b.trip.distance_km);
      assert.deepEqual(
        polyline.decode(route.planned_polyline),
        route.places.map((p: { lat: number; lng: number }) => [p.lat, p.lng]),
      );
      assert.equal(route.travelled_polyline, null, "no driver yet");
    }
    const document = await t.app.request(`/api/business/trips/${b.trip.reference}/receipt`, {
      headers: { "X-Business-API-Key": b.business.api_key },
    });
    assert.equal(document.status, 200);
    await document.body?.cancel();
  }));

Deno.test("trip detail: the route's travelled line is the driver's path since acceptance", () =>
  withTestEnv(async (t) => {
    const b = await acceptedTrip(t);
    const acceptedAt = t.clock.now();
    t.clock.advanceBy(10_000);
    const points: [number, number][] = [[-24.66, 25.9], [-24.658, 25.903]];
    const positions = points.map(([lat, lng], i) => ({
      lat,
      lng,
      at: new Date(acceptedAt + (i + 1) * 1_000).toISOString(),
    }));
    const sent = await t.call("POST", "/driver/positions", {
      bearer: b.driver.token,
      body: { positions },
    });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    await t.env.pump();
    const r = await t.call("GET", `/business/trips/${b.trip.reference}`, {
      key: b.business.api_key,
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(polyline.decode(r.body.data.route.travelled_polyline), points);
  }));

Deno.test("trip detail: another business's trip is not found, by reference or id", () =>
  withTestEnv(async (t) => {
    const b = await bookedTrip(t);
    const other = await fundedBusiness(t);
    for (const id of [b.trip.reference, String(b.trip.id)]) {
      const r = await t.call("GET", `/business/trips/${id}`, { key: other.api_key });
      assert.equal(r.status, 404, JSON.stringify(r.body));
    }
  }));
