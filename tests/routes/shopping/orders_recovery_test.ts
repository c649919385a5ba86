/**
 * A shopping order's booking stopped between two steps (shopping 2.2; "a crash between two steps
 * leaves state that a retry or a sweep completes"): the order's sweep completes it from its trip,
 * or releases the claim and frees the order id, and a late wake-up of the stopped request charges
 * nothing afterwards.
 */
import assert from "node:assert/strict";
import { forgetOldDataPasses, rewriteStored, withoutTimer } from "../../helpers/stored_records.ts";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { commandKind, failAsks, holdAsk } from "../../helpers/faults.ts";
import { balanceOf } from "../business/trips_fixtures.ts";
import { createOrder, orderBody, shoppingBusiness } from "./shopping_fixtures.ts";
import { tripActor } from "../../../actors/business/trip/mod.ts";
import {
  EXTERNAL_ORDER_INDEX,
  externalOrderKey,
  shoppingOrderActor,
} from "../../../actors/shopping/order.ts";
import { ORDER_STALL_TIMER } from "../../../src/shopping/rules/events.ts";
import { thenAnotherInstance } from "../../helpers/two_instances.ts";

/** Past the order's stalled-booking bound (2 minutes): its sweep looks at the booking. */
const STALL_SECONDS = 121;

async function sweep(t: TestEnv) {
  await t.call("POST", "/operator/clock/advance", {
    operator: true,
    body: { seconds: STALL_SECONDS },
  });
  await t.env.runtime.outboxesIdle();
}

async function tripsOf(t: TestEnv, key: string) {
  await t.settle();
  return (await t.call("GET", "/business/trips?per_page=100", { key })).body.data;
}

Deno.test("shopping orders: a booking that stopped after claiming the order id is released by its sweep; nothing charged, the id free", () =>
  withTestEnv(async (t) => {
    const b = await shoppingBusiness(t);
    const before = await balanceOf(t, b.api_key);
    // The process dies after the order's claim, before its trip's claim; no retry ever comes.
    const stop = failAsks(t.env.runtime, commandKind("claim", tripActor.type));
    const cut = await createOrder(t, b.api_key, orderBody("ORD-STOP"));
    stop();
    assert.equal(cut.status, 500, JSON.stringify(cut.body));
    const taken = await createOrder(
      t,
      b.api_key,
      orderBody("ORD-STOP", {}, { external_reference: "other-ref" }),
    );
    assert.equal(taken.status, 409, JSON.stringify(taken.body));
    assert.equal(taken.body.code, "duplicate_order");
    await sweep(t);
    const other = await createOrder(
      t,
      b.api_key,
      orderBody("ORD-STOP", {}, { external_reference: "other-ref" }),
    );
    assert.equal(other.status, 201, JSON.stringify(other.body));
    assert.equal((await tripsOf(t, b.api_key)).length, 1);
    assert.notDeepEqual(await balanceOf(t, b.api_key), before);
  }));

Deno.test("shopping orders: a stalled booking whose trip's charge the trip's sweep found refused frees the order id", () =>
  withTestEnv(async (t) => {
    const b = await shoppingBusiness(t, "0");
    // The process dies before the charge; the trip's sweep then finds the wallet empty.
    const stop = failAsks(t.env.runtime, commandKind("debit", "wallet"));
    const cut = await createOrder(t, b.api_key, orderBody("ORD-POOR"));
    stop();
    assert.equal(cut.status, 500, JSON.stringify(cut.body));
    for (let n = 0; n < 2; n++) await sweep(t);
    await t.call("POST", `/operator/businesses/${b.id}/wallet`, {
      operator: true,
      body: { amount: "1000.00", currency: "BWP", reference: "fund-later" },
    });
    const again = await createOrder(
      t,
      b.api_key,
      orderBody("ORD-POOR", {}, { external_reference: "other-ref" }),
    );
    assert.equal(again.status, 201, JSON.stringify(again.body));
    assert.equal((await tripsOf(t, b.api_key)).length, 1);
  }));

Deno.test("shopping orders: a slow booking woken after the sweep released its order charges nothing and books no trip", () =>
  withTestEnv(async (t) => {
    const b = await shoppingBusiness(t);
    const before = await balanceOf(t, b.api_key);
    // The request stalls between the order's claim and its trip's, however long the clock moves.
    const slow = holdAsk(t.env.runtime, commandKind("claim", tripActor.type));
    const pending = createOrder(t, b.api_key, orderBody("ORD-SLOW"));
    await slow.reached;
    await sweep(t);
    slow.open();
    const late = await pending;
    assert.equal(late.status, 409, JSON.stringify(late.body));
    assert.equal(late.body.code, "shopping_order_released");
    assert.deepEqual(await balanceOf(t, b.api_key), before);
    assert.equal((await tripsOf(t, b.api_key)).length, 0);
    // Its retry books it, once.
    const retried = await createOrder(t, b.api_key, orderBody("ORD-SLOW"));
    assert.equal(retried.status, 201, JSON.stringify(retried.body));
    assert.equal((await tripsOf(t, b.api_key)).length, 1);
  }));

Deno.test("shopping orders: a second request of an order whose first was refused cannot book a trip for the released order", () =>
  withTestEnv(async (t) => {
    const b = await shoppingBusiness(t, "0");
    // Request B claims the order with A (the same body) and stalls before its trip's claim; A is
    // refused for the wallet and releases the claim.
    const slow = holdAsk(t.env.runtime, commandKind("claim", tripActor.type));
    const pending = createOrder(t, b.api_key, orderBody("ORD-TWICE"));
    await slow.reached;
    const refused = await createOrder(t, b.api_key, orderBody("ORD-TWICE"));
    assert.equal(refused.status, 422, JSON.stringify(refused.body));
    assert.equal(refused.body.code, "insufficient_balance");
    await t.call("POST", `/operator/businesses/${b.id}/wallet`, {
      operator: true,
      body: { amount: "1000.00", currency: "BWP", reference: "fund-later" },
    });
    const before = await balanceOf(t, b.api_key);
    slow.open();
    const late = await pending;
    assert.equal(late.status, 409, JSON.stringify(late.body));
    assert.equal(late.body.code, "shopping_order_released");
    assert.deepEqual(await balanceOf(t, b.api_key), before);
    assert.equal((await tripsOf(t, b.api_key)).length, 0);
    const again = await createOrder(t, b.api_key, orderBody("ORD-TWICE"));
    assert.equal(again.status, 201, JSON.stringify(again.body));
    assert.equal((await tripsOf(t, b.api_key)).length, 1);
  }));

/** The order's record as the code before the stall sweep left it: no timer; no pass run. */
async function withoutStallTimer(kvPath: string, at: { type: string; id: string }) {
  await rewriteStored(
    kvPath,
    at,
    (stored) => withoutTimer(stored, ORDER_STALL_TIMER, "today's claim sets the stall timer"),
    "written as the old claim left it",
  );
  await forgetOldDataPasses(kvPath);
}

Deno.test("shopping orders: an order left booking before the stall sweep (no timer) is released after the next start's pass; the id free", () =>
  thenAnotherInstance(async (first, kvPath) => {
    const b = await shoppingBusiness(first);
    const stop = failAsks(first.env.runtime, commandKind("claim", tripActor.type));
    const cut = await createOrder(first, b.api_key, orderBody("ORD-OLD"));
    stop();
    assert.equal(cut.status, 500, JSON.stringify(cut.body));
    await first.settle();
    await first.env.runtime.sweepMarkers();
    const ids = await first.env.runtime.lookup(
      EXTERNAL_ORDER_INDEX,
      externalOrderKey(b.id, "ORD-OLD"),
    );
    assert.ok(ids, "the order id is held");
    await withoutStallTimer(kvPath, { type: shoppingOrderActor.type, id: ids.id });
    return b;
  }, async (second, b) => {
    // Another instance starts on that store: its passes run before it serves.
    await sweep(second);
    await sweep(second);
    const again = await createOrder(
      second,
      b.api_key,
      orderBody("ORD-OLD", {}, { external_reference: "other-ref" }),
    );
    assert.equal(again.status, 201, JSON.stringify(again.body));
  }));
