/**
 * The dispatch board of a business whose trip is offered to a pool driver who just finished
 * another business's trip (Business API 3.1, 2.4; tenant isolation): the driver's newest position
 * may have been observed on that trip (at its customer's door), so it is never shown; a position
 * observed after the driver was released from that trip is.
 */
import assert from "node:assert/strict";
import { DispatchBoardFeed } from "../../../routes/business/dispatch_board.ts";
import { livePositionsOf } from "../../../src/business/reactors/live_positions.ts";
import { A_DOOR, acceptWaiting, boardDriver, deliverBy, report } from "./tracking_fixtures.ts";
import { book, fundedBusiness, PARCEL } from "./trips_fixtures.ts";
import { FakeSink } from "../../helpers/feed_sink.ts";
import { onlineDriverAt } from "../../helpers/pool_drivers.ts";
import { until } from "../../helpers/receiver.ts";
import type { CreatedPoolDriver } from "../../helpers/pool_drivers.ts";
import { type CreatedBusiness, type TestEnv, withTestEnv } from "../../helpers/test_env.ts";

// deno-lint-ignore no-explicit-any
type Message = any;

const isDoor = (p: { lat: number; lng: number } | null | undefined) =>
  p != null && p.lat === A_DOOR.dest_lat && p.lng === A_DOOR.dest_lng;

/** A's trip accepted by the driver, who reports at A's customer's door: answers its reference. */
async function atADoor(t: TestEnv, driver: CreatedPoolDriver): Promise<string> {
  const a = await fundedBusiness(t);
  const booked = await book(t, a.api_key, { ...PARCEL, ...A_DOOR });
  assert.equal(booked.status, 201, JSON.stringify(booked.body));
  assert.equal((await acceptWaiting(t, driver.token)).status, "accepted");
  t.clock.advanceBy(10_000);
  await report(t, driver.token, A_DOOR.dest_lat, A_DOOR.dest_lng);
  t.clock.advanceBy(1_000);
  return booked.body.data.reference;
}

/** B's trip booked and offered to the driver (asserted there). */
async function offeredB(t: TestEnv, b: CreatedBusiness, token: string): Promise<void> {
  const other = await book(t, b.api_key, PARCEL);
  assert.equal(other.status, 201, JSON.stringify(other.body));
  await t.env.runtime.outboxesIdle();
  const o = await t.call("GET", "/driver/offers", { bearer: token });
  assert.ok(o.body.data.offer, JSON.stringify(o.body));
}

Deno.test("dispatch board state: a driver offered the trip after finishing another business's is not shown where that trip ended", () =>
  withTestEnv(async (t) => {
    const driver = await onlineDriverAt(t, PARCEL.pickup_lat, PARCEL.pickup_lng);
    await deliverBy(t, driver, await atADoor(t, driver));
    t.clock.advanceBy(5_000);
    const b = await fundedBusiness(t);
    await offeredB(t, b, driver.token);
    await t.env.pump();
    await t.settle();
    const offered = await boardDriver(t, b.api_key, driver.id);
    assert.ok(offered, "on B's board: offered its trip");
    assert.equal(offered.position, null, "never A's customer's door");

    t.clock.advanceBy(5_000);
    await report(t, driver.token, -24.63, 25.92);
    await t.settle();
    const later = await boardDriver(t, b.api_key, driver.id);
    assert.deepEqual([later.position.lat, later.position.lng], [-24.63, 25.92]);
  }));

Deno.test("dispatch board feed: a driver offered the trip gets no position observed on another business's trip once they finish it", () =>
  withTestEnv(async (t) => {
    const driver = await onlineDriverAt(t, PARCEL.pickup_lat, PARCEL.pickup_lng);
    const reference = await atADoor(t, driver);
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
      await offeredB(t, b, driver.token);
      const positions = (): Message[] =>
        sink.sent.filter((m) => m.type === "position" && m.driver_id === driver.id);
      await until(
        t,
        () => sink.sent.some((m) => m.type === "driver" && m.driver.id === driver.id),
        "the offered driver on B's board",
      );
      await deliverBy(t, driver, reference);
      await t.env.pump();
      // Carrying nothing else now, the board is told what it may show of the driver.
      await until(t, () => positions().length > 0, "the board told of the driver's position");
      assert.ok(!positions().some((m) => isDoor(m.position)), "never A's customer's door");

      t.clock.advanceBy(5_000);
      await report(t, driver.token, -24.63, 25.92);
      await t.env.pump();
      await until(
        t,
        () => positions().some((m) => m.position?.lat === -24.63),
        "a position observed after A's trip",
      );
      assert.ok(!positions().some((m) => isDoor(m.position)), "never A's customer's door");
    } finally {
      feed.stop();
    }
  }));
