/**
 * The business's dispatch board without a browser (issue 38 item 7): what the page opens with, and
 * the live feed of trips, drivers' shifts and their positions, another business's trips never.
 */
import assert from "node:assert/strict";
import { tripActor, type TripDriver } from "../../../actors/business/trip/mod.ts";
import { DispatchBoardFeed, dispatchMessageOf } from "../../../routes/business/dispatch_board.ts";
import { DispatchBoardAnswer } from "../../../routes/business/answers/dispatch_board.ts";
import { documentedData } from "../../helpers/documented.ts";
import { createPoolDriver, onlineDriverAt } from "../../helpers/pool_drivers.ts";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { until } from "../../helpers/receiver.ts";
import { livePositionsOf } from "../../../src/business/reactors/live_positions.ts";
import { book, fundedBusiness, PARCEL } from "./trips_fixtures.ts";
import { FakeSink } from "../../helpers/feed_sink.ts";
import { serveLive } from "../../helpers/live_server.ts";

const GABORONE = { lat: -24.6282, lng: 25.9231 };

async function bookOne(t: TestEnv, key: string): Promise<string> {
  const r = await book(t, key, PARCEL);
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.data.reference;
}

function tripDriver(id: string): TripDriver {
  return { id, name: "Neo Kgosi", phone: null, plate: null, color: null, vehicle_type_id: 1 };
}

async function stateOf(t: TestEnv, key: string) {
  const r = await t.call("GET", "/business/dispatch-board/state", { key });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return documentedData(DispatchBoardAnswer, r, "the dispatch board's state");
}

/** The trip as its actor has it now. */
async function tripNow(t: TestEnv, business: string, reference: string) {
  const r = await t.env.runtime.read(tripActor, business, reference, { kind: "get" });
  assert.ok(r.ok && r.reply.phase === "booked");
  return r.reply.trip;
}

Deno.test("dispatch board state: the business's trips in progress and the drivers on them; no other driver", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const other = await fundedBusiness(t);
    const offShift = await createPoolDriver(t, { name: "Kabo Off" });
    // On shift, its pings heard by another instance: only the stored batch has its position.
    const elsewhere = await createPoolDriver(t, { name: "Mpho Elsewhere" });
    const shift = await t.call("PUT", "/driver/shift", {
      bearer: elsewhere.token,
      body: { online: true },
    });
    assert.equal(shift.status, 200, JSON.stringify(shift.body));
    await t.env.db.insertInto("driver_positions").values([
      { driver_id: elsewhere.id, at: 1_000, lat: -24.5, lng: 25.8, accuracy: null, heading: null },
      { driver_id: elsewhere.id, at: 2_000, lat: -24.55, lng: 25.85, accuracy: 4, heading: 10 },
    ]).execute();
    const accepted = await bookOne(t, b.api_key);
    const ask = await t.env.runtime.ask(tripActor, b.id, accepted, {
      kind: "accept",
      driver: tripDriver(elsewhere.id),
      // A driver who never gave up a trip (released_at 0), as dispatch tells the trip: any
      // position of theirs is this trip's (spec: business 2.4).
      positions_since: 1,
    });
    assert.ok(ask.ok, JSON.stringify(ask));
    const pending = await bookOne(t, b.api_key);
    // The only driver with a fresh position: the pending trip is offered to them.
    const driver = await onlineDriverAt(t, GABORONE.lat, GABORONE.lng);
    await until(
      t,
      async () => (await tripNow(t, b.id, pending)).offer?.driver_id === driver.id,
      "the offer",
    );
    // On shift and on another business's trip only.
    const stranger = await onlineDriverAt(t, GABORONE.lat, GABORONE.lng, { name: "Other's" });
    await bookOne(t, other.api_key);
    await t.settle();

    const mine = await stateOf(t, b.api_key);
    const byRef = new Map(mine.trips.map((x: { reference: string }) => [x.reference, x]));
    assert.deepEqual([...byRef.keys()].sort(), [pending, accepted].sort());
    // deno-lint-ignore no-explicit-any
    const held = byRef.get(accepted) as any;
    assert.equal(held.status, "accepted");
    assert.deepEqual(held.driver, { id: elsewhere.id, name: "Neo Kgosi", vehicle_type_id: 1 });
    assert.equal(held.offer, null);
    assert.deepEqual(held.pickup, {
      address: PARCEL.pickup_address,
      lat: PARCEL.pickup_lat,
      lng: PARCEL.pickup_lng,
    });
    assert.equal(held.billing_amount, undefined, "no fares on the board");
    const ids = mine.drivers.map((d: { id: string }) => d.id).sort();
    assert.deepEqual(ids, [driver.id, elsewhere.id].sort(), "the drivers on its trips only");
    assert.ok(!ids.includes(offShift.id) && !ids.includes(stranger.id));
    const shown = mine.drivers.find((d: { id: string }) => d.id === driver.id);
    assert.equal(shown.position.lat, GABORONE.lat);
    assert.equal(shown.phone, undefined, "never a driver's phone");
    const far = mine.drivers.find((d: { id: string }) => d.id === elsewhere.id);
    assert.deepEqual(far.position, {
      lat: -24.55,
      lng: 25.85,
      accuracy: 4,
      heading: 10,
      at: "1970-01-01T00:00:02.000Z",
    });
    assert.equal(mine.position_fresh_seconds, 60);
    assert.ok(mine.vehicle_types.some((v: { id: number }) => v.id === 1));

    const theirs = await stateOf(t, other.api_key);
    const theirIds = theirs.drivers.map((d: { id: string }) => d.id);
    assert.ok(!theirIds.includes(driver.id) && !theirIds.includes(elsewhere.id), "not theirs");
    const anonymous = await t.call("GET", "/business/dispatch-board/state");
    assert.equal(anonymous.status, 401);
  }));

Deno.test("dispatch board feed: trips of the business only, its drivers' positions coalesced, a driver leaves with the trip", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const other = await fundedBusiness(t);
    const feedOf = (tenant: string, sink: FakeSink) =>
      new DispatchBoardFeed(sink, {
        bus: t.env.bus,
        env: t.env.runtime.busPrefix,
        tenant,
        now: () => t.clock.now(),
      }, { db: t.env.db, runtime: t.env.runtime, positions: livePositionsOf(t.env) });
    const mine = new FakeSink();
    const theirs = new FakeSink();
    const feeds = [feedOf(b.id, mine), feedOf(other.id, theirs)];
    try {
      for (const f of feeds) await f.start();
      const reference = await bookOne(t, b.api_key);
      const driver = await onlineDriverAt(t, GABORONE.lat, GABORONE.lng);
      const has = (sink: FakeSink, f: (m: Record<string, unknown>) => boolean) => sink.sent.some(f);
      // Offered the trip, the driver comes onto the business's board with their position.
      await until(
        t,
        () =>
          has(mine, (m) => m.type === "driver" && (m.driver as { id: string }).id === driver.id),
        "the offered driver on the board",
      );
      // Two reports before the next pump: one position, the newest, reaches the board.
      const at = (s: number) => new Date(t.clock.now() + s * 1000).toISOString();
      const moved = await t.call("POST", "/driver/positions", {
        bearer: driver.token,
        body: {
          positions: [{ lat: -24.61, lng: 25.91, at: at(1) }, { lat: -24.6, lng: 25.9, at: at(2) }],
        },
      });
      assert.equal(moved.status, 200, JSON.stringify(moved.body));
      await t.env.pump();
      await until(
        t,
        () =>
          has(mine, (m) => m.type === "position" && (m.position as { lat: number }).lat === -24.6),
        "the newest position",
      );
      const positions = mine.sent.filter((m) => m.type === "position");
      assert.ok(positions.every((m) => m.driver_id === driver.id));
      assert.ok(!positions.some((m) => m.position.lat === -24.61), "coalesced to the newest");
      const trips = mine.sent.filter((m) => m.type === "trip");
      assert.ok(trips.every((m) => m.trip.reference === reference));

      // The trip ends: the driver leaves the board.
      const cancel = await t.call("POST", `/business/trips/${reference}/cancel`, {
        key: b.api_key,
        body: {},
      });
      assert.equal(cancel.status, 200, JSON.stringify(cancel.body));
      await until(
        t,
        () => has(mine, (m) => m.type === "driver_left" && m.driver_id === driver.id),
        "the driver leaving",
      );
      await t.settle();
      // Never another business's trips, nor its drivers or where they are.
      assert.deepEqual(theirs.sent.map((m) => m.type), ["ready"], JSON.stringify(theirs.sent));
    } finally {
      for (const f of feeds) f.stop();
    }
  }));

Deno.test("dispatch board message: a trip's waiting offer is shown; a snapshot it cannot read is not", () => {
  const trip = {
    reference: "BK-1",
    id: 1,
    type: "parcel",
    status: "pending",
    created_at: 0,
    scheduled_at: null,
    passenger_name: "Neo",
    pickup: { address: "A", lat: -24.6, lng: 25.9 },
    stops: [],
    dest: { address: "B", lat: -24.7, lng: 25.8 },
    driver: null,
    offer: { offer_id: "off_1", driver_id: "pdr_1", expires_at: 30_000 },
  };
  const change = (type: string, snapshot: unknown) => ({
    env: "live",
    tenant: "b1",
    type,
    id: "x",
    version: 3,
    events: [],
    snapshot,
  });
  const m = dispatchMessageOf(change("business_trip", trip));
  assert.deepEqual(m?.trip && (m.trip as { offer: unknown }).offer, {
    offer_id: "off_1",
    driver_id: "pdr_1",
    expires_at: "1970-01-01T00:00:30.000Z",
  });
  assert.equal(dispatchMessageOf(change("business_trip", null)), null);
  assert.equal(dispatchMessageOf(change("shipment", trip)), null);
});

/** A board socket from Deno, recording what it receives and how it closed. */
function socket(url: string, key: string) {
  const ws = new WebSocket(url);
  // deno-lint-ignore no-explicit-any
  const messages: any[] = [];
  const closed = new Promise<number>((resolve) => ws.onclose = (e) => resolve(e.code));
  ws.onopen = () => ws.send(JSON.stringify({ type: "auth", key }));
  ws.onmessage = (e) => messages.push(JSON.parse(e.data));
  return { ws, messages, closed };
}

Deno.test("dispatch board socket: a wrong key closes 4401, a partner key 4403; a business hears only its trips and their drivers", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const other = await fundedBusiness(t);
    const partner = await t.call("POST", `/operator/businesses/${b.id}/partner-keys`, {
      operator: true,
      body: { partner: "Shop", scopes: ["deliveries"] },
    });
    assert.equal(partner.status, 201, JSON.stringify(partner.body));
    const server = serveLive(t.app.fetch);
    const url = `ws://127.0.0.1:${server.port}/api/business/dispatch-board/live`;
    const sockets = [
      socket(url, "sk_live_wrong"),
      socket(url, partner.body.data.key),
      socket(url, b.api_key),
      socket(url, other.api_key),
    ];
    const [wrong, partnerKey, mine, theirs] = sockets;
    try {
      assert.equal(await wrong!.closed, 4401);
      assert.equal(await partnerKey!.closed, 4403);
      const isReady = (s: typeof mine) => s!.messages.some((m) => m.type === "ready");
      await until(t, () => isReady(mine) && isReady(theirs), "both boards ready");
      const reference = await bookOne(t, b.api_key);
      await until(
        t,
        () => mine!.messages.some((m) => m.type === "trip" && m.trip.reference === reference),
        "the booking on the business's board",
      );
      // A driver offered the business's trip, moving: on its board, never on another's.
      const driver = await onlineDriverAt(t, GABORONE.lat, GABORONE.lng);
      const moved = await t.call("POST", "/driver/positions", {
        bearer: driver.token,
        body: { positions: [{ lat: -24.6, lng: 25.9, at: new Date(t.clock.now() + 1_000) }] },
      });
      assert.equal(moved.status, 200, JSON.stringify(moved.body));
      await t.env.pump();
      await until(
        t,
        () => mine!.messages.some((m) => m.type === "position" && m.driver_id === driver.id),
        "the driver's position on the business's board",
      );
      await t.env.pump();
      await t.settle();
      assert.deepEqual(theirs!.messages.map((m) => m.type), ["ready"]);
    } finally {
      for (const s of sockets) if (s.ws.readyState !== WebSocket.CLOSED) s.ws.close();
      await Promise.all(sockets.map((s) => s.closed));
      await server.close();
    }
  }));
