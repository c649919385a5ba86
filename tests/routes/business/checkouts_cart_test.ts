/**
 * A checkout's cart (Business API 4.1) is kept and answered as sent, up to CHECKOUT_CART_BYTES_MAX:
 * a larger one is refused naming the cart and its bound, never the store's inner record, and
 * opens nothing. A body its schema refuses also names the goods the catalogue lacks, in one 422.
 */
import assert from "node:assert/strict";
import { CHECKOUT_CART_BYTES_MAX } from "../../../src/business/rules/checkout.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import { PARCEL } from "./trips_fixtures.ts";

function checkout(cart: Record<string, unknown>) {
  return {
    cart_reference: "cart-big",
    cart,
    pickup_address: PARCEL.pickup_address,
    pickup_lat: PARCEL.pickup_lat,
    pickup_lng: PARCEL.pickup_lng,
    dest_address: PARCEL.dest_address,
    dest_lat: PARCEL.dest_lat,
    dest_lng: PARCEL.dest_lng,
    parcel_weight_kg: 3,
  };
}

/** A cart of `count` lines of about 40 bytes each. */
function cartOf(count: number) {
  return { items: Array.from({ length: count }, (_, i) => ({ name: `Item ${i}`, qty: 1 })) };
}

Deno.test("checkouts: a cart past CHECKOUT_CART_BYTES_MAX is refused too_large naming the cart and its bound; nothing is opened", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const big = cartOf(3_000);
    const size = new TextEncoder().encode(JSON.stringify(big)).length;
    assert.ok(size > CHECKOUT_CART_BYTES_MAX);
    const r = await t.call("POST", "/business/checkouts", { key: b.api_key, body: checkout(big) });
    assert.equal(r.status, 422, JSON.stringify(r.body));
    assert.equal(r.body.code, "too_large");
    assert.equal(
      r.body.message,
      `cart too large to store: ${size} bytes, max ${CHECKOUT_CART_BYTES_MAX}`,
    );
    assert.equal(r.body.limit, "CHECKOUT_CART_BYTES_MAX");
    await t.settle();
    const list = await t.call("GET", "/business/checkouts", { key: b.api_key });
    assert.deepEqual(list.body.data, []);
    // A cart just within the bound is kept as sent.
    const fits = cartOf(Math.floor(CHECKOUT_CART_BYTES_MAX / 40) - 10);
    const ok = await t.call("POST", "/business/checkouts", {
      key: b.api_key,
      body: checkout(fits),
    });
    assert.equal(ok.status, 201, JSON.stringify(ok.body).slice(0, 300));
    assert.deepEqual(ok.body.data.cart, fits);
  }));

Deno.test("checkouts: a body the schema refuses also names an unknown parcel_size and vehicle in one 422; nothing is opened", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const body = {
      ...checkout({}),
      pickup_lat: 100,
      parcel_size: "enormous",
      vehicle_type_id: 999_999,
      scheduled_at: "2000-01-01T10:00:00",
    };
    const r = await t.call("POST", "/business/checkouts", { key: b.api_key, body });
    assert.equal(r.status, 422, JSON.stringify(r.body));
    assert.equal(r.body.code, "validation_failed");
    // scheduled_at is no field of a checkout's: left out as the schema leaves it.
    assert.deepEqual(r.body.errors.map((e: { path: string }) => e.path).sort(), [
      "parcel_size",
      "pickup_lat",
      "vehicle_type_id",
    ]);
    await t.settle();
    assert.deepEqual(
      (await t.call("GET", "/business/checkouts", { key: b.api_key })).body.data,
      [],
    );
  }));
