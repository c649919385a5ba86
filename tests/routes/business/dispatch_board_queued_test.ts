/**
 * The dispatch board of a business whose trip is queued behind its driver's trip of another
 * business (Business API 3.1 queued; issue 38 item 7): the driver is on the board, holding the
 * trip, with no position until the trip starts, on the opening state and the live feed alike.
 */
import assert from "node:assert/strict";
import { DispatchBoardFeed } from "../../../routes/business/dispatch_board.ts";
import { livePositionsOf } from "../../../src/business/reactors/live_positions.ts";
import { until } from "../../helpers/receiver.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import {
  A_DOOR,
  boardDriver,
  deliverBy,
  queuedBehindAnother,
  report,
} from "./tracking_fixtures.ts";
import { FakeSink } from "../../helpers/feed_sink.ts";

// deno-lint-ignore no-explicit-any
type Message = any;

const isDoor = (p: { lat: number; lng: number } | null) =>
  p !== null && p.lat === A_DOOR.dest_lat && p.lng === A_DOOR.dest_lng;

/** The position messages a board was sent for the driver, oldest first. */
const positionsOf = (sink: FakeSink, driverId: string): Message[] =>
  sink.sent.filter((m) => m.type === "position" && m.driver_id === driverId);

const tripShown = (sink: FakeSink, status: string) =>
  sink.sent.some((m) => m.type === "trip" && m.trip.status === status);

Deno.test("dispatch board state: a driver whose trip here is queued behind another business's is shown holding it, without a position", () =>
  withTestEnv(async (t) => {
    const q = await queuedBehindAnother(t);
    t.clock.advanceBy(10_000);
    await report(t, q.driver.token, A_DOOR.dest_lat, A_DOOR.dest_lng);
    await t.env.pump();
    await t.settle();
    const queued = await boardDriver(t, q.b.business.api_key, q.driver.id);
    assert.ok(queued, "on the board: holding the business's trip");
    assert.equal(queued.position, null);
    const theirs = await boardDriver(t, q.a.business.api_key, q.driver.id);
    assert.ok(isDoor(theirs.position), "A sees its driver");

    t.clock.advanceBy(5_000);
    await deliverBy(t, q.driver, q.a.trip.reference);
    await t.settle();
    // Started: the newest position is still the one observed at A's customer's door.
    const started = await boardDriver(t, q.b.business.api_key, q.driver.id);
    assert.equal(started.position, null);
    t.clock.advanceBy(5_000);
    await report(t, q.driver.token, -24.63, 25.92);
    const on = await boardDriver(t, q.b.business.api_key, q.driver.id);
    assert.deepEqual([on.position.lat, on.position.lng], [-24.63, 25.92]);
  }));

Deno.test("dispatch board feed: a driver who accepts the trip queued behind another business's has their position cleared and none shown until it starts", () =>
  withTestEnv(async (t) => {
    const sinks = new Map<string, FakeSink>();
    const feeds: DispatchBoardFeed[] = [];
    try {
      const q = await queuedBehindAnother(t, {
        opened: async (business) => {
          const sink = new FakeSink();
          const feed = new DispatchBoardFeed(sink, {
            bus: t.env.bus,
            env: t.env.runtime.busPrefix,
            tenant: business.id,
            now: () => t.clock.now(),
          }, { db: t.env.db, runtime: t.env.runtime, positions: livePositionsOf(t.env) });
          sinks.set(business.id, sink);
          feeds.push(feed);
          await feed.start();
        },
      });
      const mine = sinks.get(q.b.business.id)!;
      const theirs = sinks.get(q.a.business.id)!;
      await until(t, () => tripShown(mine, "queued"), "B's queued trip on its board");
      await t.settle();
      assert.ok(mine.sent.some((m) => m.type === "driver" && m.driver.id === q.driver.id));
      // Offered while carrying A's trip, then queued behind it: never shown where they are
      // (tenant isolation: where they are is where A's parcel is).
      assert.ok(!positionsOf(mine, q.driver.id).some((m) => m.position !== null));
      const queuedAt = mine.sent.length;

      t.clock.advanceBy(10_000);
      await report(t, q.driver.token, A_DOOR.dest_lat, A_DOOR.dest_lng);
      await t.env.pump();
      await until(t, () => positionsOf(theirs, q.driver.id).some((m) => isDoor(m.position)), "A");
      await t.settle();
      const whileQueued = mine.sent.slice(queuedAt);
      assert.ok(!whileQueued.some((m) => m.type === "position" && m.position !== null));

      t.clock.advanceBy(5_000);
      await deliverBy(t, q.driver, q.a.trip.reference);
      await until(t, () => tripShown(mine, "accepted"), "B's trip started on its board");
      t.clock.advanceBy(5_000);
      await report(t, q.driver.token, -24.63, 25.92);
      await t.env.pump();
      await until(
        t,
        () => positionsOf(mine, q.driver.id).some((m) => m.position?.lat === -24.63),
        "the driver's position on B's trip",
      );
      assert.ok(!positionsOf(mine, q.driver.id).some((m) => isDoor(m.position)), "never A's door");
    } finally {
      for (const f of feeds) f.stop();
    }
  }));
