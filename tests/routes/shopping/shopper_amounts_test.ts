/**
 * Shopping 1.1, 3: the shopper's amounts (a till amount, a unit price paid, a substitute's price)
 * are bounded as the order's own are, so the tills of every store add up exactly and the basket
 * always reconciles; past the bound a 422 names the field and nothing changes.
 */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import type { TestEnv } from "../../helpers/test_env.ts";
import { createPoolDriver } from "../../helpers/pool_drivers.ts";
import { acceptAs, pngFile } from "../../helpers/driver_trips.ts";
import { until } from "../../helpers/receiver.ts";
import { createOrder, orderBody, shoppingBusiness, store } from "./shopping_fixtures.ts";

const MAX = "1000000000.00";

function collectForm(key: string, amount: string) {
  const f = new FormData();
  f.set("idempotency_key", key);
  f.set("collected_amount", amount);
  f.set("receipt_photo", pngFile("receipt.png"));
  return f;
}

async function order(t: TestEnv, stores: number, purchase_amount?: number) {
  const b = await shoppingBusiness(t);
  const body = orderBody("ORD-AMT", {
    shopping: { stores: Array.from({ length: stores }, (_, i) => store(String(i), 1)) },
  }, purchase_amount === undefined ? {} : { purchase_amount });
  const r = await createOrder(t, b.api_key, body);
  assert.equal(r.status, 201, JSON.stringify(r.body).slice(0, 300));
  const reference = r.body.data.reference as string;
  const driver = await createPoolDriver(t);
  await acceptAs(t, b.id, reference, driver.id);
  const post = (path: string, body: unknown) =>
    t.call("POST", `/driver/shopping/${reference}/stores/${path}`, {
      bearer: driver.token,
      body,
    });
  const get = () => t.call("GET", `/business/shopping-orders/${reference}`, { key: b.api_key });
  return { post, get };
}

// Before: ten stores collected at 9,999,999,999,999.99 each were taken 200, and their sum, past
// the exact range, failed the basket's reconciliation for ever (the basket never collected).
Deno.test("shopper amounts: past 1,000,000,000 a till amount, unit price paid or substitute price is 422 naming it, nothing changed; twenty stores at the bound reconcile exactly", () =>
  withTestEnv(async (t) => {
    // A float as large as twenty tills at the bound: the till amounts are within it.
    const o = await order(t, 20, 20_000_000_000);
    const found = { outcome: "found", qty_found: 2, unit_price_paid: MAX };
    const refused: [string, Record<string, unknown>][] = [
      ["unit_price_paid", { ...found, unit_price_paid: "1000000000.01" }],
      ["unit_price_paid", { ...found, unit_price_paid: 9999999999999.99 }],
      ["substitute.unit_price", {
        ...found,
        outcome: "substituted",
        substitute: { name: "Other", unit_price: "1000000000.01" },
      }],
    ];
    for (const [path, body] of refused) {
      const r = await o.post("F-0/items/0-0", { idempotency_key: crypto.randomUUID(), ...body });
      assert.equal(r.status, 422, `${path}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.errors[0].path, path);
      assert.match(r.body.message, /too large: .* \(at most 1000000000\.00 BWP\)/);
      // The field's own words, said once (before: "invalid request: unit_price_paid: invalid
      // request: unit_price_paid: too large ...").
      assert.match(r.body.errors[0].message, /^too large: /);
    }
    for (let i = 0; i < 20; i++) {
      const line = await o.post(`F-${i}/items/${i}-0`, { idempotency_key: `l${i}`, ...found });
      assert.equal(line.status, 200, JSON.stringify(line.body));
      assert.equal(line.body.data.items[0].unit_price_paid, 1_000_000_000);
      for (const amount of ["9999999999999.99", "1000000000.01"]) {
        const past = await o.post(`F-${i}/collect`, collectForm(`x${i}${amount}`, amount));
        assert.equal(past.status, 422, JSON.stringify(past.body));
        assert.equal(past.body.errors[0].path, "collected_amount");
      }
      const taken = await o.post(`F-${i}/collect`, collectForm(`c${i}`, MAX));
      assert.equal(taken.status, 200, JSON.stringify(taken.body));
      assert.equal(taken.body.data.collected_amount, 1_000_000_000);
    }
    await until(t, async () => (await o.get()).body.data.float.reconciliation !== null, "basket");
    const float = (await o.get()).body.data.float;
    assert.equal(float.collected_amount, 20_000_000_000);
    assert.equal(float.reconciliation.spent_amount, 20_000_000_000);
    assert.equal(float.reconciliation.charged_amount, 20_000_000_000);
    assert.equal(float.reconciliation.float_returned, 0);
  }));

// Before: the sandbox's collect step without an amount summed what the lines bought, and past the
// exact range (ten lines of 10,000 units at 1,000,000,000.00) answered 500 internal_error.
Deno.test("sandbox shopper amounts: a collection without an amount whose lines cost more than an amount can state is 422 naming collected_amount", () =>
  withTestEnv(async (t) => {
    const b = await shoppingBusiness(t);
    const big = store("0", 10);
    big.items = big.items.map((item) => ({ ...item, qty: 10_000, unit_price: 0.01 }));
    const made = await createOrder(
      t,
      b.api_key,
      orderBody("ORD-SBX-AMT", { shopping: { stores: [big] } }),
    );
    assert.equal(made.status, 201, JSON.stringify(made.body).slice(0, 300));
    const ref = made.body.data.reference as string;
    const assigned = await t.call("POST", `/business/sandbox/trips/${ref}/assign_driver`, {
      key: b.api_key,
      body: {},
    });
    assert.equal(assigned.status, 200, JSON.stringify(assigned.body));
    const step = (path: string, body: unknown = {}) =>
      t.call("POST", `/business/sandbox/shopping-orders/${ref}/${path}`, { key: b.api_key, body });
    for (let i = 0; i < 10; i++) {
      const r = await step(`stores/F-0/items/0-${i}`, {
        outcome: "found",
        qty_found: 10_000,
        unit_price_paid: MAX,
      });
      assert.equal(r.status, 200, JSON.stringify(r.body).slice(0, 300));
    }
    const collected = await step("stores/F-0/collect");
    assert.equal(collected.status, 422, JSON.stringify(collected.body));
    assert.equal(collected.body.errors[0].path, "collected_amount");
    const given = await step("stores/F-0/collect", { collected_amount: "150.00" });
    assert.equal(given.status, 200, JSON.stringify(given.body).slice(0, 300));
  }, { name: "sandbox" }));

// Before: a till amount was never held against the float, and the whole of it was charged: one
// store collected at 999,999.99 on a 150.15 float took the wallet a million below nothing.
Deno.test("shopper amounts: a till amount past what is left of the purchase float is 422 naming collected_amount, nothing charged; up to it is taken", () =>
  withTestEnv(async (t) => {
    const o = await order(t, 2);
    const float = (await o.get()).body.data.float;
    const purchase = Math.round(float.purchase_amount * 100);
    const found = { outcome: "found", qty_found: 2, unit_price_paid: "1.00" };
    const line = (i: number) =>
      o.post(`F-${i}/items/${i}-0`, { idempotency_key: `l${i}`, ...found });
    assert.equal((await line(0)).status, 200);
    const first = await o.post("F-0/collect", collectForm("c0", "10.00"));
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal((await line(1)).status, 200);
    const left = (purchase - 1_000) / 100;
    const past = await o.post("F-1/collect", collectForm("c1", (left + 0.01).toFixed(2)));
    assert.equal(past.status, 422, JSON.stringify(past.body));
    assert.equal(past.body.errors[0].path, "collected_amount");
    assert.match(past.body.message, new RegExp(`purchase float left: ${left.toFixed(2)} BWP`));
    const store = (await o.get()).body.data.stores[1];
    assert.equal(store.status, "pending", "nothing changed");
    const taken = await o.post("F-1/collect", collectForm("c2", left.toFixed(2)));
    assert.equal(taken.status, 200, JSON.stringify(taken.body));
    await until(t, async () => (await o.get()).body.data.float.reconciliation !== null, "basket");
    const done = (await o.get()).body.data.float.reconciliation;
    assert.equal(done.charged_amount, float.purchase_amount);
    assert.equal(done.float_returned, 0);
  }));
