/**
 * GET /trip-track/{token} stops[].reached (Business API 2.4) as the driver goes: a stop turns
 * reached when the driver's position after collection comes within 100 m of it, in order, and
 * every stop once the driver posts arrive_dropoff at the destination.
 */
import assert from "node:assert/strict";
import type { TestEnv } from "../../helpers/test_env.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import { acceptBy, bookedTrip, report } from "./tracking_fixtures.ts";
import { onlineDriverAt } from "../../helpers/pool_drivers.ts";

const GAME_CITY = { address: "Game City", lat: -24.6282, lng: 25.9231 };
const AIRPORT_JUNCTION = { address: "Airport Junction", lat: -24.6010, lng: 25.9245 };

async function reached(t: TestEnv, token: string): Promise<boolean[]> {
  const r = await t.call("GET", `/trip-track/${token}`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data.stops.map((s: { reached: boolean }) => s.reached);
}

Deno.test("trip-track: stops are reached one by one as the driver passes them, all at arrive_dropoff", () =>
  withTestEnv(async (t) => {
    const b = await bookedTrip(t, { stops: [GAME_CITY, AIRPORT_JUNCTION] });
    const driver = await onlineDriverAt(t, -24.66, 25.9);
    t.clock.advanceBy(1_000);
    await acceptBy(t, b, driver);
    const step = async (action: string, body: Record<string, unknown> = {}) => {
      t.clock.advanceBy(1_000);
      const r = await t.call("POST", `/driver/trips/${b.trip.reference}/${action}`, {
        bearer: driver.token,
        body: { idempotency_key: action, ...body },
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
    };
    // Passing the first stop on the way to the pickup does not count: it comes after collection.
    t.clock.advanceBy(1_000);
    await report(t, driver.token, GAME_CITY.lat, GAME_CITY.lng);
    assert.deepEqual(await reached(t, b.token), [false, false]);
    await step("arrive_pickup");
    await step("pick_up", { force_reason: "no scanner" });

    t.clock.advanceBy(5_000);
    await report(t, driver.token, GAME_CITY.lat + 0.0005, GAME_CITY.lng); // about 55 m off
    assert.deepEqual(await reached(t, b.token), [true, false], "the live position counts at once");
    await t.env.pump(); // the batch is kept; the stop stays reached from the stored breadcrumb
    t.clock.advanceBy(5_000);
    await report(t, driver.token, -24.615, 25.924);
    assert.deepEqual(await reached(t, b.token), [true, false]);
    t.clock.advanceBy(5_000);
    await report(t, driver.token, AIRPORT_JUNCTION.lat, AIRPORT_JUNCTION.lng);
    assert.deepEqual(await reached(t, b.token), [true, true]);

    // A trip whose driver never came near its stop: arriving at the destination passed it. The
    // first driver goes off shift, so the dispatcher offers it to the second.
    const off = await t.call("PUT", "/driver/shift", {
      bearer: driver.token,
      body: { online: false },
    });
    assert.equal(off.status, 200);
    const other = await bookedTrip(t, { stops: [AIRPORT_JUNCTION] });
    const second = await onlineDriverAt(t, -24.66, 25.9);
    t.clock.advanceBy(1_000);
    await acceptBy(t, other, second);
    for (const action of ["arrive_pickup", "pick_up", "arrive_dropoff"]) {
      t.clock.advanceBy(1_000);
      const r = await t.call("POST", `/driver/trips/${other.trip.reference}/${action}`, {
        bearer: second.token,
        body: { idempotency_key: action, force_reason: "no scanner" },
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      if (action === "pick_up") assert.deepEqual(await reached(t, other.token), [false]);
    }
    assert.deepEqual(await reached(t, other.token), [true]);
  }));

Deno.test("trip-track: a delivery that failed and came back shows the stops its driver never passed as not reached", () =>
  withTestEnv(async (t) => {
    const b = await bookedTrip(t, { stops: [AIRPORT_JUNCTION] });
    const driver = await onlineDriverAt(t, -24.66, 25.9);
    t.clock.advanceBy(1_000);
    await acceptBy(t, b, driver);
    const steps: [string, Record<string, unknown>][] = [
      ["arrive_pickup", {}],
      ["pick_up", { force_reason: "no scanner" }],
      ["fail_delivery", { reason: "nobody home" }],
      ["complete_return", {}],
    ];
    for (const [action, body] of steps) {
      t.clock.advanceBy(1_000);
      const r = await t.call("POST", `/driver/trips/${b.trip.reference}/${action}`, {
        bearer: driver.token,
        body: { idempotency_key: action, ...body },
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      // spec: business 2.4: reached is where the driver went, not where the trip ended.
      assert.deepEqual(await reached(t, b.token), [false], action);
    }
  }));
