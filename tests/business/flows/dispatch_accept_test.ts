/**
 * Offers and acceptances under concurrency (Business API 3.1: one offer at a time per driver; two
 * trips never hold one driver; a trip never has two drivers) and a crash between the two steps of an acceptance, settled by the
 * driver's hold timer.
 */
import assert from "node:assert/strict";
import { poolDriverActor } from "../../../actors/business/pool_driver.ts";
import { tripActor } from "../../../actors/business/trip/mod.ts";
import { acceptOffer, newOfferId, tripKeyOf } from "../../../src/business/flows/dispatch.ts";
import { Refused } from "../../../src/runtime/actor.ts";
import { busyAsks, commandKind, holdAsk } from "../../helpers/faults.ts";
import { advance, until } from "../../helpers/receiver.ts";
import { createPoolDriver } from "../../helpers/pool_drivers.ts";
import type { CreatedBusiness, TestEnv } from "../../helpers/test_env.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import { book, fundedBusiness, PARCEL } from "../../routes/business/trips_fixtures.ts";

/** A booked trip (no driver is online: the dispatcher offers nothing). */
async function booked(t: TestEnv, b: CreatedBusiness): Promise<string> {
  const r = await book(t, b.api_key, PARCEL);
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.data.reference as string;
}

/** Offers the trip to the driver by hand, as a dispatcher does; answers the offer's id too. */
async function offerTo(t: TestEnv, b: CreatedBusiness, reference: string, driverId: string) {
  const now = t.clock.now();
  const offerId = newOfferId(b.id, reference);
  const o = await t.env.runtime.ask(tripActor, b.id, reference, {
    kind: "offer",
    offer: { offer_id: offerId, driver_id: driverId, expires_at: now + 30_000 },
    window_ends_at: now + 15 * 60_000,
  });
  return { o, offerId };
}

/** A trip offered to the driver by hand. */
async function offered(t: TestEnv, b: CreatedBusiness, driverId: string) {
  const reference = await booked(t, b);
  const { o, offerId } = await offerTo(t, b, reference, driverId);
  assert.ok(o.ok, JSON.stringify(o));
  return { reference, offerId };
}

const driverState = async (t: TestEnv, id: string) => {
  const r = await t.env.runtime.read(poolDriverActor, "platform", id, { kind: "get" });
  assert.ok(r.ok);
  return r.reply;
};

const outcome = (p: Promise<unknown>) =>
  p.then(() => "ok", (e) => e instanceof Refused ? e.rejection.code : Promise.reject(e));

Deno.test("dispatch accept: 10 trips offered one driver at once (as by dispatchers of several instances): one offer, one trip held", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const d = await createPoolDriver(t);
    const trips: string[] = [];
    for (let i = 0; i < 10; i++) trips.push(await booked(t, b));
    // spec: business 3.1: one offer at a time per driver, kept by the store, not by one memory.
    const made = await Promise.all(trips.map((r) => offerTo(t, b, r, d.id)));
    const answers = made.map(({ o }) => o.ok || o.code);
    assert.equal(answers.filter((a) => a === true).length, 1, answers.join());
    assert.equal(answers.filter((a) => a === "index_taken").length, 9, answers.join());
    const results = await Promise.all(
      made.map(({ offerId }) =>
        outcome(acceptOffer(t.env, d.id, offerId, { idempotency_key: "k1" }))
      ),
    );
    assert.equal(results.filter((r) => r === "ok").length, 1, results.join());
    // The offers the store refused were never made: to the driver they do not exist.
    assert.equal(results.filter((r) => r === "not_found").length, 9, results.join());
    const held = await driverState(t, d.id);
    const statuses = [];
    for (const r of trips) {
      const got = await t.env.runtime.read(tripActor, b.id, r, { kind: "get" });
      assert.ok(got.ok && got.reply.phase === "booked");
      if (got.reply.trip.driver !== null) statuses.push(got.reply.trip.status);
    }
    assert.deepEqual(statuses, ["accepted"]);
    assert.ok(held.current !== null && held.queued === null);
    assert.deepEqual(held.unconfirmed, []);
  }));

Deno.test("dispatch accept: one offer accepted twice at once (retries): one driver, both answers the same", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const d = await createPoolDriver(t);
    const o = await offered(t, b, d.id);
    const [a1, a2] = await Promise.all([
      acceptOffer(t.env, d.id, o.offerId, { idempotency_key: "k1" }),
      acceptOffer(t.env, d.id, o.offerId, { idempotency_key: "k1" }),
    ]);
    assert.equal(a1.trip.driver?.id, d.id);
    assert.equal(a2.trip.driver?.id, d.id);
    assert.equal(a1.trip.status, "accepted");
    const held = await driverState(t, d.id);
    assert.equal(held.current, tripKeyOf(b.id, o.reference));
    assert.equal(held.queued, null, "the same trip is not held twice");
  }));

Deno.test("dispatch accept: a crash between the driver's take and the trip's acceptance is undone, or completed, by the hold timer", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const cut = await createPoolDriver(t);
    const done = await createPoolDriver(t);
    const first = await offered(t, b, cut.id);
    const second = await offered(t, b, done.id);
    // Cut after the take: the trip never accepted this driver.
    const trip1 = tripKeyOf(b.id, first.reference);
    assert.ok(
      (await t.env.runtime.ask(poolDriverActor, "platform", cut.id, {
        kind: "take",
        trip: trip1,
      })).ok,
    );
    // Cut after the trip's acceptance, before the confirmation.
    const trip2 = tripKeyOf(b.id, second.reference);
    assert.ok(
      (await t.env.runtime.ask(poolDriverActor, "platform", done.id, {
        kind: "take",
        trip: trip2,
      })).ok,
    );
    const held = await driverState(t, done.id);
    assert.ok(
      (await t.env.runtime.ask(tripActor, b.id, second.reference, {
        kind: "accept",
        driver: { ...held, phone: held.phone },
        offer_id: second.offerId,
      })).ok,
    );

    await advance(t, 61);
    await until(t, async () => (await driverState(t, cut.id)).current === null, "the undone take");
    await until(
      t,
      async () => (await driverState(t, done.id)).unconfirmed.length === 0,
      "the completed take",
    );
    assert.equal((await driverState(t, done.id)).current, trip2);
  }));

Deno.test("dispatch accept: an acceptance refused for now and retried holds the driver (the first take was undone)", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const d = await createPoolDriver(t);
    const o = await offered(t, b, d.id);
    // The trip's mailbox is full at the acceptance: the take is undone, the driver told "not now".
    const refused = busyAsks(t.env.runtime, commandKind("accept", tripActor.type), 1);
    const first = await outcome(acceptOffer(t.env, d.id, o.offerId, { idempotency_key: "k1" }));
    assert.equal(refused(), 1);
    assert.equal(first, "actor_busy");
    assert.equal((await driverState(t, d.id)).current, null, "the take was undone");
    // The driver's app retries: the trip accepts the driver, who holds it (spec: business 3.1:
    // two trips never hold one driver, which only the driver's hold keeps).
    const again = await acceptOffer(t.env, d.id, o.offerId, { idempotency_key: "k1" });
    assert.equal(again.trip.driver?.id, d.id);
    const held = await driverState(t, d.id);
    assert.equal(held.current, tripKeyOf(b.id, o.reference));
    assert.deepEqual(held.unconfirmed, []);
  }));

Deno.test("dispatch accept: a trip taken queued whose driver's trip under way ends before the trip accepts starts at once", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const d = await createPoolDriver(t);
    const under = await offered(t, b, d.id);
    await acceptOffer(t.env, d.id, under.offerId, { idempotency_key: "k1" });
    const next = await offered(t, b, d.id);
    // The driver takes the next trip queued behind the one under way; the trip's acceptance is
    // held back meanwhile, while the business cancels the trip under way.
    const held = holdAsk(t.env.runtime, commandKind("accept", tripActor.type));
    const accepting = acceptOffer(t.env, d.id, next.offerId, { idempotency_key: "k2" });
    await held.reached;
    const c = await t.call("POST", `/business/trips/${under.reference}/cancel`, {
      key: b.api_key,
      body: { reason: "changed plans" },
    });
    assert.equal(c.status, 200, JSON.stringify(c.body));
    const key = tripKeyOf(b.id, next.reference);
    await until(t, async () => (await driverState(t, d.id)).current === key, "moved up");
    held.open();
    const answer = await accepting;
    assert.equal(answer.trip.driver?.id, d.id);
    // spec: business 3.1 queued: the driver's current trip is under way, never left queued.
    await until(t, async () => {
      const r = await t.env.runtime.read(tripActor, b.id, next.reference, { kind: "get" });
      return r.ok && r.reply.phase === "booked" && r.reply.trip.status === "accepted";
    }, "the trip started");
  }));

Deno.test("dispatch accept: an offer whose trip the business cancelled answers offer_expired, not not_found, and takes nothing", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const d = await createPoolDriver(t);
    const o = await offered(t, b, d.id);
    const c = await t.call("POST", `/business/trips/${o.reference}/cancel`, { key: b.api_key });
    assert.equal(c.status, 200, JSON.stringify(c.body));
    // CONTRACT "Driver app": an offer no longer open is offer_expired, whatever ended it.
    const late = acceptOffer(t.env, d.id, o.offerId, { idempotency_key: "k1" });
    assert.equal(await outcome(late), "offer_expired");
    assert.equal((await driverState(t, d.id)).current, null, "the driver holds nothing");
  }));
