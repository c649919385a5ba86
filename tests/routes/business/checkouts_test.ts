import assert from "node:assert/strict";
import { CheckoutAnswer } from "../../../routes/business/answers/checkouts.ts";
import { TripAnswer } from "../../../routes/business/answers/trips.ts";
import { documented, listed } from "../../helpers/documented.ts";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { balanceOf, book, bwp, fundedBusiness, PARCEL } from "./trips_fixtures.ts";
import { busyAsks, commandKind, failAsks, flakyRuntime, holdAsk } from "../../helpers/faults.ts";
import { sweepStalledCheckout } from "../../../src/business/flows/checkouts.ts";
import { tripActor } from "../../../actors/business/trip/mod.ts";
import { checkoutActor } from "../../../actors/business/checkout.ts";
import { walletActor } from "../../../actors/platform/wallet.ts";

const CHECKOUTS = "/business/checkouts";
// Gaborone: the Main Mall to Block 8, a parcel of 3 kg.
const CART = {
  cart_reference: "cart-1001",
  cart: { items: [{ name: "Sorghum 5 kg", qty: 1 }] },
  pickup_address: PARCEL.pickup_address,
  pickup_lat: PARCEL.pickup_lat,
  pickup_lng: PARCEL.pickup_lng,
  dest_address: PARCEL.dest_address,
  dest_lat: PARCEL.dest_lat,
  dest_lng: PARCEL.dest_lng,
  parcel_weight_kg: 3,
  hold_minutes: 20,
};
const ORDER = { type: "parcel", passenger_name: "Neo Kgosi", passenger_phone: "+26771234567" };

function open(t: TestEnv, key: string, body: Record<string, unknown> = CART) {
  return t.call("POST", CHECKOUTS, { key, body });
}

function advance(t: TestEnv, seconds: number) {
  return t.call("POST", "/operator/clock/advance", { operator: true, body: { seconds } });
}

Deno.test("checkouts: a held option is priced as the fare estimate and booked at that price", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const opened = await open(t, b.api_key);
    documented(CheckoutAnswer, opened, 201, "checkout opened");
    const co = opened.body.data;
    assert.equal(co.status, "open");
    assert.match(co.reference, /^CO-[0-9A-Z]{12}$/);
    assert.equal(co.expires_at, new Date(t.clock.now() + 20 * 60_000).toISOString());
    const q = new URLSearchParams({
      pickup_lat: String(PARCEL.pickup_lat),
      pickup_lng: String(PARCEL.pickup_lng),
      dest_lat: String(PARCEL.dest_lat),
      dest_lng: String(PARCEL.dest_lng),
      parcel_weight_kg: "3",
    });
    const estimate = await t.call("GET", `/business/trip/fare-estimate?${q}`, { key: b.api_key });
    assert.equal(co.billing_amount, estimate.body.data.billing_amount);
    assert.deepEqual(co.lines, estimate.body.data.lines);
    const before = await balanceOf(t, b.api_key) as { balances: { balance: number }[] };
    const booked = await book(t, b.api_key, { ...ORDER, checkout_reference: co.reference });
    documented(TripAnswer, booked, 201, "booked from a checkout");
    assert.equal(booked.body.data.billing_amount, co.billing_amount);
    assert.equal(booked.body.data.dest_address, PARCEL.dest_address);
    const after = await balanceOf(t, b.api_key) as { balances: { balance: number }[] };
    assert.equal(
      Math.round((before.balances[0]!.balance - after.balances[0]!.balance) * 100),
      Math.round(co.billing_amount * 100),
    );
    const read = await t.call("GET", `${CHECKOUTS}/${co.reference}`, { key: b.api_key });
    documented(CheckoutAnswer, read, 200, "checkout booked");
    assert.equal(read.body.data.status, "booked");
    assert.equal(read.body.data.trip_reference, booked.body.data.reference);
    // The same order again is the same trip; another order cannot take the checkout.
    const again = await book(t, b.api_key, { ...ORDER, checkout_reference: co.reference });
    assert.equal(again.status, 200);
    assert.equal(again.body.data.reference, booked.body.data.reference);
    const other = await book(t, b.api_key, {
      ...ORDER,
      passenger_name: "Someone Else",
      checkout_reference: co.reference,
    });
    assert.equal(other.status, 409);
    assert.equal(other.body.code, "checkout_booked");
    const cancel = await t.call("POST", `${CHECKOUTS}/${co.reference}/cancel`, { key: b.api_key });
    assert.equal(cancel.status, 409);
    assert.equal(cancel.body.code, "checkout_booked");
  }));

Deno.test("checkouts: expiry on the clock and cancel release the hold; booking either is 409", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const expiring = (await open(t, b.api_key)).body.data;
    const cancelled = (await open(t, b.api_key, { ...CART, cart_reference: "cart-2" })).body.data;
    await advance(t, 19 * 60);
    const held = await t.call("GET", `${CHECKOUTS}/${expiring.reference}`, { key: b.api_key });
    assert.equal(held.body.data.status, "open");
    const c1 = await t.call("POST", `${CHECKOUTS}/${cancelled.reference}/cancel`, {
      key: b.api_key,
      body: { reason: "cart emptied" },
    });
    documented(CheckoutAnswer, c1, 200, "checkout cancelled");
    assert.equal(c1.body.data.status, "cancelled");
    assert.equal(c1.body.data.cancel_reason, "cart emptied");
    const c2 = await t.call("POST", `${CHECKOUTS}/${cancelled.reference}/cancel`, {
      key: b.api_key,
    });
    assert.equal(c2.body.data.replayed, true);
    await advance(t, 60);
    const gone = await t.call("GET", `${CHECKOUTS}/${expiring.reference}`, { key: b.api_key });
    assert.equal(gone.body.data.status, "expired");
    assert.equal(gone.body.data.released_at, gone.body.data.expires_at);
    const before = await balanceOf(t, b.api_key);
    for (const [co, code] of [[expiring, "checkout_expired"], [cancelled, "checkout_cancelled"]]) {
      const r = await book(t, b.api_key, { ...ORDER, checkout_reference: co.reference });
      assert.equal(r.status, 409, JSON.stringify(r.body));
      assert.equal(r.body.code, code);
    }
    assert.deepEqual(await balanceOf(t, b.api_key), before, "nothing charged");
  }));

Deno.test("checkouts: the same cart is the same checkout, other details 409, a refused booking gives the hold back", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t, "0");
    const first = await open(t, b.api_key);
    const again = await open(t, b.api_key);
    assert.equal(again.status, 200);
    assert.equal(again.body.data.replayed, true);
    assert.equal(again.body.data.reference, first.body.data.reference);
    const other = await open(t, b.api_key, { ...CART, parcel_weight_kg: 9 });
    assert.equal(other.status, 409);
    assert.equal(other.body.code, "reference_conflict");
    const keyed = (key: string) =>
      t.call("POST", CHECKOUTS, {
        key: b.api_key,
        body: { ...CART, cart_reference: undefined },
        headers: { "Idempotency-Key": key },
      });
    assert.equal(
      (await keyed("k-1")).body.data.reference,
      (await keyed("k-1")).body.data.reference,
    );
    const ref = first.body.data.reference;
    const broke = await book(t, b.api_key, { ...ORDER, checkout_reference: ref });
    assert.equal(broke.body.code, "insufficient_balance");
    const read = await t.call("GET", `${CHECKOUTS}/${ref}`, { key: b.api_key });
    assert.equal(read.body.data.status, "open");
    const beside = await book(t, b.api_key, { ...PARCEL, checkout_reference: ref });
    assert.equal(beside.status, 422);
    assert.ok(beside.body.errors.some((e: { path: string }) => e.path === "dest_address"));
  }));

Deno.test("checkouts: a booking whose trip was too busy to be created keeps the checkout for it; one trip, charged once", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const co = (await open(t, b.api_key)).body.data;
    const order = { ...ORDER, checkout_reference: co.reference };
    // The trip's mailbox is full when its creation is asked: the claim and its charge stand,
    // and the booking's sweep creates the trip.
    const refused = busyAsks(t.env.runtime, commandKind("create", tripActor.type), 1);
    const busy = await book(t, b.api_key, order);
    assert.equal(busy.status, 503, JSON.stringify(busy.body));
    assert.equal(refused(), 1);
    // spec: business 4.1: the checkout books once: another order cannot take it meanwhile.
    const other = await book(t, b.api_key, {
      ...order,
      passenger_name: "Someone Else",
      external_reference: "ORD-OTHER",
    });
    assert.equal(other.status, 409, JSON.stringify(other.body));
    assert.equal(other.body.code, "checkout_booked");
    await advance(t, 31);
    await t.env.runtime.outboxesIdle();
    const again = await book(t, b.api_key, order);
    assert.equal(again.status, 200, JSON.stringify(again.body));
    const read = await t.call("GET", `${CHECKOUTS}/${co.reference}`, { key: b.api_key });
    assert.equal(read.body.data.status, "booked");
    assert.equal(read.body.data.trip_reference, again.body.data.reference);
    await t.settle();
    const trips = await t.call("GET", "/business/trips?per_page=100", { key: b.api_key });
    assert.equal(trips.body.data.length, 1, JSON.stringify(trips.body));
    assert.deepEqual(
      await balanceOf(t, b.api_key),
      bwp(1000 - again.body.data.billing_amount),
    );
  }));

Deno.test("checkouts: another business's checkout is not found, to read, cancel or book", () =>
  withTestEnv(async (t) => {
    const [a, b] = [await fundedBusiness(t), await fundedBusiness(t)];
    const ref = (await open(t, a.api_key)).body.data.reference;
    const read = await t.call("GET", `${CHECKOUTS}/${ref}`, { key: b.api_key });
    const cancel = await t.call("POST", `${CHECKOUTS}/${ref}/cancel`, { key: b.api_key });
    const booked = await book(t, b.api_key, { ...ORDER, checkout_reference: ref });
    for (const r of [read, cancel, booked]) {
      assert.equal(r.status, 404, JSON.stringify(r.body));
      assert.equal(r.body.code, "not_found");
    }
    const mine = await t.call("GET", `${CHECKOUTS}/${ref}`, { key: a.api_key });
    assert.equal(mine.body.data.status, "open");
  }));

Deno.test("checkouts: the list shows a business's own checkouts newest first, by status and cart", () =>
  withTestEnv(async (t) => {
    const [a, b] = [await fundedBusiness(t), await fundedBusiness(t)];
    const first = (await open(t, a.api_key)).body.data;
    t.clock.advanceBy(1_000);
    const second = (await open(t, a.api_key, { ...CART, cart_reference: "cart-2" })).body.data;
    await t.call("POST", `${CHECKOUTS}/${first.reference}/cancel`, { key: a.api_key });
    await t.settle();
    const all = await t.call("GET", CHECKOUTS, { key: a.api_key });
    listed(CheckoutAnswer, all, "checkouts list");
    const refs = (r: { body: { data: { reference: string }[] } }) =>
      r.body.data.map((c) => c.reference);
    assert.deepEqual(refs(all), [second.reference, first.reference]);
    const cancelled = await t.call("GET", `${CHECKOUTS}?status=cancelled`, { key: a.api_key });
    assert.deepEqual(refs(cancelled), [first.reference]);
    const byCart = await t.call("GET", `${CHECKOUTS}?cart_reference=cart-2`, { key: a.api_key });
    assert.deepEqual(refs(byCart), [second.reference]);
    const paged = await t.call("GET", `${CHECKOUTS}?per_page=1`, { key: a.api_key });
    const next = await t.call(
      "GET",
      `${CHECKOUTS}?per_page=1&cursor=${paged.body.meta.next_cursor}`,
      {
        key: a.api_key,
      },
    );
    assert.deepEqual([...refs(paged), ...refs(next)], [second.reference, first.reference]);
    assert.deepEqual(refs(await t.call("GET", CHECKOUTS, { key: b.api_key })), []);
  }));

Deno.test("checkouts: one checkout books one trip; the same order under another Idempotency-Key is 409, charged once", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const co = (await open(t, b.api_key)).body.data;
    const before = await balanceOf(t, b.api_key) as { balances: { balance: number }[] };
    const order = { ...ORDER, checkout_reference: co.reference };
    const first = await book(t, b.api_key, order, { "Idempotency-Key": "order-1" });
    assert.equal(first.status, 201, JSON.stringify(first.body));
    const retry = await book(t, b.api_key, order, { "Idempotency-Key": "order-1" });
    assert.equal(retry.status, 200);
    assert.equal(retry.body.data.reference, first.body.data.reference);
    const second = await book(t, b.api_key, order, { "Idempotency-Key": "order-2" });
    assert.equal(second.status, 409, JSON.stringify(second.body));
    assert.equal(second.body.code, "checkout_booked");
    assert.equal(second.body.trip_reference, first.body.data.reference);
    const after = await balanceOf(t, b.api_key) as { balances: { balance: number }[] };
    assert.equal(
      Math.round((before.balances[0]!.balance - after.balances[0]!.balance) * 100),
      Math.round(co.billing_amount * 100),
      "the held price is charged once",
    );
  }));

/** Past the checkout's stalled-booking bound (2 minutes): its sweep looks at the booking. */
const STALL_SECONDS = 121;

function statusOf(t: TestEnv, key: string, reference: string) {
  return t.call("GET", `${CHECKOUTS}/${reference}`, { key }).then((r) => r.body.data);
}

Deno.test("checkouts: a booking that stopped after holding the checkout is given back by its sweep; nothing charged, the checkout books again", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const co = (await open(t, b.api_key)).body.data;
    const order = { ...ORDER, checkout_reference: co.reference };
    // The process dies after the hold, before the trip's claim; the client never retries.
    const stop = failAsks(t.env.runtime, commandKind("claim", tripActor.type));
    const crashed = await book(t, b.api_key, order);
    stop();
    assert.equal(crashed.status, 500, JSON.stringify(crashed.body));
    assert.equal((await statusOf(t, b.api_key, co.reference)).status, "booking");
    await advance(t, STALL_SECONDS);
    await t.env.runtime.outboxesIdle();
    const given = await statusOf(t, b.api_key, co.reference);
    assert.equal(given.status, "open", JSON.stringify(given));
    assert.deepEqual(await balanceOf(t, b.api_key), bwp(1000));
    const other = await book(t, b.api_key, { ...order, passenger_name: "Someone Else" });
    assert.equal(other.status, 201, JSON.stringify(other.body));
    assert.deepEqual(await balanceOf(t, b.api_key), bwp(1000 - co.billing_amount));
  }));

Deno.test("checkouts: a stalled booking's sweep that meets a busy checkout is tried again, not dropped", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const co = (await open(t, b.api_key)).body.data;
    const stop = failAsks(t.env.runtime, commandKind("claim", tripActor.type));
    assert.equal(
      (await book(t, b.api_key, { ...ORDER, checkout_reference: co.reference })).status,
      500,
    );
    stop();
    // The sweep's read of the checkout meets a full mailbox: not now, so the item must stay.
    const flaky = flakyRuntime(t.env.runtime, {
      fails: (type, command) =>
        type === checkoutActor.type && (command as { kind: string }).kind === "get",
      refuse: true,
    });
    const item = { business_id: b.id, reference: co.reference };
    await assert.rejects(sweepStalledCheckout({ runtime: flaky.runtime }, item));
    await sweepStalledCheckout(t.env, item);
    assert.equal((await statusOf(t, b.api_key, co.reference)).status, "open");
  }));

Deno.test("checkouts: a booking that stopped after its claim or its trip is completed by the sweeps as the retry would; one trip, charged once", async () => {
  // The process dies before the charge (after the checkout let the claim through), or after the
  // trip was made, before the checkout was marked booked.
  for (const [kind, type] of [["debit", walletActor.type], ["booked", checkoutActor.type]]) {
    await withTestEnv(async (t) => {
      const b = await fundedBusiness(t);
      const co = (await open(t, b.api_key)).body.data;
      const order = { ...ORDER, checkout_reference: co.reference };
      const stop = failAsks(t.env.runtime, commandKind(kind!, type));
      const crashed = await book(t, b.api_key, order);
      stop();
      assert.equal(crashed.status, 500, `${kind}: ${JSON.stringify(crashed.body)}`);
      for (let n = 0; n < 2; n++) {
        await advance(t, STALL_SECONDS);
        await t.env.runtime.outboxesIdle();
      }
      const done = await statusOf(t, b.api_key, co.reference);
      assert.equal(done.status, "booked", `${kind}: ${JSON.stringify(done)}`);
      await t.settle();
      const trips = await t.call("GET", "/business/trips?per_page=100", { key: b.api_key });
      assert.equal(trips.body.data.length, 1, JSON.stringify(trips.body));
      assert.equal(done.trip_reference, trips.body.data[0].reference);
      assert.deepEqual(await balanceOf(t, b.api_key), bwp(1000 - co.billing_amount));
      const again = await book(t, b.api_key, order);
      assert.equal(again.status, 200, JSON.stringify(again.body));
      assert.equal(again.body.data.reference, done.trip_reference);
    });
  }
});

Deno.test("checkouts: a slow booking woken after the sweep gave its hold back charges nothing and books no trip", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const co = (await open(t, b.api_key)).body.data;
    const order = { ...ORDER, checkout_reference: co.reference };
    // The request stalls between the hold and the trip's claim, however long the clock moves.
    const slow = holdAsk(t.env.runtime, commandKind("claim", tripActor.type));
    const pending = book(t, b.api_key, order);
    await slow.reached;
    await advance(t, STALL_SECONDS);
    await t.env.runtime.outboxesIdle();
    assert.equal((await statusOf(t, b.api_key, co.reference)).status, "open");
    slow.open();
    const late = await pending;
    assert.equal(late.status, 409, JSON.stringify(late.body));
    assert.equal(late.body.code, "checkout_released");
    await t.settle();
    assert.deepEqual(await balanceOf(t, b.api_key), bwp(1000));
    const trips = await t.call("GET", "/business/trips?per_page=100", { key: b.api_key });
    assert.equal(trips.body.data.length, 0, JSON.stringify(trips.body));
    assert.equal((await statusOf(t, b.api_key, co.reference)).status, "open");
    // Its retry books it, once.
    const retried = await book(t, b.api_key, order);
    assert.equal(retried.status, 201, JSON.stringify(retried.body));
    assert.deepEqual(await balanceOf(t, b.api_key), bwp(1000 - co.billing_amount));
  }));

Deno.test("checkouts: a second request of a booking whose first was refused cannot book the checkout given back; one checkout, one trip", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t, "0");
    const co = (await open(t, b.api_key)).body.data;
    const order = { ...ORDER, checkout_reference: co.reference };
    // Request B holds the checkout and stalls before its trip's claim; request A (the same body)
    // shares the hold, is refused for the wallet and gives the hold back.
    const slow = holdAsk(t.env.runtime, commandKind("claim", tripActor.type));
    const pending = book(t, b.api_key, order);
    await slow.reached;
    const refused = await book(t, b.api_key, order);
    assert.equal(refused.status, 422, JSON.stringify(refused.body));
    assert.equal(refused.body.code, "insufficient_balance");
    assert.equal((await statusOf(t, b.api_key, co.reference)).status, "open");
    await t.call("POST", `/operator/businesses/${b.id}/wallet`, {
      operator: true,
      body: { amount: "1000.00", currency: "BWP", reference: "fund-later" },
    });
    slow.open();
    const late = await pending;
    assert.equal(late.status, 409, JSON.stringify(late.body));
    assert.equal(late.body.code, "checkout_released");
    assert.deepEqual(await balanceOf(t, b.api_key), bwp(1000));
    // The checkout given back books once, for whichever order holds it next.
    const other = await book(t, b.api_key, { ...order, passenger_name: "Someone Else" });
    assert.equal(other.status, 201, JSON.stringify(other.body));
    await t.settle();
    const trips = await t.call("GET", "/business/trips?per_page=100", { key: b.api_key });
    assert.equal(trips.body.data.length, 1, JSON.stringify(trips.body));
    assert.deepEqual(await balanceOf(t, b.api_key), bwp(1000 - co.billing_amount));
  }));
