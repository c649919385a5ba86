import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { balanceOf } from "../business/trips_fixtures.ts";
import { checkShoppingOrder } from "../../../src/shopping/rules/order.ts";
import { recordLine, storeIdsOf } from "./events_fixtures.ts";
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
  // spec: shopping 2.2: a product photo URL, which the shopper's app loads.
  ["an image that is a script, not a photo's address", (b) => {
    (b.shopping.stores[1]!.items[0] as { image?: string }).image = "javascript:alert(1)";
  }, "shopping.stores.1.items.0.image"],
  ["an image in a data: URL", (b) => {
    (b.shopping.stores[0]!.items[1] as { image?: string }).image = "data:image/png;base64,AAAA";
  }, "shopping.stores.0.items.1.image"],
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

// spec: shopping 2.2: purchase_amount "defaults to the sum of estimated_amount; may not be lower":
// the sum stated explicitly is the same order, though it is past one store's bound.
Deno.test("shopping orders: a purchase_amount as large as the sum of the estimates is taken, as its default is", () =>
  withTestEnv(async (t) => {
    const b = await shoppingBusiness(t);
    const stores = [store("0", 1), store("1", 1)].map((s) => ({
      ...s,
      estimated_amount: 600_000_000,
    }));
    const given = orderBody("ORD-FLOAT", { shopping: { stores } }, {
      purchase_amount: 1_200_000_000,
    });
    const r = await createOrder(t, b.api_key, given);
    assert.equal(r.status, 201, JSON.stringify(r.body).slice(0, 300));
    assert.equal(r.body.data.float.purchase_amount, 1_200_000_000);
    const byDefault = await createOrder(
      t,
      b.api_key,
      orderBody("ORD-FLOAT-2", { shopping: { stores } }),
    );
    assert.equal(byDefault.body.data.float.purchase_amount, 1_200_000_000);
    const lower = await createOrder(t, b.api_key, {
      ...given,
      purchase_amount: 1_199_999_999.99,
      shopping: { ...given.shopping, external_order_id: "ORD-FLOAT-3" },
    });
    assert.equal(lower.status, 422);
    assert.equal(lower.body.errors[0].path, "purchase_amount");
  }));

/** Store 1 of an order: 200 lines, long names and barcodes, images `bulk` long, the last `last`. */
function bigStoreOrder(id: string, size: { bulk: number; last: number }, preference = "refund") {
  const body = orderBody(id, { shopping: { substitution_preference: preference } });
  const big = store("big", 200);
  big.items = big.items.map((item, i) => ({
    ...item,
    name: `${"n".repeat(190)} ${i}`,
    barcode: "6".repeat(64),
    image: `https://cdn.example.com/${"p".repeat(i === 199 ? size.last : size.bulk)}`,
  }));
  body.shopping.stores[1] = big;
  return body;
}

/** The largest n in [from, to) for which `fits(n)`, found by halving (fits(from) holds). */
function largest(from: number, to: number, fits: (n: number) => boolean): number {
  while (to - from > 1) {
    const n = Math.floor((from + to) / 2);
    if (fits(n)) from = n;
    else to = n;
  }
  return from;
}

/** The sizes at which the rules still take bigStoreOrder, one character short of refusing it. */
function sizeAtTheLimit() {
  const fits = (bulk: number, last: number) =>
    checkShoppingOrder(bigStoreOrder("ORD-P", { bulk, last }), "BWP").ok;
  const bulk = largest(0, 1_700, (n) => fits(n, n));
  return { bulk, last: largest(bulk, bulk + 300, (n) => fits(bulk, n)) };
}

// spec: shopping 7, 8: 1 to 200 lines a store, each line's work held with it; a store too large
// to hold is refused before anything is booked, naming it, and the order id stays free.
Deno.test("shopping orders: a store whose lines cannot be held with the shopper's work is 422 naming its items, at the limit exactly; nothing booked, the id free", () =>
  withTestEnv(async (t) => {
    const b = await shoppingBusiness(t, "100000.00");
    const size = sizeAtTheLimit();
    assert.ok(
      size.bulk > 0 && size.last < size.bulk + 300,
      `within the image's range: ${JSON.stringify(size)}`,
    );
    const before = await balanceOf(t, b.api_key);
    const past = await createOrder(
      t,
      b.api_key,
      bigStoreOrder("ORD-BIG", { ...size, last: size.last + 1 }, "ask"),
    );
    assert.equal(past.status, 422, JSON.stringify(past.body).slice(0, 300));
    assert.equal(past.body.code, "validation_failed");
    assert.equal(past.body.errors[0].path, "shopping.stores.1.items");
    assert.ok(past.body.message.includes("shopping.stores.1.items"), past.body.message);
    assert.deepEqual(await balanceOf(t, b.api_key), before);
    // At the limit it is taken, under the same order id (left free), and every line can wait
    // for the customer with the longest substitute the shopper may give.
    const at = await createOrder(t, b.api_key, bigStoreOrder("ORD-BIG", size, "ask"));
    assert.equal(at.status, 201, JSON.stringify(at.body).slice(0, 300));
    const [, big] = await storeIdsOf(t, b.id, at.body.data.reference);
    for (let i = 0; i < 200; i++) {
      await recordLine(t, b.id, big!, `big-${i}`, {
        outcome: "substituted",
        qty_found: 2,
        unit_price_paid_minor: 99_999_999_999,
        substitute: { name: '"'.repeat(200), barcode: "\\".repeat(64), unit_price_minor: 1 },
      });
    }
  }));

/** spec: business 7 (shopping 1.4, 5): each name, address, item and note of 2.2, marked. */
const MARKED: readonly [string, (b: Body) => void][] = [
  ["recipient_first_names", (b) => b.recipient_first_names = "[TEST] Neo"],
  ["recipient_surname", (b) => b.recipient_surname = "TEST ORDER Kgosi"],
  ["pickup_address", (b) => b.pickup_address = "__TEST Game City"],
  ["dest_address", (b) => b.dest_address = "DO NOT DELIVER Block 8"],
  ["notes", (b) => (b as { notes?: string }).notes = "[test] leave at the gate"],
  ["shopping.stores.1.items.1.name", (b) => b.shopping.stores[1]!.items[1]!.name = "__TEST milk"],
  // The store's name is shown to the shopper (2.2), who goes there: a name like any other.
  ["shopping.stores.0.store_name", (b) => b.shopping.stores[0]!.store_name = "[TEST] Spar"],
];

Deno.test("shopping orders: live refuses a test marker in any name, address, item or note, naming the body's own field; nothing charged, the id free", () =>
  withTestEnv(async (t) => {
    assert.equal(t.env.name, "live");
    const b = await shoppingBusiness(t);
    const before = await balanceOf(t, b.api_key);
    for (const [path, mark] of MARKED) {
      const body = orderBody("ORD-MARK");
      mark(body);
      const r = await createOrder(t, b.api_key, body);
      assert.equal(r.status, 422, `${path}: ${JSON.stringify(r.body).slice(0, 300)}`);
      assert.equal(r.body.code, "test_booking_refused", path);
      assert.equal(r.body.path, path);
      assert.ok(r.body.message.includes(path), r.body.message);
    }
    assert.deepEqual(await balanceOf(t, b.api_key), before);
    const fine = await createOrder(t, b.api_key, orderBody("ORD-MARK"));
    assert.equal(fine.status, 201, JSON.stringify(fine.body).slice(0, 300));
  }));

Deno.test("shopping orders: live refuses test and dry_run (422 test_mode_moved_to_sandbox) before anything is booked; the sandbox ignores them", async () => {
  await withTestEnv(async (t) => {
    const b = await shoppingBusiness(t);
    const before = await balanceOf(t, b.api_key);
    for (const flag of [{ test: true }, { dry_run: true }]) {
      const r = await createOrder(t, b.api_key, orderBody("ORD-FLAG", {}, flag));
      assert.equal(r.status, 422, `${JSON.stringify(flag)}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.code, "test_mode_moved_to_sandbox");
      assert.ok(r.body.message.includes(Object.keys(flag)[0]!), r.body.message);
    }
    assert.deepEqual(await balanceOf(t, b.api_key), before);
    const fine = await createOrder(t, b.api_key, orderBody("ORD-FLAG"));
    assert.equal(fine.status, 201, JSON.stringify(fine.body).slice(0, 300));
  });
  await withTestEnv(async (t) => {
    const b = await shoppingBusiness(t);
    const r = await createOrder(t, b.api_key, orderBody("ORD-FLAG", {}, { test: true }));
    assert.equal(r.status, 201, JSON.stringify(r.body).slice(0, 300));
  }, { name: "sandbox" });
});
