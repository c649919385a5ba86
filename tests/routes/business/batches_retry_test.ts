import assert from "node:assert/strict";
import { commandKind, failAsks, flakyRuntime } from "../../helpers/faults.ts";
import { until } from "../../helpers/receiver.ts";
import { tripActor } from "../../../actors/business/trip/mod.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import { Refused } from "../../../src/runtime/actor.ts";
import { batchActor } from "../../../actors/business/batch.ts";
import { unbookedMinor } from "../../../src/business/flows/batches.ts";
import { tripNumbersOf } from "../../../src/business/flows/trip_numbers.ts";
import { balanceOf, bwp, debitsOf, fundedBusiness } from "./trips_fixtures.ts";
import {
  bookBatchThrough,
  LINE,
  postBatch,
  raiseGaboroneFares,
  stopClaim,
} from "./batch_fixtures.ts";

Deno.test("batches retry: a crash between two stops' trips leaves a claim the retry completes, each stop booked and charged once", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const raw = { segment: "parcel", stops: LINE, external_reference: "EOD-CRASH" };
    // The process fails creating one stop's trip (after its number and charge).
    const flaky = flakyRuntime(t.env.runtime, {
      fails: commandKind("create", "business_trip"),
    });
    await assert.rejects(bookBatchThrough(t, flaky.runtime, b.id, raw), /injected failure/);
    assert.equal(flaky.failed(), 1);
    await t.env.runtime.outboxesIdle();
    // While the cut stop's claim is fresh, a retry is told to wait.
    const early = await postBatch(t, b.api_key, raw);
    assert.equal(early.status, 409, JSON.stringify(early.body));
    assert.equal(early.body.code, "request_in_progress");
    // spec: business 7: an answer in progress says when to ask again.
    assert.equal(early.headers.get("Retry-After"), "5");
    // The claim's timer completes the cut stop; the retry then answers the whole batch.
    t.clock.advanceBy(31_000);
    await t.env.runtime.fireDueTimers();
    await t.env.runtime.outboxesIdle();
    const retry = await postBatch(t, b.api_key, raw);
    assert.equal(retry.status, 200, JSON.stringify(retry.body));
    assert.equal(retry.body.data.status, "booked");
    assert.deepEqual(retry.body.data.stops.map((s: { status: string }) => s.status), [
      "pending",
      "pending",
      "pending",
    ]);
    const ids = retry.body.data.stops.map((s: { trip_id: number }) => s.trip_id)
      .sort((a: number, b: number) => a - b);
    // The cut stop's number (1) was taken before its trip's commit failed: a gap; its completion
    // numbered it anew (trip ids are unique, gaps allowed: Business API 2.2 `id`). Which number:
    // the timer's completion and the retry's may both take one, and the first to commit wins.
    assert.deepEqual(ids.slice(0, 2), [2, 3]);
    assert.ok(ids[2] > 3, `the cut stop numbered anew: ${ids}`);
    assert.equal((await t.call("GET", "/business/trips/1", { key: b.api_key })).status, 404);
    assert.equal(await debitsOf(t, b.id), 3);
    assert.deepEqual(await balanceOf(t, b.api_key), bwp(1000 - retry.body.data.billing_amount));
  }));

Deno.test("batches retry: the same Idempotency-Key and body replays the first batch, charged once", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const body = { segment: "parcel", stops: LINE };
    const h = { "Idempotency-Key": "batch-attempt-1" };
    const first = await postBatch(t, b.api_key, body, h);
    assert.equal(first.status, 201, JSON.stringify(first.body));
    const retry = await postBatch(t, b.api_key, body, h);
    assert.equal(retry.status, 200, JSON.stringify(retry.body));
    assert.equal(retry.body.data.replayed, true);
    assert.equal(retry.body.data.id, first.body.data.id);
    assert.deepEqual(
      retry.body.data.stops.map((s: { trip_id: number }) => s.trip_id),
      first.body.data.stops.map((s: { trip_id: number }) => s.trip_id),
    );
    assert.equal(await debitsOf(t, b.id), LINE.length);
    // spec: business 7: the key with another body is a reference_conflict; nothing charged.
    const other = await postBatch(t, b.api_key, { ...body, stops: LINE.slice(1) }, h);
    assert.equal(other.status, 409, JSON.stringify(other.body));
    assert.equal(other.body.code, "reference_conflict");
    assert.ok(other.body.message.includes(first.body.data.id));
    // spec: business 8: the key is up to 64 characters, as on POST /business/book.
    const long = await postBatch(t, b.api_key, body, { "Idempotency-Key": "k".repeat(65) });
    assert.equal(long.status, 422);
    assert.equal(long.body.code, "validation_failed");
    assert.equal(await debitsOf(t, b.id), LINE.length);
  }));

Deno.test("batches retry: a body reference wins over the Idempotency-Key, and never shares its batch", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const body = { segment: "parcel", stops: LINE };
    const h = { "Idempotency-Key": "EOD-7" };
    const byKey = await postBatch(t, b.api_key, body, h);
    assert.equal(byKey.status, 201, JSON.stringify(byKey.body));
    // The same key with a body reference is another batch (appendix 2: the body wins).
    const byRef = await postBatch(t, b.api_key, { ...body, batch_reference: "EOD-7" }, h);
    assert.equal(byRef.status, 201, JSON.stringify(byRef.body));
    assert.notEqual(byRef.body.data.id, byKey.body.data.id);
    // The body reference's batch is its own, whatever header its retry carries.
    const again = await postBatch(t, b.api_key, { ...body, batch_reference: "EOD-7" });
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.data.id, byRef.body.data.id);
    assert.equal(await debitsOf(t, b.id), 2 * LINE.length);
  }));

Deno.test("batches retry: a stop booked after the catalogue's fares rose is billed the price its batch answered, so the batch is charged its listed total", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const raw = { segment: "parcel", stops: LINE, external_reference: "EOD-PRICED" };
    // The process dies before the second stop of the driving order is claimed.
    const healed = failAsks(t.env.runtime, stopClaim(2));
    const cut = await postBatch(t, b.api_key, raw);
    assert.equal(cut.status, 500, JSON.stringify(cut.body));
    healed();
    // The other stops' trips made, not only charged: a stop charged and not yet made answers the
    // retry in progress (409), as it should, and a loaded machine widened that window.
    const made = async () => {
      await t.settle();
      const r = await t.call("GET", "/business/trips", { key: b.api_key });
      return r.status === 200 && r.body.data.length === 2;
    };
    await until(
      t,
      async () => await debitsOf(t, b.id) === 2 && await made(),
      "the other stops booked",
    );
    // The operator raises the fares before the retry books the stop left.
    await raiseGaboroneFares(t, 100);
    const retry = await postBatch(t, b.api_key, raw);
    assert.equal(retry.status, 200, JSON.stringify(retry.body));
    assert.equal(retry.body.data.status, "booked");
    for (const s of retry.body.data.stops) {
      const trip = await t.call("GET", `/business/trips/${s.trip_id}`, { key: b.api_key });
      assert.equal(trip.status, 200, JSON.stringify(trip.body));
      assert.equal(trip.body.data.billing_amount, s.billing_amount, `stop ${s.position}`);
      // Its receipt's fare lines are the batch's, adding up to what it was billed.
      const kept = await t.env.runtime.read(tripActor, b.id, s.trip_reference, { kind: "get" });
      assert.ok(kept.ok && kept.reply.phase === "booked");
      const lines = kept.reply.trip.fare_lines.map((l) => l.amount_minor);
      assert.equal(lines.reduce((a, x) => a + x, 0), kept.reply.trip.billing_amount_minor);
      assert.equal(kept.reply.trip.billing_amount_minor, Math.round(s.billing_amount * 100));
    }
    assert.equal(await debitsOf(t, b.id), LINE.length);
    assert.deepEqual(await balanceOf(t, b.api_key), bwp(1000 - retry.body.data.billing_amount));
    // A batch booked now is priced on the new fares (the old price was its batch's alone).
    const later = await postBatch(t, b.api_key, { ...raw, external_reference: "EOD-LATER" });
    assert.equal(later.status, 201, JSON.stringify(later.body));
    assert.ok(later.body.data.billing_amount > retry.body.data.billing_amount);
  }));

Deno.test("batches retry: a retry whose read of its batch meets a busy actor answers 503, not a refusal of the new draft (funds since spent); then it replays", () =>
  withTestEnv(async (t) => {
    // Funds for one batch of LINE (190.74), not two.
    const b = await fundedBusiness(t, "300.00");
    const body = { segment: "parcel", stops: LINE, external_reference: "EOD-BUSY" };
    const first = await postBatch(t, b.api_key, body);
    assert.equal(first.status, 201, JSON.stringify(first.body));
    // spec: business appendix 2: a claimed reference is the claim's to answer; a full mailbox is
    // no answer that it is free, and the batch is never planned and funded again.
    const flaky = flakyRuntime(t.env.runtime, {
      fails: commandKind("get", "business_batch"),
      refuse: true,
    });
    await assert.rejects(
      bookBatchThrough(t, flaky.runtime, b.id, body),
      (e) => e instanceof Refused && e.rejection.code === "actor_busy",
    );
    assert.equal(flaky.failed(), 1);
    const retry = await postBatch(t, b.api_key, body);
    assert.equal(retry.status, 200, JSON.stringify(retry.body));
    assert.equal(retry.body.data.id, first.body.data.id);
    assert.equal(await debitsOf(t, b.id), LINE.length);
  }));

Deno.test("batches retry: what a batch's stops still owe is never counted from a busy read of their trips (a booked stop owes nothing): thrown", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const body = { segment: "parcel", stops: LINE, external_reference: "EOD-OWED" };
    const first = await postBatch(t, b.api_key, body);
    assert.equal(first.status, 201, JSON.stringify(first.body));
    const id = first.body.data.id;
    const batch = await t.env.runtime.read(batchActor, b.id, id, { kind: "get" });
    assert.ok(batch.ok);
    const deps = { ...t.env, numbers: tripNumbersOf(t.env) };
    assert.equal(await unbookedMinor(deps, b.id, batch.reply.batch), 0);
    // spec: business 4.2: counted owed, a booked stop would be held for (and refused) again.
    const flaky = flakyRuntime(t.env.runtime, {
      fails: commandKind("get", "business_trip"),
      refuse: true,
    });
    await assert.rejects(
      unbookedMinor({ ...deps, runtime: flaky.runtime }, b.id, batch.reply.batch),
      (e) => e instanceof Refused && e.rejection.code === "actor_busy",
    );
  }));
