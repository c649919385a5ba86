/**
 * The dispatch pool's drivers over HTTP (CONTRACT "Operator API" POST /operator/drivers, "Driver
 * app" PUT /driver/shift and POST /driver/positions; Business API 1.2): registered by the
 * operator only, on and off shift, positions taken at once and kept in batches.
 */
import assert from "node:assert/strict";
import { livePositionsOf } from "../../../src/business/reactors/live_positions.ts";
import { createPoolDriver } from "../../helpers/pool_drivers.ts";
import { withTestEnv } from "../../helpers/test_env.ts";

Deno.test("pool drivers: the operator registers one; an unknown zone or vehicle type is named; the token is the driver's", () =>
  withTestEnv(async (t) => {
    const body = { name: "Neo", phone: "+26771234567", vehicle_type_id: 1, zone_id: "gaborone" };
    const b = await t.createBusiness();
    const notOperator = await t.call("POST", "/operator/drivers", { key: b.api_key, body });
    assert.equal(notOperator.status, 401);
    const bad = await t.call("POST", "/operator/drivers", {
      operator: true,
      body: { ...body, vehicle_type_id: 999, zone_id: "atlantis" },
    });
    assert.equal(bad.status, 422);
    assert.equal(bad.body.code, "validation_failed");
    assert.deepEqual(bad.body.errors.map((e: { path: string }) => e.path), [
      "vehicle_type_id",
      "zone_id",
    ]);

    const d = await createPoolDriver(t);
    assert.match(d.token, /^dt_live_/);
    const me = await t.call("GET", "/driver/me", { bearer: d.token });
    assert.equal(me.status, 200);
    assert.deepEqual(me.body.data, {
      id: d.id,
      name: "Neo Kgosi",
      phone: "+26771234567",
      vehicle_type_id: 1,
      zone_id: "gaborone",
      plate: "B 123 ABC",
      color: "red",
      online: false,
      shift_changed_at: null,
    });
    for (const bearer of ["dt_live_nope", b.api_key]) {
      const r = await t.call("GET", "/driver/me", { bearer });
      assert.equal(r.status, 401);
      assert.equal(r.body.code, "unauthenticated");
    }
  }));

Deno.test("pool drivers: on and off shift; going online twice changes nothing", () =>
  withTestEnv(async (t) => {
    const d = await createPoolDriver(t);
    const on = await t.call("PUT", "/driver/shift", { bearer: d.token, body: { online: true } });
    assert.equal(on.body.data.online, true);
    assert.equal(on.body.data.shift_changed_at, new Date(t.clock.now()).toISOString());
    const at = on.body.data.shift_changed_at;
    t.clock.advanceBy(60_000);
    const again = await t.call("PUT", "/driver/shift", { bearer: d.token, body: { online: true } });
    assert.equal(again.body.data.shift_changed_at, at);
    const off = await t.call("PUT", "/driver/shift", { bearer: d.token, body: { online: false } });
    assert.equal(off.body.data.online, false);
    const bad = await t.call("PUT", "/driver/shift", { bearer: d.token, body: { online: "yes" } });
    assert.equal(bad.status, 422);
  }));

Deno.test("pool drivers: positions are current at once (the newest observed wins), all stored after the pump", () =>
  withTestEnv(async (t) => {
    const d = await createPoolDriver(t);
    const now = t.clock.now();
    const at = (s: number) => new Date(now - s * 1_000).toISOString();
    const r = await t.call("POST", "/driver/positions", {
      bearer: d.token,
      body: {
        positions: [
          { lat: -24.6, lng: 25.9, accuracy: 4, heading: 10, at: at(5) },
          { lat: -24.61, lng: 25.91, at: at(0) },
          { lat: -24.59, lng: 25.89, accuracy: 8, heading: 350, at: at(10) },
        ],
      },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.data, { accepted: 3, latest_at: at(0) });
    const live = livePositionsOf(t.env);
    assert.deepEqual(live.latest(d.id), {
      lat: -24.61,
      lng: 25.91,
      accuracy: null,
      heading: null,
      at: now,
    });
    // A late batch of older positions leaves the newest current.
    await t.call("POST", "/driver/positions", {
      bearer: d.token,
      body: { positions: [{ lat: 0, lng: 0, at: at(30) }] },
    });
    assert.equal(live.latest(d.id)!.at, now);

    const stored = () =>
      t.env.db.selectFrom("driver_positions").select(["at", "lat"]).where("driver_id", "=", d.id)
        .orderBy("at").execute();
    // Stored in batches at the pump: the environment's loop runs it every TIMER_POLL_MS of real
    // time too, so some may be stored already (that nothing is written per ping is shown in
    // tests/business/reactors/live_positions_test.ts); after this one, all are.
    await t.env.pump();
    assert.deepEqual((await stored()).map((p) => Number(p.at)), [
      now - 30_000,
      now - 10_000,
      now - 5_000,
      now,
    ]);
  }));

Deno.test("pool drivers: a position from the future or off the globe is refused, naming it, and nothing is taken", () =>
  withTestEnv(async (t) => {
    const d = await createPoolDriver(t);
    const later = new Date(t.clock.now() + 5 * 60_000).toISOString();
    const future = await t.call("POST", "/driver/positions", {
      bearer: d.token,
      body: { positions: [{ lat: -24.6, lng: 25.9, at: later }] },
    });
    assert.equal(future.status, 422);
    assert.deepEqual(future.body.errors.map((e: { path: string }) => e.path), ["positions.0.at"]);
    const off = await t.call("POST", "/driver/positions", {
      bearer: d.token,
      body: { positions: [{ lat: 91, lng: 25.9, at: new Date(t.clock.now()).toISOString() }] },
    });
    assert.equal(off.status, 422);
    const none = await t.call("POST", "/driver/positions", {
      bearer: d.token,
      body: { positions: [] },
    });
    assert.equal(none.status, 422);
    assert.equal(livePositionsOf(t.env).latest(d.id), null);
  }));
