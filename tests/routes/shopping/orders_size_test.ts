/**
 * Shopping 8: 20 stores of 200 lines is a lawful order, and with names, barcodes and product
 * photos' URLs its body is past the common 1,000,000-byte cap: the shopping order's route takes
 * up to SHOPPING_ORDER_BODY_BYTES_MAX; past it, and past the common cap anywhere else, 413.
 */
import assert from "node:assert/strict";
import { REQUEST_BODY_BYTES_MAX, SHOPPING_ORDER_BODY_BYTES_MAX } from "../../../src/limits.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import { PARCEL } from "../business/trips_fixtures.ts";
import { orderBody, shoppingBusiness, store } from "./shopping_fixtures.ts";

/** A store of 200 lines of some 300 bytes each. */
function fullStore(i: number) {
  const s = store(String(i), 200);
  s.items = s.items.map((item, n) => ({
    ...item,
    name: `Full cream long life milk 1 litre, store ${i} line ${n}`,
    barcode: `600${String(i).padStart(3, "0")}${String(n).padStart(7, "0")}`,
    image: `https://images.example.com/products/${i}/${n}/full-cream-long-life-milk-1l.jpg?w=800`,
    sku: `SKU-${i}-${n}-MILK-1L`,
  }));
  return s;
}

Deno.test("shopping orders: 20 stores of 200 lines past the common cap are taken; past the route's cap, 413", () =>
  withTestEnv(async (t) => {
    const b = await shoppingBusiness(t);
    const full = orderBody("ORD-FULL", {
      shopping: { stores: Array.from({ length: 20 }, (_, i) => fullStore(i)) },
    });
    const text = JSON.stringify(full);
    assert.ok(text.length > REQUEST_BODY_BYTES_MAX, `${text.length} bytes`);
    const post = (path: string, body: string) =>
      t.app.request(`/api${path}`, {
        method: "POST",
        headers: { "X-Business-API-Key": b.api_key, "Content-Type": "application/json" },
        body,
      });
    const made = await post("/business/shopping-orders", text);
    assert.equal(made.status, 201, (await made.text()).slice(0, 300));
    const over = `${text.slice(0, -1)},"pad":"${"x".repeat(SHOPPING_ORDER_BODY_BYTES_MAX)}"}`;
    const refused = await post("/business/shopping-orders", over);
    assert.equal(refused.status, 413);
    assert.equal((await refused.json()).code, "payload_too_large");
    // Any other route keeps the common cap.
    const booking = JSON.stringify({ ...PARCEL, note: "x".repeat(REQUEST_BODY_BYTES_MAX) });
    assert.equal((await post("/business/book", booking)).status, 413);
  }));
