import assert from "node:assert/strict";
import { poolDriverActor } from "../../../actors/business/pool_driver.ts";
import { tripActor } from "../../../actors/business/trip/mod.ts";
import { PLATFORM_TENANT } from "../../../actors/platform/platform_settings.ts";
import { deliverBy } from "./tracking_fixtures.ts";
import { onlineDriverAt } from "../../helpers/pool_drivers.ts";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { balanceOf, fundedBusiness } from "./trips_fixtures.ts";
import { until } from "../../helpers/receiver.ts";
import { LINE, postBatch, quiet, stop } from "./batch_fixtures.ts";
import { commandKind, flakyRuntime } from "../../helpers/faults.ts";
import { startWithLead } from "../../../src/business/flows/batch_dispatch.ts";

const minorOf = (amount: number) => Math.round(amount * 100);

/** The business's BWP balance, in minor units. */
async function walletMinor(t: TestEnv, key: string): Promise<number> {
  const w = await balanceOf(t, key) as { balances: { balance: number }[] };
  return minorOf(w.balances[0]!.balance);
}

async function offerFor(t: TestEnv, token: string) {
  const r = await t.call("GET", "/driver/offers", { bearer: token });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data.offer as { offer_id: string; reference: string } | null;
}

/** The driver's offer accepted (its reference checked first, when `expected` names one). */
async function acceptOffer(
  t: TestEnv,
  token: string,
  expected?: { reference: string; message: string },
): Promise<void> {
  const offer = await offerFor(t, token);
  if (expected) assert.equal(offer?.reference, expected.reference, expected.message);
  const accepted = await t.call("POST", `/driver/offers/${offer!.offer_id}/accept`, {
    bearer: token,
    body: { idempotency_key: "k1" },
  });
  assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
}

Deno.test("batches dispatch: only the first stop is offered; its driver is given every stop of the batch", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const near = await onlineDriverAt(t, -24.6540, 25.9086);
    const other = await onlineDriverAt(t, -24.6500, 25.9086);
    await quiet(t);
    const r = await postBatch(t, b.api_key, {
      segment: "parcel",
      stops: [stop("A", "s", 0, 3), stop("B", "m", 0, 1), stop("C", "s", 0, 2)],
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const refs = r.body.data.stops.map((s: { trip_reference: string }) => s.trip_reference);
    await quiet(t);
    const offer = await offerFor(t, near.token);
    assert.equal(offer?.reference, refs[0], "the first stop of the driving order is offered");
    assert.equal(await offerFor(t, other.token), null, "no other stop is offered to anyone");
    const accepted = await t.call("POST", `/driver/offers/${offer!.offer_id}/accept`, {
      bearer: near.token,
      body: { idempotency_key: "k1" },
    });
    assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
    await quiet(t);
    for (const ref of refs) {
      const trip = await t.env.runtime.read(tripActor, b.id, ref, { kind: "get" });
      assert.ok(trip.ok && trip.reply.phase === "booked");
      assert.equal(trip.reply.trip.driver?.id, near.id, `${ref} is the first stop's driver's`);
      assert.equal(trip.reply.trip.status, "accepted");
    }
    assert.equal(await offerFor(t, other.token), null);
    await t.settle();
    const list = await t.call("GET", "/business/batches", { key: b.api_key });
    assert.deepEqual(list.body.data[0].stops.map((s: { status: string }) => s.status), [
      "accepted",
      "accepted",
      "accepted",
    ]);
  }));

Deno.test("batches dispatch: a stop its driver gives back ends cancelled by the driver and refunded; the driver keeps the batch's other stops", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const near = await onlineDriverAt(t, -24.6540, 25.9086);
    const other = await onlineDriverAt(t, -24.6500, 25.9086);
    await quiet(t);
    const r = await postBatch(t, b.api_key, {
      segment: "parcel",
      stops: [stop("A", "s", 0, 1), stop("B", "s", 0, 2), stop("C", "s", 0, 3)],
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const refs = r.body.data.stops.map((s: { trip_reference: string }) => s.trip_reference);
    await quiet(t);
    await acceptOffer(t, near.token);
    await quiet(t);
    const paid = await walletMinor(t, b.api_key);
    const back = await t.call("POST", `/driver/trips/${refs[1]}/cancel_by_driver`, {
      bearer: near.token,
      body: { idempotency_key: "back-1", reason: "parcel not ready" },
    });
    assert.equal(back.status, 200, JSON.stringify(back.body));
    await quiet(t);
    // spec: business 3.2: one driver carries the batch; 3.1: the stop given back is cancelled.
    const read = await t.call("GET", `/business/trips/${refs[1]}`, { key: b.api_key });
    assert.equal(read.body.data.status, "cancelled", JSON.stringify(read.body));
    assert.equal(read.body.data.cancelled_by, "driver");
    for (const ref of [refs[0], refs[2]]) {
      const trip = await t.env.runtime.read(tripActor, b.id, ref, { kind: "get" });
      assert.ok(trip.ok && trip.reply.phase === "booked");
      assert.equal(trip.reply.trip.driver?.id, near.id, `${ref} stays with the batch's driver`);
    }
    assert.equal(await offerFor(t, other.token), null, "no stop goes to another driver");
    // Refunded once: the stop's charge is back, and a replay of the giving back changes nothing.
    const refunded = paid + minorOf(r.body.data.stops[1].billing_amount);
    await until(t, async () => await walletMinor(t, b.api_key) === refunded, "the refund");
    const again = await t.call("POST", `/driver/trips/${refs[1]}/cancel_by_driver`, {
      bearer: near.token,
      body: { idempotency_key: "back-1", reason: "parcel not ready" },
    });
    assert.equal(again.status, 200, JSON.stringify(again.body));
    await quiet(t);
    assert.equal(await walletMinor(t, b.api_key), refunded);
  }));

Deno.test("batches dispatch: the first stop cancelled before a driver took it, the next stop is offered and its driver is given the rest", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const near = await onlineDriverAt(t, -24.6540, 25.9086);
    await quiet(t);
    const r = await postBatch(t, b.api_key, {
      segment: "parcel",
      stops: [stop("A", "s", 0, 1), stop("B", "s", 0, 2), stop("C", "s", 0, 3)],
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const refs = r.body.data.stops.map((s: { trip_reference: string }) => s.trip_reference);
    await quiet(t);
    assert.equal((await offerFor(t, near.token))?.reference, refs[0]);
    const cancelled = await t.call("POST", `/business/trips/${refs[0]}/cancel`, {
      key: b.api_key,
      body: {},
    });
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    await quiet(t);
    // spec: business 4.2: the batch's other stops still need their one driver.
    await acceptOffer(t, near.token, {
      reference: refs[1],
      message: "the next stop of the driving order is offered",
    });
    await quiet(t);
    for (const ref of refs.slice(1)) {
      const trip = await t.env.runtime.read(tripActor, b.id, ref, { kind: "get" });
      assert.ok(trip.ok && trip.reply.phase === "booked");
      assert.equal(trip.reply.trip.driver?.id, near.id, `${ref} is the batch's driver's`);
      assert.equal(trip.reply.trip.status, "accepted");
    }
  }));

/** The trip references the pool driver holds: [current, queued]. */
async function holding(t: TestEnv, driverId: string): Promise<(string | null)[]> {
  const r = await t.env.runtime.read(poolDriverActor, PLATFORM_TENANT, driverId, { kind: "get" });
  assert.ok(r.ok);
  const ref = (k: string | null) => k === null ? null : k.slice(k.indexOf(":") + 1);
  return [ref(r.reply.current), ref(r.reply.queued)];
}

Deno.test("batches dispatch: the stop its driver holds delivered, the driver holds the next stop still carried, free only once the batch is done", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const near = await onlineDriverAt(t, -24.6540, 25.9086);
    await quiet(t);
    const r = await postBatch(t, b.api_key, {
      segment: "parcel",
      stops: [stop("A", "s", 0, 1), stop("B", "s", 0, 2)],
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const refs = r.body.data.stops.map((s: { trip_reference: string }) => s.trip_reference);
    await quiet(t);
    await acceptOffer(t, near.token);
    await quiet(t);
    assert.deepEqual(await holding(t, near.id), [refs[0], null]);
    await deliverBy(t, near, refs[0]);
    await quiet(t);
    // spec: business 3.2: one driver carries the batch: still under way with its second stop.
    assert.deepEqual(await holding(t, near.id), [refs[1], null]);
    await deliverBy(t, near, refs[1]);
    await quiet(t);
    assert.deepEqual(await holding(t, near.id), [null, null]);
  }));

Deno.test("batches dispatch: a batch's start or hold follow-up whose read of the batch or a stop meets a busy actor is thrown (the item stays), never taken as nothing to do", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const made = await postBatch(t, b.api_key, { segment: "parcel", stops: LINE });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const batch = made.body.data;
    const item = { business_id: b.id, batch_id: batch.id, driver_id: "pdr_1" };
    // spec: business 2.3, 3.1: a full mailbox is no answer that the batch or its stop is gone.
    for (const [type, at] of [["business_batch", {}], ["business_trip", { stop: "" }]] as const) {
      const busy = flakyRuntime(t.env.runtime, { fails: commandKind("get", type), refuse: true });
      const started = "stop" in at ? { ...item, stop: batch.stops[1].trip_reference } : item;
      await assert.rejects(startWithLead({ ...t.env, runtime: busy.runtime }, started), type);
      assert.equal(busy.failed(), 1, type);
    }
  }));
