/**
 * A queued trip starts when its driver's trip under way ends (Business API 3.1 queued): through
 * the environment's outboxes, and after a crash between the steps (a handler that failed) by the
 * outbox's sweep.
 */
import assert from "node:assert/strict";
import { poolDriverActor } from "../../../actors/business/pool_driver.ts";
import { tripActor } from "../../../actors/business/trip/mod.ts";
import { acceptOffer, newOfferId, tripKeyOf } from "../../../src/business/flows/dispatch.ts";
import { QUEUED_START_OUTBOX } from "../../../src/business/rules/driver_holding.ts";
import { until } from "../../helpers/receiver.ts";
import { createPoolDriver } from "../../helpers/pool_drivers.ts";
import type { CreatedBusiness, TestEnv } from "../../helpers/test_env.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import { book, fundedBusiness, PARCEL } from "../../routes/business/trips_fixtures.ts";
import { outboxRetryDue } from "../../helpers/outbox_retry.ts";

/** A trip offered to the driver by hand and accepted by them. */
async function accepted(t: TestEnv, b: CreatedBusiness, driverId: string) {
  const r = await book(t, b.api_key, PARCEL);
  assert.equal(r.status, 201, JSON.stringify(r.body));
  const reference = r.body.data.reference as string;
  const offerId = newOfferId(b.id, reference);
  const now = t.clock.now();
  const o = await t.env.runtime.ask(tripActor, b.id, reference, {
    kind: "offer",
    offer: { offer_id: offerId, driver_id: driverId, expires_at: now + 30_000 },
    window_ends_at: now + 15 * 60_000,
  });
  assert.ok(o.ok, JSON.stringify(o));
  await acceptOffer(t.env, driverId, offerId, { idempotency_key: "k1" });
  return reference;
}

async function tripOf(t: TestEnv, b: CreatedBusiness, reference: string) {
  const r = await t.env.runtime.read(tripActor, b.id, reference, { kind: "get" });
  assert.ok(r.ok && r.reply.phase === "booked");
  return r.reply.trip;
}

async function holding(t: TestEnv, id: string) {
  const r = await t.env.runtime.read(poolDriverActor, "platform", id, { kind: "get" });
  assert.ok(r.ok);
  return r.reply;
}

async function twoTrips(t: TestEnv) {
  const b = await fundedBusiness(t);
  const d = await createPoolDriver(t);
  const first = await accepted(t, b, d.id);
  const second = await accepted(t, b, d.id);
  assert.equal((await tripOf(t, b, second)).status, "queued");
  return { b, d, first, second };
}

Deno.test("driver holding: the trip under way cancelled, the queued trip becomes the driver's current one, accepted", () =>
  withTestEnv(async (t) => {
    const { b, d, first, second } = await twoTrips(t);
    const r = await t.call("POST", `/business/trips/${first}/cancel`, { key: b.api_key, body: {} });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    await until(t, async () => (await tripOf(t, b, second)).status === "accepted", "the start");
    const held = await holding(t, d.id);
    assert.equal(held.current, tripKeyOf(b.id, second));
    assert.equal(held.queued, null);
    // The driver works it now.
    const read = await t.call("GET", `/driver/trips/${second}`, { bearer: d.token });
    assert.equal(read.status, 200, JSON.stringify(read.body));
    assert.equal(read.body.data.status, "accepted");
  }));

Deno.test("driver holding: a crash between the driver's move up and the trip's start is completed by the sweep", () =>
  withTestEnv(async (t) => {
    const { b, d, first, second } = await twoTrips(t);
    // The start's handler fails, as a process dying after the driver's commit would leave it.
    let failing = true;
    const down = t.env.runtime.handleOutbox(QUEUED_START_OUTBOX, () => {
      return failing ? Promise.reject(new Error("crash")) : Promise.resolve();
    });
    const r = await t.call("POST", `/business/trips/${first}/cancel`, { key: b.api_key, body: {} });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    await until(t, async () =>
      (await holding(t, d.id)).current !== null &&
      (await holding(t, d.id)).current === tripKeyOf(b.id, second), "the move up");
    await t.env.runtime.outboxesIdle();
    assert.equal((await tripOf(t, b, second)).status, "queued", "cut before the start");
    failing = false;
    down();
    outboxRetryDue(t.clock);
    await t.env.runtime.sweepOutboxes();
    await t.env.runtime.outboxesIdle();
    assert.equal((await tripOf(t, b, second)).status, "accepted");
  }));
