/**
 * Shopping 3 on the driver app (CONTRACT "Driver app": "a replay answers the first answer"): a
 * shopper's line, collection or unavailable store replayed once the trip was collected still
 * answers as it first did; another driver sending the same key is answered as today (404).
 */
import assert from "node:assert/strict";
import { acceptAs, act, pngFile } from "../../helpers/driver_trips.ts";
import { createPoolDriver } from "../../helpers/pool_drivers.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import { createOrder, orderBody, shoppingBusiness } from "./shopping_fixtures.ts";

Deno.test("shopper replays: each action replayed after the trip was collected answers its first answer; another driver's same key is not found", () =>
  withTestEnv(async (t) => {
    const b = await shoppingBusiness(t);
    const r = await createOrder(t, b.api_key, orderBody("ORD-REPLAY", { stores: 2, lines: 1 }));
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const reference = r.body.data.reference as string;
    const driver = await createPoolDriver(t);
    await acceptAs(t, b.id, reference, driver.id);
    const store = (n: string) => `/driver/shopping/${reference}/stores/F-${n}`;
    const post = (token: string, path: string, body: Record<string, unknown> | FormData) =>
      t.call("POST", path, { bearer: token, body });
    const found = { idempotency_key: "k1", outcome: "found", qty_found: 2, unit_price_paid: 10 };
    const receipt = () => {
      const f = new FormData();
      f.set("idempotency_key", "c1");
      f.set("collected_amount", "20.00");
      f.set("receipt_photo", pngFile("receipt.png"));
      return f;
    };
    const actions: [string, () => Record<string, unknown> | FormData][] = [
      [`${store("0")}/items/0-0`, () => found],
      [`${store("0")}/collect`, receipt],
      [`${store("1")}/unavailable`, () => ({ idempotency_key: "u1" })],
    ];
    const firsts = [];
    for (const [path, body] of actions) {
      const first = await post(driver.token, path, body());
      assert.equal(first.status, 200, `${path}: ${JSON.stringify(first.body)}`);
      firsts.push(first.body.data);
    }
    const trip = { reference, driver };
    assert.equal((await act(t, trip, "arrive_pickup")).status, 200);
    const picked = await act(t, trip, "pick_up", { force_reason: "no label on the bag" });
    assert.equal(picked.body.data?.status, "active", JSON.stringify(picked.body));
    for (const [n, [path, body]] of actions.entries()) {
      const replay = await post(driver.token, path, body());
      assert.equal(replay.status, 200, `${path}: ${JSON.stringify(replay.body)}`);
      assert.deepEqual(replay.body.data, firsts[n], path);
    }
    const other = await createPoolDriver(t);
    const theirs = await post(other.token, `${store("0")}/items/0-0`, found);
    assert.equal(theirs.status, 404);
  }));

Deno.test("shopper replays: an idempotency_key reused for another line or body is refused 409, changing nothing", () =>
  withTestEnv(async (t) => {
    const b = await shoppingBusiness(t);
    const r = await createOrder(t, b.api_key, orderBody("ORD-REUSE", { stores: 1, lines: 2 }));
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const reference = r.body.data.reference as string;
    const driver = await createPoolDriver(t);
    await acceptAs(t, b.id, reference, driver.id);
    const item = (n: string, body: Record<string, unknown>) =>
      t.call("POST", `/driver/shopping/${reference}/stores/F-0/items/0-${n}`, {
        bearer: driver.token,
        body: { outcome: "found", qty_found: 2, unit_price_paid: 10, ...body },
      });
    const first = await item("0", { idempotency_key: "k1" });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    // Another line under the first line's key is no replay: never answered as the first.
    const other = await item("1", { idempotency_key: "k1" });
    assert.equal(other.status, 409, JSON.stringify(other.body));
    assert.equal(other.body.code, "reference_conflict");
    assert.match(other.body.message, /k1/);
    const price = await item("0", { idempotency_key: "k1", unit_price_paid: 11 });
    assert.equal(price.status, 409, JSON.stringify(price.body));
    const replay = await item("0", { idempotency_key: "k1" });
    assert.deepEqual(replay.body.data, first.body.data, "the same request is its replay");
    const view = await t.call("GET", `/driver/shopping/${reference}`, { bearer: driver.token });
    const lines = view.body.data.stores[0].items;
    assert.equal(
      lines.find((l: { external_item_id: string }) => l.external_item_id === "0-1")
        .outcome,
      "pending",
      "the other line recorded nothing",
    );
    const second = await item("1", { idempotency_key: "k2" });
    assert.equal(second.status, 200, JSON.stringify(second.body));
  }));
