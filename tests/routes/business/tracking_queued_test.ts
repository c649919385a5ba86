/**
 * GET /trip-track/{token} of a trip queued behind its driver's trip under way (Business API 2.4,
 * 3.1 queued): where the driver is belongs to the trip they are on, maybe another business's, so
 * the queued trip shows no position, ETA or breadcrumb until it starts, and its breadcrumb starts
 * then, never with a position observed on the other trip.
 */
// @ts-types="@types/mapbox__polyline"
import polyline from "@mapbox/polyline";
import assert from "node:assert/strict";
import { tripActor } from "../../../actors/business/trip/mod.ts";
import { until } from "../../helpers/receiver.ts";
import { onlineDriverAt } from "../../helpers/pool_drivers.ts";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import {
  A_DOOR,
  acceptWaiting,
  type BookedTrip,
  deliverBy,
  driverPoints,
  queuedBehindAnother,
  report,
  tokenOf,
  trackingView as view,
} from "./tracking_fixtures.ts";
import { book, fundedBusiness, PARCEL } from "./trips_fixtures.ts";

/** B's trip queued behind A's, its driver heard at A's customer's door 5 seconds ago. */
async function queuedWhileAtADoor(t: TestEnv) {
  const q = await queuedBehindAnother(t);
  t.clock.advanceBy(10_000);
  await report(t, q.driver.token, A_DOOR.dest_lat, A_DOOR.dest_lng);
  await t.env.pump();
  t.clock.advanceBy(5_000);
  return q;
}

async function statusOf(t: TestEnv, b: BookedTrip): Promise<string> {
  const r = await t.env.runtime.read(tripActor, b.business.id, b.trip.reference, { kind: "get" });
  assert.ok(r.ok && r.reply.phase === "booked");
  return r.reply.trip.status;
}

const atDoor = ([lat, lng]: [number, number]) => lat === A_DOOR.dest_lat && lng === A_DOOR.dest_lng;

Deno.test("trip-track: business B's tracking link does not show the driver while B's trip is queued behind business A's", () =>
  withTestEnv(async (t) => {
    const d = await onlineDriverAt(t, PARCEL.pickup_lat, PARCEL.pickup_lng);
    const a = await fundedBusiness(t);
    const b = await fundedBusiness(t);
    const ta = await book(t, a.api_key, { ...PARCEL, ...A_DOOR });
    assert.equal(ta.status, 201, JSON.stringify(ta.body));
    await acceptWaiting(t, d.token);
    const tb = await book(t, b.api_key, PARCEL);
    assert.equal(tb.status, 201, JSON.stringify(tb.body));
    const accepted = await acceptWaiting(t, d.token);
    assert.equal(accepted.status, "queued");
    await t.call("POST", "/operator/clock/advance", { operator: true, body: { seconds: 10 } });
    await report(t, d.token, A_DOOR.dest_lat, A_DOOR.dest_lng);
    const v = await view(t, tokenOf(tb.body.data.tracking_url));
    assert.equal(v.status, "queued");
    assert.equal(v.driver_lat, null);
  }));

Deno.test("trip-track: a queued trip names its driver, with no position, ETA or breadcrumb; the trip under way shows them live", () =>
  withTestEnv(async (t) => {
    const q = await queuedBehindAnother(t);
    t.clock.advanceBy(10_000);
    await report(t, q.driver.token, -24.645, 25.93);
    t.clock.advanceBy(10_000);
    await report(t, q.driver.token, A_DOOR.dest_lat, A_DOOR.dest_lng);
    await t.env.pump();
    const v = await view(t, q.b.token);
    assert.equal(v.status, "queued");
    assert.equal(v.is_active, true);
    assert.equal(v.poll_after_seconds, 15);
    // spec: business 2.4: who is coming is shown; where they are is the other trip's.
    assert.equal(v.driver_name, "Neo Kgosi");
    assert.equal(v.driver_plate, "B 123 ABC");
    assert.ok(v.accepted_at);
    for (
      const field of [
        "driver_lat",
        "driver_lng",
        "eta_minutes",
        "location_observed_at",
        "location_age_seconds",
        "location_is_fresh",
        "route_polyline",
      ]
    ) assert.equal(v[field], null, field);
    // By reference too.
    const byReference = await view(t, q.b.trip.reference);
    assert.deepEqual(driverPoints(byReference), []);

    const mine = await view(t, q.a.token);
    assert.equal(mine.status, "accepted");
    assert.deepEqual([mine.driver_lat, mine.driver_lng], [A_DOOR.dest_lat, A_DOOR.dest_lng]);
    assert.equal(mine.location_is_fresh, true);
    assert.ok(driverPoints(mine).some(atDoor), "A's own breadcrumb");
  }));

Deno.test("trip-track: a queued trip that starts shows its driver from then on; its breadcrumb holds nothing from the trip before", () =>
  withTestEnv(async (t) => {
    const q = await queuedWhileAtADoor(t);
    await deliverBy(t, q.driver, q.a.trip.reference);
    await until(t, async () => (await statusOf(t, q.b)) === "accepted", "B's trip starting");
    // Started, nothing heard since: the newest position was observed at A's customer's door.
    const started = await view(t, q.b.token);
    assert.equal(started.status, "accepted");
    assert.deepEqual(driverPoints(started), []);
    assert.equal(started.eta_minutes, null);

    t.clock.advanceBy(5_000);
    await report(t, q.driver.token, -24.63, 25.92);
    t.clock.advanceBy(5_000);
    await report(t, q.driver.token, -24.64, 25.91);
    await t.env.pump();
    const on = await view(t, q.b.token);
    assert.deepEqual([on.driver_lat, on.driver_lng], [-24.64, 25.91]);
    assert.equal(typeof on.eta_minutes, "number");
    assert.deepEqual(polyline.decode(on.route_polyline), [[-24.63, 25.92], [-24.64, 25.91]]);
  }));

Deno.test("trip-track: a trip cancelled while queued shows no breadcrumb of the trip it waited behind", () =>
  withTestEnv(async (t) => {
    const q = await queuedWhileAtADoor(t);
    const cancel = await t.call("POST", `/business/trips/${q.b.trip.reference}/cancel`, {
      key: q.b.business.api_key,
      body: {},
    });
    assert.equal(cancel.status, 200, JSON.stringify(cancel.body));
    const ended = await view(t, q.b.token);
    assert.equal(ended.status, "cancelled");
    assert.deepEqual(driverPoints(ended), []);
    // A's trip goes on, its driver still seen by A.
    const mine = await view(t, q.a.token);
    assert.ok(driverPoints(mine).some(atDoor));
  }));
