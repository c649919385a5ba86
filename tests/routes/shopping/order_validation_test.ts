import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { balanceOf } from "../business/trips_fixtures.ts";
import { createOrder, orderBody, shoppingBusiness, store } from "./shopping_fixtures.ts";

type Body = ReturnType<typeof orderBody>;

/** spec: shopping 2.2, 8: each rule a case: the change, and the path the 422 names first. */
const CASES: readonly [string, (b: Body) => void, string][] = [
  ["no stores", (b) => b.shopping.stores = [], "shopping.stores"],
  ["21 stores", (b) => {
    b.shopping.stores = Array.from({ length: 21 }, (_, i) => store(`s${i}`, 1));
  }, "shopping.stores"],
  ["a store without lines", (b) => b.shopping.stores[0]!.items = [], "shopping.stores.0.items"],
  ["201 lines in a store", (b) => {
    b.shopping.stores[1] = store("big", 201);
  }, "shopping.stores.1.items"],
  [
    "external_order_id with a space",
    (b) => b.shopping.external_order_id = "ORD 1",
    "shopping.external_order_id",
  ],
  ["external_order_id of 65 characters", (b) => {
    b.shopping.external_order_id = "x".repeat(65);
  }, "shopping.external_order_id"],
  ["external_order_id missing", (b) => {
    delete (b.shopping as { external_order_id?: unknown }).external_order_id;
  }, "shopping.external_order_id"],
  ["external_fulfilment_id with a slash", (b) => {
    b.shopping.stores[0]!.external_fulfilment_id = "F/1";
  }, "shopping.stores.0.external_fulfilment_id"],
  ["external_fulfilment_id twice in the order", (b) => {
    b.shopping.stores[1]!.external_fulfilment_id = b.shopping.stores[0]!.external_fulfilment_id;
  }, "shopping.stores.1.external_fulfilment_id"],
  ["external_item_id twice across stores", (b) => {
    b.shopping.stores[1]!.items[1]!.external_item_id =
      b.shopping.stores[0]!.items[0]!.external_item_id;
  }, "shopping.stores.1.items.1.external_item_id"],
  ["external_item_id as a number and as its text", (b) => {
    (b.shopping.stores[0]!.items[0] as { external_item_id: unknown }).external_item_id = 7;
    b.shopping.stores[1]!.items[0]!.external_item_id = "7";
  }, "shopping.stores.1.items.0.external_item_id"],
  // spec: shopping 2.2: free ids are kept as received, yet one of only spaces names nothing.
  ["external_store_id of only spaces", (b) => {
    b.shopping.stores[0]!.external_store_id = "   ";
  }, "shopping.stores.0.external_store_id"],
  ["external_store_id empty", (b) => {
    b.shopping.stores[1]!.external_store_id = "";
  }, "shopping.stores.1.external_store_id"],
  ["external_store_id of 65 characters, spaces counted", (b) => {
    b.shopping.stores[0]!.external_store_id = ` ${"s".repeat(63)} `;
  }, "shopping.stores.0.external_store_id"],
  ["external_location_id of only spaces", (b) => {
    (b.shopping as { external_location_id?: unknown }).external_location_id = " \t ";
  }, "shopping.external_location_id"],
  [
    "a fractional qty",
    (b) => b.shopping.stores[0]!.items[1]!.qty = 1.5,
    "shopping.stores.0.items.1.qty",
  ],
  ["a zero qty", (b) => b.shopping.stores[0]!.items[1]!.qty = 0, "shopping.stores.0.items.1.qty"],
  ["estimated_amount missing", (b) => {
    delete (b.shopping.stores[0] as { estimated_amount?: unknown }).estimated_amount;
  }, "shopping.stores.0.estimated_amount"],
  ["estimated_amount past the currency's decimals", (b) => {
    b.shopping.stores[0]!.estimated_amount = 10.005;
  }, "shopping.stores.0.estimated_amount"],
  ["purchase_amount below the estimates", (b) => {
    (b as { purchase_amount?: number }).purchase_amount = 79.99;
  }, "purchase_amount"],
  ["an unknown substitution_preference", (b) => {
    (b.shopping as { substitution_preference?: string }).substitution_preference = "always";
  }, "shopping.substitution_preference"],
  ["recipient_phone not international", (b) => b.recipient_phone = "071234567", "recipient_phone"],
  ["recipient_surname missing", (b) => {
    delete (b as { recipient_surname?: string }).recipient_surname;
  }, "recipient_surname"],
  ["item name missing", (b) => {
    delete (b.shopping.stores[0]!.items[0] as { name?: string }).name;
  }, "shopping.stores.0.items.0.name"],
];

Deno.test("shopping orders: each rule of 2.2 refused 422 naming the problem; nothing booked, the id still free", () =>
  withTestEnv(async (t) => {
    const b = await shoppingBusiness(t);
    const before = await balanceOf(t, b.api_key);
    for (const [name, change, path] of CASES) {
      const body = orderBody("ORD-V", { stores: 2, lines: 2 });
      change(body);
      const r = await createOrder(t, b.api_key, body);
      assert.equal(r.status, 422, `${name}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.code, "validation_failed", name);
      assert.equal(r.body.errors[0].path, path, `${name}: ${JSON.stringify(r.body.errors)}`);
      assert.ok(r.body.message.includes(path), `${name}: ${r.body.message}`);
    }
    assert.deepEqual(await balanceOf(t, b.api_key), before);
    const trips = await t.call("GET", "/business/trips/1", { key: b.api_key });
    assert.equal(trips.status, 404);
    // The id and the reference are still free: the valid order books.
    const ok = await createOrder(t, b.api_key, orderBody("ORD-V"));
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    assert.equal(ok.body.data.float.purchase_amount, 80, "defaults to the sum of the estimates");
  }));

Deno.test("shopping orders: 20 stores of 200 lines are taken; the limits are inclusive", () =>
  withTestEnv(async (t) => {
    const b = await shoppingBusiness(t, "100000.00");
    const body = orderBody("ORD-MAX", { stores: 20, lines: 200 });
    const r = await createOrder(t, b.api_key, body);
    assert.equal(r.status, 201, JSON.stringify(r.body).slice(0, 500));
    assert.equal(r.body.data.stores.length, 20);
    assert.equal(r.body.data.stores[19].items.length, 200);
    assert.equal(r.body.data.float.estimated_amount, 20 * 200 * 20);
  }));
