import assert from "node:assert/strict";
import fc from "fast-check";
import { checkShoppingOrder, type StoreInput } from "../../../src/shopping/rules/order.ts";

function input(stores: StoreInput[], purchase?: number) {
  return {
    recipient_first_names: "Neo",
    recipient_surname: "Kgosi",
    recipient_phone: "+26771234567",
    ...(purchase === undefined ? {} : { purchase_amount: purchase }),
    shopping: { external_order_id: 17, stores },
  };
}

function store(n: number, estimated: number): StoreInput {
  return {
    external_fulfilment_id: `F${n}`,
    external_store_id: n,
    estimated_amount: estimated,
    items: [{ external_item_id: `I${n}`, name: "Bread", qty: 1, unit_price: 1.5 }],
  };
}

Deno.test("shopping order rules: the float defaults to the exact sum of the estimates and is never lower", () => {
  fc.assert(fc.property(
    fc.array(fc.integer({ min: 0, max: 10_000_000 }), { minLength: 1, maxLength: 20 }),
    fc.integer({ min: -500, max: 500 }),
    (cents, delta) => {
      const stores = cents.map((c, i) => store(i, c / 100));
      const sum = cents.reduce((a, b) => a + b, 0);
      const byDefault = checkShoppingOrder(input(stores), "BWP");
      assert.ok(byDefault.ok);
      assert.equal(byDefault.order.purchase_amount_minor, sum);
      assert.equal(byDefault.order.estimated_amount_minor, sum);
      const purchase = Math.max(0, sum + delta);
      const given = checkShoppingOrder(input(stores, purchase / 100), "BWP");
      assert.equal(given.ok, purchase >= sum);
      if (!given.ok) assert.equal(given.error.path, "purchase_amount");
    },
  ));
});

Deno.test("shopping order rules: ids kept with their JSON type; external_reference defaults to the order id", () => {
  const r = checkShoppingOrder(input([store(1, 10), store(2, 5)]), "BWP");
  assert.ok(r.ok);
  assert.equal(r.order.external_order_id, 17);
  assert.equal(r.order.external_reference, "17");
  assert.equal(r.order.stores[0]!.external_store_id, 1);
  assert.deepEqual(r.order.stores.map((s) => s.sequence), [1, 2]);
  assert.equal(r.order.stores[0]!.items[0]!.unit_price_minor, 150);
  assert.equal(r.order.substitution_preference, "refund");
});

Deno.test("shopping order rules: the first problem in body order is named", () => {
  const a = store(1, 10), b = { ...store(2, 10), external_fulfilment_id: "F1" };
  const dup = checkShoppingOrder(input([a, b, { ...store(3, 10.001) }]), "BWP");
  assert.deepEqual(dup, {
    ok: false,
    error: {
      path: "shopping.stores.1.external_fulfilment_id",
      message:
        "external_fulfilment_id must be unique: F1 is also at shopping.stores.0.external_fulfilment_id",
    },
  });
  const cents = checkShoppingOrder(input([a, store(3, 10.001)]), "BWP");
  assert.ok(!cents.ok);
  assert.equal(cents.error.path, "shopping.stores.1.estimated_amount");
});

Deno.test("shopping order rules: lines worth more than an amount can state (their refund summed) are refused, naming the line where the total passes it", () => {
  // 1,000,000,000.00 a unit, 10,000 units: 10^15 minor units, past AMOUNT_MINOR_MAX on its own.
  const line = (id: string, qty: number) => ({
    external_item_id: id,
    name: "Gold",
    qty,
    unit_price: 1_000_000_000,
  });
  const big = (n: number, qty: number): StoreInput => ({
    external_fulfilment_id: `F${n}`,
    external_store_id: n,
    estimated_amount: 0,
    items: [line(`I${n}a`, 1), line(`I${n}b`, qty)],
  });
  const refused = checkShoppingOrder(input([store(0, 10), big(1, 10_000)]), "BWP");
  assert.ok(!refused.ok);
  assert.equal(refused.error.path, "shopping.stores.1.items.1");
  assert.match(refused.error.message, /past 9999999999999\.99 BWP/);
  // Within it (999,900,000,000,000 minor units with the other line), it is taken.
  const taken = checkShoppingOrder(input([big(1, 9_998)]), "BWP");
  assert.ok(taken.ok, JSON.stringify(taken));
});
