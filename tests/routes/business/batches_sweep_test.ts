import assert from "node:assert/strict";
import { walletActor } from "../../../actors/platform/wallet.ts";
import { BATCH_BOOKING_STALL_MS } from "../../../src/business/rules/batch.ts";
import { failAsks, holdAsk } from "../../helpers/faults.ts";
import { until } from "../../helpers/receiver.ts";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { balanceOf, bwp, debitsOf, fundedBusiness } from "./trips_fixtures.ts";
import { LINE, postBatch, quiet, raiseGaboroneFares, stopClaim } from "./batch_fixtures.ts";

/** The wallet's holds now (none: an empty object). */
async function holdsOf(t: TestEnv, business: string) {
  const w = await t.env.runtime.read(walletActor, business, business, { kind: "get" });
  assert.ok(w.ok);
  return w.reply.state.holds ?? {};
}

/** Past the sweep's bound: the batch's timer fires and its sweep runs. */
async function pastTheBound(t: TestEnv) {
  t.clock.advanceBy(BATCH_BOOKING_STALL_MS + 1_000);
  await t.env.runtime.fireDueTimers();
  await t.env.runtime.outboxesIdle();
  await quiet(t);
}

async function onlyBatch(t: TestEnv, key: string) {
  const list = await t.call("GET", "/business/batches", { key });
  assert.equal(list.status, 200, JSON.stringify(list.body));
  assert.equal(list.body.data.length, 1, JSON.stringify(list.body));
  const one = await t.call("GET", `/business/batches/${list.body.data[0].id}`, { key });
  assert.equal(one.status, 200, JSON.stringify(one.body));
  return one.body.data;
}

Deno.test("batches sweep: a batch sent without a reference, cut between two stops, is completed by the sweep: each stop booked and charged once, its hold released", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    // The process dies before the second stop of the driving order is claimed; no retry can
    // reach the batch (no reference).
    const healed = failAsks(t.env.runtime, stopClaim(2));
    const cut = await postBatch(t, b.api_key, { segment: "parcel", stops: LINE });
    assert.equal(cut.status, 500, JSON.stringify(cut.body));
    healed();
    await until(t, async () => await debitsOf(t, b.id) === 2, "the other stops booked");
    await quiet(t);
    assert.equal(Object.keys(await holdsOf(t, b.id)).length, 1);
    await pastTheBound(t);
    const batch = await onlyBatch(t, b.api_key);
    assert.equal(batch.status, "booked");
    assert.deepEqual(batch.stops.map((s: { status: string }) => s.status), [
      "pending",
      "pending",
      "pending",
    ]);
    assert.equal(await debitsOf(t, b.id), LINE.length);
    assert.deepEqual(await holdsOf(t, b.id), {});
    assert.deepEqual(await balanceOf(t, b.api_key), bwp(1000 - batch.billing_amount));
    // Swept once: a later look changes nothing.
    await pastTheBound(t);
    assert.equal(await debitsOf(t, b.id), LINE.length);
  }));

Deno.test("batches sweep: the request woken after the sweep completed its batch acts on nothing, and its retry answers the completed batch", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const raw = { segment: "parcel", stops: LINE, external_reference: "EOD-SWEPT" };
    // The request stalls (a GC pause, a slow store) as it claims its second stop's trip.
    const held = holdAsk(t.env.runtime, stopClaim(2));
    const first = postBatch(t, b.api_key, raw);
    await held.reached;
    await until(t, async () => await debitsOf(t, b.id) === 2, "the other stops booked");
    await pastTheBound(t);
    const swept = await onlyBatch(t, b.api_key);
    assert.equal(swept.status, "booked");
    assert.equal(await debitsOf(t, b.id), LINE.length);
    assert.deepEqual(await holdsOf(t, b.id), {});
    const paid = bwp(1000 - swept.billing_amount);
    assert.deepEqual(await balanceOf(t, b.api_key), paid);
    // The request wakes: every step it takes was done by the sweep.
    held.open();
    const late = await first;
    assert.ok(late.status === 201 || late.status === 200, JSON.stringify(late.body));
    assert.equal(late.body.data.id, swept.id);
    await quiet(t);
    assert.equal(await debitsOf(t, b.id), LINE.length);
    assert.deepEqual(await holdsOf(t, b.id), {});
    assert.deepEqual(await balanceOf(t, b.api_key), paid);
    const retry = await postBatch(t, b.api_key, raw);
    assert.equal(retry.status, 200, JSON.stringify(retry.body));
    assert.equal(retry.body.data.replayed, true);
    assert.equal(retry.body.data.status, "booked");
    assert.deepEqual(
      retry.body.data.stops.map((s: { trip_id: number }) => s.trip_id),
      swept.stops.map((s: { trip_id: number }) => s.trip_id),
    );
    assert.equal(await debitsOf(t, b.id), LINE.length);
  }));

Deno.test("batches sweep: a batch cut before its hold, whose money is gone by the bound, is released as a refused batch is: nothing created, its reference free", () =>
  withTestEnv(async (t) => {
    const rich = await fundedBusiness(t);
    const priced = await postBatch(t, rich.api_key, { segment: "parcel", stops: LINE });
    assert.equal(priced.status, 201, JSON.stringify(priced.body));
    const total = priced.body.data.billing_amount as number;
    const b = await fundedBusiness(t, (total * 1.5).toFixed(2));
    const raw = { segment: "parcel", stops: LINE, external_reference: "EOD-GONE" };
    // The process dies after the claim, before the batch's money is held.
    const healed = failAsks(
      t.env.runtime,
      (type, c) => type === walletActor.type && (c as { kind?: string }).kind === "reserve",
    );
    const cut = await postBatch(t, b.api_key, raw);
    assert.equal(cut.status, 500, JSON.stringify(cut.body));
    healed();
    // Meanwhile another batch spends most of the money.
    const other = await postBatch(t, b.api_key, { ...raw, external_reference: "EOD-OTHER" });
    assert.equal(other.status, 201, JSON.stringify(other.body));
    await pastTheBound(t);
    assert.equal(await debitsOf(t, b.id), LINE.length);
    assert.deepEqual(await holdsOf(t, b.id), {});
    // spec: business 7, appendix 1: a refused batch leaves its reference free: other details
    // under it are judged afresh (here refused for the money), never a reference_conflict.
    const again = await postBatch(t, b.api_key, { ...raw, stops: LINE.slice(1) });
    assert.equal(again.status, 422, JSON.stringify(again.body));
    assert.equal(again.body.code, "insufficient_balance");
  }));

Deno.test("batches sweep: a batch cut between two stops and swept after the catalogue's fares rose bills every stop the price its batch answered", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    // The process dies before the second stop of the driving order is claimed.
    const healed = failAsks(t.env.runtime, stopClaim(2));
    const cut = await postBatch(t, b.api_key, { segment: "parcel", stops: LINE });
    assert.equal(cut.status, 500, JSON.stringify(cut.body));
    healed();
    await until(t, async () => await debitsOf(t, b.id) === 2, "the other stops booked");
    await quiet(t);
    // The operator raises the fares before the sweep books the stop left.
    await raiseGaboroneFares(t, 100);
    await pastTheBound(t);
    const batch = await onlyBatch(t, b.api_key);
    assert.equal(batch.status, "booked");
    for (const s of batch.stops) {
      const trip = await t.call("GET", `/business/trips/${s.trip_id}`, { key: b.api_key });
      assert.equal(trip.status, 200, JSON.stringify(trip.body));
      assert.equal(trip.body.data.billing_amount, s.billing_amount, `stop ${s.position}`);
    }
    assert.equal(await debitsOf(t, b.id), LINE.length);
    assert.deepEqual(await holdsOf(t, b.id), {});
    assert.deepEqual(await balanceOf(t, b.api_key), bwp(1000 - batch.billing_amount));
  }));
