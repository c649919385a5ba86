/**
 * Business B's trip accepted by a pool driver right after they delivered business A's (Business
 * API 2.4, 3.1; tenant isolation): the driver's newest position may have been observed on A's trip
 * (at A's customer's door), so B's tracking link and dispatch board never show it; a position
 * observed after the driver was released from A's trip is shown.
 */
import assert from "node:assert/strict";
import { DispatchBoardFeed } from "../../../routes/business/dispatch_board.ts";
import { livePositionsOf } from "../../../src/business/reactors/live_positions.ts";
import { FakeSink } from "../../helpers/feed_sink.ts";
import { onlineDriverAt } from "../../helpers/pool_drivers.ts";
import { until } from "../../helpers/receiver.ts";
import { type CreatedBusiness, type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import {
  A_DOOR,
  acceptWaiting,
  boardDriver,
  deliverBy,
  driverPoints,
  report,
  tokenOf,
  trackingView as view,
} from "./tracking_fixtures.ts";
import { book, fundedBusiness, PARCEL } from "./trips_fixtures.ts";
import type { CreatedPoolDriver } from "../../helpers/pool_drivers.ts";

const atDoor = ([lat, lng]: [number, number]) => lat === A_DOOR.dest_lat && lng === A_DOOR.dest_lng;

/** A's trip delivered by the driver, last heard at A's customer's door; then B's accepted. */
async function acceptedAfterA(t: TestEnv, driver: CreatedPoolDriver, b?: CreatedBusiness) {
  const a = await fundedBusiness(t);
  const ta = await book(t, a.api_key, { ...PARCEL, ...A_DOOR });
  assert.equal(ta.status, 201, JSON.stringify(ta.body));
  assert.equal((await acceptWaiting(t, driver.token)).status, "accepted");
  t.clock.advanceBy(10_000);
  await report(t, driver.token, A_DOOR.dest_lat, A_DOOR.dest_lng);
  t.clock.advanceBy(1_000);
  await deliverBy(t, driver, ta.body.data.reference);
  t.clock.advanceBy(2_000);
  b ??= await fundedBusiness(t);
  const tb = await book(t, b.api_key, PARCEL);
  assert.equal(tb.status, 201, JSON.stringify(tb.body));
  assert.equal((await acceptWaiting(t, driver.token)).status, "accepted");
  await t.env.pump();
  await t.settle();
  return { b, token: tokenOf(tb.body.data.tracking_url), reference: tb.body.data.reference };
}

Deno.test("trip-track: a trip accepted right after its driver delivered another business's shows no position observed on that trip", () =>
  withTestEnv(async (t) => {
    const driver = await onlineDriverAt(t, PARCEL.pickup_lat, PARCEL.pickup_lng);
    const { token, reference } = await acceptedAfterA(t, driver);
    const v = await view(t, token);
    assert.equal(v.status, "accepted");
    assert.deepEqual(driverPoints(v), [], "never A's customer's door");
    assert.equal(v.eta_minutes, null);
    assert.ok(!driverPoints(await view(t, reference)).some(atDoor), "by reference neither");

    t.clock.advanceBy(5_000);
    await report(t, driver.token, -24.63, 25.92);
    await t.env.pump();
    const later = await view(t, token);
    assert.deepEqual([later.driver_lat, later.driver_lng], [-24.63, 25.92]);
    assert.ok(!driverPoints(later).some(atDoor));
  }));

Deno.test("dispatch board state: the driver of a trip accepted right after another business's is not shown where that trip ended", () =>
  withTestEnv(async (t) => {
    const driver = await onlineDriverAt(t, PARCEL.pickup_lat, PARCEL.pickup_lng);
    const { b } = await acceptedAfterA(t, driver);
    const on = await boardDriver(t, b.api_key, driver.id);
    assert.ok(on, "on B's board: B's trip's driver");
    assert.equal(on.position, null, "never A's customer's door");

    t.clock.advanceBy(5_000);
    await report(t, driver.token, -24.63, 25.92);
    await t.settle();
    const later = await boardDriver(t, b.api_key, driver.id);
    assert.deepEqual([later.position.lat, later.position.lng], [-24.63, 25.92]);
  }));

Deno.test("dispatch board feed: the driver of a trip accepted right after another business's gets no position observed on that trip", () =>
  withTestEnv(async (t) => {
    const driver = await onlineDriverAt(t, PARCEL.pickup_lat, PARCEL.pickup_lng);
    const b = await fundedBusiness(t);
    const sink = new FakeSink();
    const feed = new DispatchBoardFeed(sink, {
      bus: t.env.bus,
      env: t.env.runtime.busPrefix,
      tenant: b.id,
      now: () => t.clock.now(),
    }, { db: t.env.db, runtime: t.env.runtime, positions: livePositionsOf(t.env) });
    await feed.start();
    try {
      // deno-lint-ignore no-explicit-any
      const positions = () => sink.sent.filter((m: any) => m.type === "position");
      await acceptedAfterA(t, driver, b);
      await t.env.pump();
      await until(
        t,
        // deno-lint-ignore no-explicit-any
        () => sink.sent.some((m: any) => m.type === "driver" && m.driver.id === driver.id),
        "B's trip's driver on B's board",
      );
      t.clock.advanceBy(5_000);
      await report(t, driver.token, -24.63, 25.92);
      await t.env.pump();
      await until(
        t,
        () => positions().some((m) => m.position?.lat === -24.63),
        "a position observed after A's trip",
      );
      assert.ok(
        !positions().some((m) => m.position && atDoor([m.position.lat, m.position.lng])),
        "never A's customer's door",
      );
    } finally {
      feed.stop();
    }
  }));
