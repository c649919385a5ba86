/**
 * Business API 3.2, 4.2 and 4.4: a batch in the sandbox is collected by one driver, as on live:
 * the simulated driver of assign_driver, by hand on any stop or by the autopilot on every stop at
 * once, is the batch's one driver, who takes the stop that leads it and is given the others.
 */
import assert from "node:assert/strict";
import { tripActor } from "../../../actors/business/trip/mod.ts";
import { acceptOffer, newOfferId } from "../../../src/business/flows/dispatch.ts";
import { createPoolDriver } from "../../helpers/pool_drivers.ts";
import { advance } from "../../helpers/receiver.ts";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { LINE, postBatch, quiet } from "./batch_fixtures.ts";
import { book, fundedBusiness, PARCEL } from "./trips_fixtures.ts";

/** The batch's stops' trip references, in the driving order. */
async function stopsOf(t: TestEnv, key: string): Promise<string[]> {
  const r = await postBatch(t, key, { segment: "parcel", stops: LINE });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return [...r.body.data.stops]
    .sort((a: { position: number }, b: { position: number }) => a.position - b.position)
    .map((s: { trip_reference: string }) => s.trip_reference);
}

/** Each stop's status and driver, as its trip holds them. */
async function held(t: TestEnv, business: string, refs: readonly string[]) {
  await quiet(t);
  return await Promise.all(refs.map(async (ref) => {
    const r = await t.env.runtime.read(tripActor, business, ref, { kind: "get" });
    assert.ok(r.ok && r.reply.phase === "booked");
    return { status: r.reply.trip.status, driver: r.reply.trip.driver?.id ?? null };
  }));
}

Deno.test("sandbox batch: assign_driver on a stop that follows gives the whole batch one simulated driver", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const refs = await stopsOf(t, b.api_key);
    const r = await t.call("POST", `/business/sandbox/trips/${refs[1]}/assign_driver`, {
      key: b.api_key,
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.trip.status, "accepted");
    const stops = await held(t, b.id, refs);
    assert.deepEqual(stops.map((s) => s.status), ["accepted", "accepted", "accepted"]);
    assert.equal(new Set(stops.map((s) => s.driver)).size, 1, JSON.stringify(stops));
    // Another stop's assign_driver finds its driver there: answered as it is.
    const again = await t.call("POST", `/business/sandbox/trips/${refs[2]}/assign_driver`, {
      key: b.api_key,
    });
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.trip.status, "accepted");
  }, { name: "sandbox" }));

Deno.test("sandbox batch: the autopilot delivers every stop with the batch's one driver", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    await t.call("PUT", "/business/sandbox/autopilot", {
      key: b.api_key,
      body: { scenario: "delivered", step_seconds: 5 },
    });
    const refs = await stopsOf(t, b.api_key);
    await quiet(t);
    for (let i = 0; i < 10; i++) {
      await advance(t, 5);
      await t.env.runtime.outboxesIdle();
      await quiet(t);
    }
    const stops = await held(t, b.id, refs);
    assert.deepEqual(stops.map((s) => s.status), ["completed", "completed", "completed"]);
    assert.equal(new Set(stops.map((s) => s.driver)).size, 1, JSON.stringify(stops));
    const got = await t.call("GET", "/business/sandbox/autopilot", { key: b.api_key });
    assert.deepEqual([got.body.data.moving, got.body.data.gave_up], [[], []]);
  }, { name: "sandbox" }));

// spec: business 3.1: a trip never has two drivers: one a driver of the pool accepted is not
// taken by the simulated driver, batch or not.
Deno.test("sandbox batch: assign_driver on a trip another driver accepted is refused, the trip unchanged", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const reference = (await book(t, b.api_key, PARCEL)).body.data.reference as string;
    const driver = await createPoolDriver(t);
    const offer_id = newOfferId(b.id, reference);
    const now = t.clock.now();
    const offered = await t.env.runtime.ask(tripActor, b.id, reference, {
      kind: "offer",
      offer: { offer_id, driver_id: driver.id, expires_at: now + 30_000 },
      window_ends_at: now + 15 * 60_000,
    });
    assert.ok(offered.ok, JSON.stringify(offered));
    await acceptOffer(t.env, driver.id, offer_id, { idempotency_key: "k1" });
    const r = await t.call("POST", `/business/sandbox/trips/${reference}/assign_driver`, {
      key: b.api_key,
    });
    assert.equal(r.status, 409, JSON.stringify(r.body));
    // Refused as the offer to the simulated driver (the trip is no longer pending).
    assert.equal(r.body.code, "invalid_transition");
    assert.deepEqual(await held(t, b.id, [reference]), [{ status: "accepted", driver: driver.id }]);
  }, { name: "sandbox" }));
