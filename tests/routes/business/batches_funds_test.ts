import assert from "node:assert/strict";
import { walletActor, type WalletEvent } from "../../../actors/platform/wallet.ts";
import { BATCH_HOLD_MS } from "../../../src/business/rules/batch.ts";
import type { ActorRuntime } from "../../../src/runtime/runtime.ts";
import { commandKind, failAsks, flakyRuntime, holdAsk } from "../../helpers/faults.ts";
import { until } from "../../helpers/receiver.ts";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { balanceOf, book, bwp, debitsOf, fundedBusiness, PARCEL } from "./trips_fixtures.ts";
import { bookBatchThrough, postBatch, stop } from "./batch_fixtures.ts";

const STOPS = [stop("A", "s", 0, 1), stop("B", "s", 0, 2), stop("C", "s", 0, 3)];

/** The batch's total, as a business with money enough is billed for it. */
async function totalOf(t: TestEnv): Promise<number> {
  const rich = await fundedBusiness(t, "1000.00");
  const priced = await postBatch(t, rich.api_key, { segment: "parcel", stops: STOPS });
  assert.equal(priced.status, 201, JSON.stringify(priced.body));
  return priced.body.data.billing_amount;
}

/** The wallet's holds now (none: an empty object). */
async function holdsOf(t: TestEnv, business: string) {
  const w = await t.env.runtime.read(walletActor, business, business, { kind: "get" });
  assert.ok(w.ok);
  return w.reply.state.holds ?? {};
}

/** How many debits were paid from a hold. */
async function drawsOf(t: TestEnv, business: string): Promise<number> {
  let n = 0;
  for await (const e of t.env.runtime.events(walletActor, business)) {
    const event = e.event as WalletEvent;
    if (event.kind === "wallet_transaction" && event.drawn) n++;
  }
  return n;
}

/** Resolves once `n` asks that `picks` chooses have been answered. */
function answered(
  runtime: ActorRuntime,
  picks: (type: string, command: unknown) => boolean,
  n: number,
): Promise<void> {
  let seen = 0, done!: () => void;
  const all = new Promise<void>((r) => (done = r));
  const ask = runtime.ask.bind(runtime);
  runtime.ask = (async (...args: Parameters<typeof ask>) => {
    const answer = await ask(...args);
    if (picks(args[0].type, args[3]) && ++seen === n) done();
    return answer;
  }) as typeof runtime.ask;
  return all;
}

/** A stop's claim, by its place in the driving order. */
function stopClaim(position: number) {
  return (type: string, c: unknown) =>
    commandKind("claim", "business_trip")(type, c) &&
    (c as { claim: { draft: { batch?: { position: number } } } }).claim.draft.batch?.position ===
      position;
}

const cents = (n: number) => Math.round(n * 100) / 100;

Deno.test("batches funds: a batch refused 422 insufficient_balance creates and charges nothing, even when another booking took the money meanwhile", () =>
  withTestEnv(async (t) => {
    const total = await totalOf(t);
    const b = await fundedBusiness(t, total.toFixed(2));
    const held = holdAsk(t.env.runtime, commandKind("claim", "business_batch"));
    const batch = postBatch(t, b.api_key, {
      segment: "parcel",
      stops: STOPS,
      external_reference: "BATCH-RACE",
    });
    await held.reached;
    const single = await book(t, b.api_key, PARCEL);
    assert.equal(single.status, 201, JSON.stringify(single.body));
    const fare: number = single.body.data.billing_amount;
    held.open();
    const answered = await batch;
    await t.settle();
    assert.equal(answered.status, 422, JSON.stringify(answered.body));
    assert.equal(answered.body.code, "insufficient_balance");
    assert.deepEqual(
      await balanceOf(t, b.api_key),
      bwp(Math.round((total - fare) * 100) / 100),
      "only the single booking was charged",
    );
    const stopTrip = await t.call("GET", "/business/trips/2", { key: b.api_key });
    assert.equal(
      stopTrip.status,
      404,
      `a stop of the refused batch exists: ${JSON.stringify(stopTrip.body.data)}`,
    );
    assert.deepEqual(await holdsOf(t, b.id), {}, "nothing left held");
    // spec: business 7: the reference stays free: funded, the same body books it as new.
    const topUp = await t.call("POST", `/operator/businesses/${b.id}/wallet`, {
      operator: true,
      body: { amount: fare, currency: "BWP", reference: "top-up" },
    });
    assert.equal(topUp.status, 201, JSON.stringify(topUp.body));
    const retry = await postBatch(t, b.api_key, {
      segment: "parcel",
      stops: STOPS,
      external_reference: "BATCH-RACE",
    });
    assert.equal(retry.status, 201, JSON.stringify(retry.body));
    assert.deepEqual(await balanceOf(t, b.api_key), bwp(0));
    assert.equal(await debitsOf(t, b.id), 1 + STOPS.length);
    assert.deepEqual(await holdsOf(t, b.id), {});
  }));

Deno.test("batches funds: a booking made while the batch's stops are booked cannot spend the money held for them", () =>
  withTestEnv(async (t) => {
    const total = await totalOf(t);
    const b = await fundedBusiness(t, total.toFixed(2));
    const held = holdAsk(t.env.runtime, commandKind("claim", "business_trip"));
    const batch = postBatch(t, b.api_key, { segment: "parcel", stops: STOPS });
    await held.reached;
    const single = await book(t, b.api_key, PARCEL);
    assert.equal(single.status, 422, JSON.stringify(single.body));
    assert.equal(single.body.code, "insufficient_balance");
    assert.match(single.body.message, /held for bookings in progress/);
    held.open();
    const booked = await batch;
    assert.equal(booked.status, 201, JSON.stringify(booked.body));
    assert.deepEqual(await balanceOf(t, b.api_key), bwp(0));
    assert.equal(await debitsOf(t, b.id), STOPS.length);
    assert.equal(await drawsOf(t, b.id), STOPS.length, "each stop paid from the hold");
    assert.deepEqual(await holdsOf(t, b.id), {});
  }));

Deno.test("batches funds: a crash between the hold and the stops keeps the money held; the retry books each stop once and frees the hold", () =>
  withTestEnv(async (t) => {
    const total = await totalOf(t);
    const b = await fundedBusiness(t, total.toFixed(2));
    const raw = { segment: "parcel", stops: STOPS, external_reference: "EOD-HOLD" };
    // The process dies after the hold, before any stop's trip is claimed.
    const flaky = flakyRuntime(t.env.runtime, {
      fails: commandKind("claim", "business_trip"),
      times: STOPS.length,
    });
    await assert.rejects(bookBatchThrough(t, flaky.runtime, b.id, raw), /injected failure/);
    // The first stop's failure answers the request; the others' claims fail as they come.
    await until(t, () => flaky.failed() === STOPS.length, "every stop's claim to fail");
    const holds = Object.values(await holdsOf(t, b.id));
    assert.deepEqual(holds.map((h) => [h.currency, h.amount_minor]), [["BWP", total * 100]]);
    assert.deepEqual(await balanceOf(t, b.api_key), bwp(total), "nothing charged yet");
    // The held money is the batch's: another booking cannot take it meanwhile.
    const single = await book(t, b.api_key, PARCEL);
    assert.equal(single.status, 422, JSON.stringify(single.body));
    const retry = await postBatch(t, b.api_key, raw);
    assert.equal(retry.status, 200, JSON.stringify(retry.body));
    assert.equal(retry.body.data.status, "booked");
    assert.equal(retry.body.data.stops.length, STOPS.length);
    assert.equal(await debitsOf(t, b.id), STOPS.length);
    assert.equal(await drawsOf(t, b.id), STOPS.length);
    assert.deepEqual(await balanceOf(t, b.api_key), bwp(0));
    assert.deepEqual(await holdsOf(t, b.id), {}, "no money left held");
  }));

Deno.test("batches funds: a hold expires when its batch stalls; a retry holds what is still owed and books the rest once", () =>
  withTestEnv(async (t) => {
    // The stops booked have no driver: a dispatch window longer than the hold keeps them pending
    // (spec: business 3.1 "no driver answers" would otherwise cancel and refund them).
    const w = await t.call("PUT", "/operator/settings", {
      operator: true,
      body: { dispatch_window_minutes: 60 },
    });
    assert.equal(w.status, 200, JSON.stringify(w.body));
    const b = await fundedBusiness(t, "1000.00");
    const raw = { segment: "parcel", stops: STOPS, external_reference: "EOD-STALL" };
    const twoPaid = answered(t.env.runtime, commandKind("create", "business_trip"), 2);
    // The first request stalls at its last stop's claim, as a paused process would.
    const held = holdAsk(t.env.runtime, stopClaim(3));
    const first = postBatch(t, b.api_key, raw);
    await held.reached;
    await twoPaid;
    const left = Object.values(await holdsOf(t, b.id));
    assert.equal(left.length, 1);
    const owed = left[0]!.amount_minor;
    assert.ok(owed > 0, "the stalled stop's price is still held");
    // The hold's timer frees what is left, so a batch nothing finishes locks nothing for good:
    // the batch's sweep is kept from it meanwhile (its every hold fails, as a store failing).
    const healed = failAsks(t.env.runtime, commandKind("reserve"));
    t.clock.advanceBy(BATCH_HOLD_MS);
    await t.env.runtime.fireDueTimers();
    await t.env.runtime.outboxesIdle();
    healed();
    assert.deepEqual(await holdsOf(t, b.id), {});
    assert.equal(await debitsOf(t, b.id), 2);
    // A retry holds the unbooked stop's price again and books it.
    const retry = await postBatch(t, b.api_key, raw);
    assert.equal(retry.status, 200, JSON.stringify(retry.body));
    assert.equal(retry.body.data.status, "booked");
    held.open();
    const late = await first;
    assert.ok([200, 201].includes(late.status), JSON.stringify(late.body));
    const total: number = retry.body.data.billing_amount;
    const last = retry.body.data.stops.find((s: { position: number }) => s.position === 3);
    assert.equal(Math.round(last.billing_amount * 100), owed, "the retry held the stop's price");
    assert.equal(await debitsOf(t, b.id), STOPS.length);
    assert.equal(await drawsOf(t, b.id), STOPS.length, "each stop paid from a hold");
    assert.deepEqual(await balanceOf(t, b.api_key), bwp(cents(1000 - total)));
    assert.deepEqual(await holdsOf(t, b.id), {});
  }));

Deno.test("batches funds: a stop's charge paid from the hold that takes the balance below the threshold sends wallet.low_balance, once", () =>
  withTestEnv(async (t) => {
    const total = await totalOf(t);
    const b = await fundedBusiness(t, total.toFixed(2));
    const threshold = cents(total / 2);
    const p = await t.call("PATCH", "/business/profile", {
      key: b.api_key,
      body: { low_balance_threshold: threshold },
    });
    assert.equal(p.status, 200, JSON.stringify(p.body));
    const booked = await postBatch(t, b.api_key, { segment: "parcel", stops: STOPS });
    assert.equal(booked.status, 201, JSON.stringify(booked.body));
    assert.equal(await drawsOf(t, b.id), STOPS.length, "each stop paid from the hold");
    // spec: business 6: the posted balance fell below the threshold, whatever paid the debit.
    const reached = [];
    for await (const e of t.env.runtime.events(walletActor, b.id)) {
      const event = e.event as WalletEvent;
      if (event.kind === "low_balance_reached") reached.push(event);
    }
    assert.equal(reached.length, 1, JSON.stringify(reached));
    assert.equal(reached[0]!.watch.business_id, b.id);
    assert.equal(reached[0]!.threshold_minor, Math.round(threshold * 100));
    assert.ok(reached[0]!.balance_minor < reached[0]!.threshold_minor);
  }));

Deno.test("batches funds: the same batch sent twice at once, the second holding after the first freed its hold, replays the batch, never 422", () =>
  withTestEnv(async (t) => {
    const total = await totalOf(t);
    const b = await fundedBusiness(t, total.toFixed(2));
    const raw = { segment: "parcel", stops: STOPS, external_reference: "EOD-TWICE" };
    // The first request holds the money and waits before its first stop's trip.
    const first = holdAsk(t.env.runtime, commandKind("claim", "business_trip"));
    const one = postBatch(t, b.api_key, raw);
    await first.reached;
    // The second finds the claim, counts what is owed, and waits before it holds that.
    const second = holdAsk(t.env.runtime, commandKind("reserve", "wallet"));
    const two = postBatch(t, b.api_key, raw);
    await second.reached;
    first.open();
    const booked = await one;
    assert.equal(booked.status, 201, JSON.stringify(booked.body));
    assert.deepEqual(await balanceOf(t, b.api_key), bwp(0), "every stop paid, the hold freed");
    second.open();
    const replayed = await two;
    // spec: business 4.2: the same external_reference and body returns the first batch.
    assert.equal(replayed.status, 200, JSON.stringify(replayed.body));
    assert.equal(replayed.body.data.id, booked.body.data.id);
    assert.equal(await debitsOf(t, b.id), STOPS.length, "each stop charged once");
    assert.deepEqual(await holdsOf(t, b.id), {});
  }));

Deno.test("batches funds: a replay holding after the first request's refused hold released the claim books and answers the batch it charged, never 404", () =>
  withTestEnv(async (t) => {
    const total = await totalOf(t);
    const b = await fundedBusiness(t, total.toFixed(2));
    const raw = { segment: "parcel", stops: STOPS, external_reference: "EOD-RELEASED" };
    // The first request checked its funds and waits before its claim; a booking takes money.
    const claim = holdAsk(t.env.runtime, commandKind("claim", "business_batch"));
    const one = postBatch(t, b.api_key, raw);
    await claim.reached;
    const single = await book(t, b.api_key, PARCEL);
    assert.equal(single.status, 201, JSON.stringify(single.body));
    const fare: number = single.body.data.billing_amount;
    // Its hold is refused; it waits before releasing its claim.
    const release = holdAsk(t.env.runtime, commandKind("release", "business_batch"));
    claim.open();
    await release.reached;
    // The replay finds the claim and waits before its hold.
    const reserve = holdAsk(t.env.runtime, commandKind("reserve", "wallet"));
    const two = postBatch(t, b.api_key, raw);
    await reserve.reached;
    release.open();
    const refused = await one;
    assert.equal(refused.status, 422, JSON.stringify(refused.body));
    // Money arrives before the replay holds.
    const topUp = await t.call("POST", `/operator/businesses/${b.id}/wallet`, {
      operator: true,
      body: { amount: fare, currency: "BWP", reference: "top-up" },
    });
    assert.equal(topUp.status, 201, JSON.stringify(topUp.body));
    reserve.open();
    const replayed = await two;
    await t.settle();
    // spec: business 4.2: the answer is the batch charged, booked, and it can be read.
    assert.ok([200, 201].includes(replayed.status), JSON.stringify(replayed.body));
    assert.equal(replayed.body.data.status, "booked");
    const read = await t.call("GET", `/business/batches/${replayed.body.data.id}`, {
      key: b.api_key,
    });
    assert.equal(read.status, 200, JSON.stringify(read.body));
    assert.equal(await debitsOf(t, b.id), 1 + STOPS.length, "each stop charged once");
    assert.deepEqual(await balanceOf(t, b.api_key), bwp(0));
    assert.deepEqual(await holdsOf(t, b.id), {});
    // A retry replays it: nothing booked or charged again.
    const again = await postBatch(t, b.api_key, raw);
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(await debitsOf(t, b.id), 1 + STOPS.length);
  }));

Deno.test("batches funds: a first request whose hold was refused while a replay funded the claim answers the batch booked, not 422", () =>
  withTestEnv(async (t) => {
    const total = await totalOf(t);
    const b = await fundedBusiness(t, total.toFixed(2));
    const raw = { segment: "parcel", stops: STOPS, external_reference: "EOD-FUNDED" };
    const claim = holdAsk(t.env.runtime, commandKind("claim", "business_batch"));
    const one = postBatch(t, b.api_key, raw);
    await claim.reached;
    const single = await book(t, b.api_key, PARCEL);
    assert.equal(single.status, 201, JSON.stringify(single.body));
    const fare: number = single.body.data.billing_amount;
    // The first request's hold is refused; it waits before releasing its claim.
    const release = holdAsk(t.env.runtime, commandKind("release", "business_batch"));
    claim.open();
    await release.reached;
    const topUp = await t.call("POST", `/operator/businesses/${b.id}/wallet`, {
      operator: true,
      body: { amount: fare, currency: "BWP", reference: "top-up" },
    });
    assert.equal(topUp.status, 201, JSON.stringify(topUp.body));
    // The replay holds the money and books the batch meanwhile.
    const replayed = await postBatch(t, b.api_key, raw);
    assert.equal(replayed.status, 200, JSON.stringify(replayed.body));
    release.open();
    const first = await one;
    await t.settle();
    // spec: business 4.2: the batch was booked and charged: the first answer says so too.
    assert.ok([200, 201].includes(first.status), JSON.stringify(first.body));
    assert.equal(first.body.data.id, replayed.body.data.id);
    assert.equal(first.body.data.status, "booked");
    assert.equal(await debitsOf(t, b.id), 1 + STOPS.length, "each stop charged once");
    assert.deepEqual(await balanceOf(t, b.api_key), bwp(0));
    assert.deepEqual(await holdsOf(t, b.id), {});
  }));

Deno.test("batches funds: a replay of a refused body holding while another body owns the reference gives back only its own hold; the owner's stops are paid from the owner's hold", () =>
  withTestEnv(async (t) => {
    const total = await totalOf(t);
    const b = await fundedBusiness(t, total.toFixed(2));
    const raw = { segment: "parcel", stops: STOPS, external_reference: "EOD-TWO-BODIES" };
    const other = { ...raw, stops: [...STOPS].reverse() };
    // The first request checked its funds and waits before its claim; a booking takes money.
    const claim = holdAsk(t.env.runtime, commandKind("claim", "business_batch"));
    const one = postBatch(t, b.api_key, raw);
    await claim.reached;
    const single = await book(t, b.api_key, PARCEL);
    assert.equal(single.status, 201, JSON.stringify(single.body));
    const fare: number = single.body.data.billing_amount;
    // Its hold is refused; it waits before releasing its claim.
    const release = holdAsk(t.env.runtime, commandKind("release", "business_batch"));
    claim.open();
    await release.reached;
    // A replay of the same body finds that claim and waits before its hold.
    const reserve = holdAsk(t.env.runtime, commandKind("reserve", "wallet"));
    const two = postBatch(t, b.api_key, raw);
    await reserve.reached;
    release.open();
    assert.equal((await one).status, 422);
    const topUp = await t.call("POST", `/operator/businesses/${b.id}/wallet`, {
      operator: true,
      body: { amount: fare, currency: "BWP", reference: "top-up" },
    });
    assert.equal(topUp.status, 201, JSON.stringify(topUp.body));
    // Another body now claims the free reference, holds the whole wallet, waits before its stops.
    const stops = holdAsk(t.env.runtime, commandKind("fund", "business_batch"));
    const owner = postBatch(t, b.api_key, other);
    await stops.reached;
    reserve.open();
    const replay = await two;
    assert.ok([409, 422].includes(replay.status), JSON.stringify(replay.body));
    const held = Object.values(await holdsOf(t, b.id));
    assert.deepEqual(
      held.map((h) => h.amount_minor),
      [Math.round(total * 100)],
      "the owner's hold",
    );
    // The owner's money stays held: another booking cannot spend it.
    const late = await book(t, b.api_key, PARCEL);
    assert.equal(late.status, 422, JSON.stringify(late.body));
    stops.open();
    const booked = await owner;
    await t.settle();
    assert.equal(booked.status, 201, JSON.stringify(booked.body));
    assert.equal(await debitsOf(t, b.id), 1 + STOPS.length, "each stop charged once");
    assert.equal(await drawsOf(t, b.id), STOPS.length, "each stop paid from the owner's hold");
    assert.deepEqual(await balanceOf(t, b.api_key), bwp(0));
    assert.deepEqual(await holdsOf(t, b.id), {});
  }));
