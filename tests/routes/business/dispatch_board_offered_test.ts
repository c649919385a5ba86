/**
 * The dispatch board of a business whose trip is merely offered to a pool driver carrying another
 * business's trip (Business API 3.1; tenant isolation): the driver is listed without a position,
 * so the business never watches where the other business's parcel is; once the driver carries
 * nothing of another's, the offered driver is shown where they are.
 */
import assert from "node:assert/strict";
import { DispatchBoardFeed } from "../../../routes/business/dispatch_board.ts";
import { livePositionsOf } from "../../../src/business/reactors/live_positions.ts";
import { A_DOOR, acceptWaiting, boardDriver, deliverBy, report } from "./tracking_fixtures.ts";
import { book, fundedBusiness, PARCEL } from "./trips_fixtures.ts";
import { FakeSink } from "../../helpers/feed_sink.ts";
import { onlineDriverAt } from "../../helpers/pool_drivers.ts";
import { until } from "../../helpers/receiver.ts";
import { type CreatedBusiness, type TestEnv, withTestEnv } from "../../helpers/test_env.ts";

// deno-lint-ignore no-explicit-any
type Message = any;

/** The position messages a board was sent for the driver, oldest first. */
const positionsOf = (sink: FakeSink, driverId: string): Message[] =>
  sink.sent.filter((m) => m.type === "position" && m.driver_id === driverId);

/** A live board feed of the business, started, with what it was sent. */
async function openFeed(t: TestEnv, business: CreatedBusiness) {
  const sink = new FakeSink();
  const feed = new DispatchBoardFeed(sink, {
    bus: t.env.bus,
    env: t.env.runtime.busPrefix,
    tenant: business.id,
    now: () => t.clock.now(),
  }, { db: t.env.db, runtime: t.env.runtime, positions: livePositionsOf(t.env) });
  await feed.start();
  return { sink, feed };
}

const isDoor = (p: { lat: number; lng: number } | null) =>
  p !== null && p.lat === A_DOOR.dest_lat && p.lng === A_DOOR.dest_lng;

/** The offer waiting for the driver (asserted there). */
async function offerWaiting(t: TestEnv, token: string): Promise<void> {
  await t.env.runtime.outboxesIdle();
  const o = await t.call("GET", "/driver/offers", { bearer: token });
  assert.ok(o.body.data.offer, JSON.stringify(o.body));
}

Deno.test("dispatch board state: a driver offered the trip while carrying another business's is listed without a position", () =>
  withTestEnv(async (t) => {
    const driver = await onlineDriverAt(t, PARCEL.pickup_lat, PARCEL.pickup_lng);
    const a = await fundedBusiness(t);
    const booked = await book(t, a.api_key, { ...PARCEL, ...A_DOOR });
    assert.equal(booked.status, 201, JSON.stringify(booked.body));
    assert.equal((await acceptWaiting(t, driver.token)).status, "accepted");
    t.clock.advanceBy(10_000);
    await report(t, driver.token, A_DOOR.dest_lat, A_DOOR.dest_lng);

    const b = await fundedBusiness(t);
    const other = await book(t, b.api_key, PARCEL);
    assert.equal(other.status, 201, JSON.stringify(other.body));
    await offerWaiting(t, driver.token);
    await t.env.pump();
    await t.settle();
    const offered = await boardDriver(t, b.api_key, driver.id);
    assert.ok(offered, "on B's board: offered its trip");
    assert.equal(offered.position, null, "never where A's parcel is");
    assert.ok(isDoor((await boardDriver(t, a.api_key, driver.id)).position), "A sees its driver");

    // A's trip done, the driver carries nothing else: offered, they are shown where they are.
    await deliverBy(t, driver, booked.body.data.reference);
    t.clock.advanceBy(5_000);
    await report(t, driver.token, -24.63, 25.92);
    await offerWaiting(t, driver.token);
    await t.settle();
    const free = await boardDriver(t, b.api_key, driver.id);
    assert.deepEqual([free.position.lat, free.position.lng], [-24.63, 25.92]);
  }));

Deno.test("dispatch board feed: a driver offered the trip while carrying another business's gets no position until they carry nothing else", () =>
  withTestEnv(async (t) => {
    const driver = await onlineDriverAt(t, PARCEL.pickup_lat, PARCEL.pickup_lng);
    const a = await fundedBusiness(t);
    const booked = await book(t, a.api_key, { ...PARCEL, ...A_DOOR });
    assert.equal(booked.status, 201, JSON.stringify(booked.body));
    assert.equal((await acceptWaiting(t, driver.token)).status, "accepted");
    const b = await fundedBusiness(t);
    const { sink, feed } = await openFeed(t, b);
    try {
      const other = await book(t, b.api_key, PARCEL);
      assert.equal(other.status, 201, JSON.stringify(other.body));
      await offerWaiting(t, driver.token);
      const shown = () => sink.sent.some((m) => m.type === "driver" && m.driver.id === driver.id);
      await until(t, shown, "the offered driver on B's board");
      t.clock.advanceBy(10_000);
      await report(t, driver.token, A_DOOR.dest_lat, A_DOOR.dest_lng);
      await t.env.pump();
      await t.settle();
      assert.ok(!positionsOf(sink, driver.id).some((m) => m.position !== null), "never A's");

      await deliverBy(t, driver, booked.body.data.reference);
      t.clock.advanceBy(5_000);
      await report(t, driver.token, -24.63, 25.92);
      await t.env.pump();
      await until(
        t,
        () => positionsOf(sink, driver.id).some((m) => m.position?.lat === -24.63),
        "the offered driver's position once they carry nothing else",
      );
    } finally {
      feed.stop();
    }
  }));
