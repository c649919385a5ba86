/**
 * Shopping 3 in the sandbox (Business API 4.4): the simulated driver shops through the driver
 * app's flow, so an integrator tries a substitution, a refusal and a timeout without a real shop;
 * live and another business find nothing.
 */
import assert from "node:assert/strict";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { createOrder, orderBody, shoppingBusiness } from "./shopping_fixtures.ts";

const SUBSTITUTE = {
  outcome: "substituted",
  qty_found: 1,
  unit_price_paid: 12,
  substitute: { name: "Brown bread" },
};

Deno.test("sandbox shopper: a substitution accepted, one refused, one timed out, stores collected with a placeholder receipt", () =>
  withTestEnv(async (t) => {
    const b = await shoppingBusiness(t);
    const made = await createOrder(
      t,
      b.api_key,
      orderBody("ORD-SBX", { stores: 2, lines: 2, shopping: { substitution_preference: "ask" } }),
    );
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const ref = made.body.data.reference as string;
    const step = (path: string, body: unknown = {}, key = b.api_key) =>
      t.call("POST", `/business/sandbox/shopping-orders/${ref}/${path}`, { key, body });
    const found = { outcome: "found", qty_found: 2, unit_price_paid: "10.25" };
    const before = await step("stores/F-0/items/0-0", found);
    assert.equal(before.status, 409);
    assert.equal(before.body.code, "driver_not_assigned");
    const assigned = await t.call("POST", `/business/sandbox/trips/${ref}/assign_driver`, {
      key: b.api_key,
      body: {},
    });
    assert.equal(assigned.status, 200, JSON.stringify(assigned.body));
    const other = await shoppingBusiness(t);
    assert.equal((await step("stores/F-0/items/0-0", found, other.api_key)).status, 404);

    const first = await step("stores/F-0/items/0-0", found);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.deepEqual([first.body.data.environment, first.body.data.step], ["sandbox", "item"]);
    const timedOut = await step("stores/F-0/items/0-1", SUBSTITUTE);
    assert.equal(timedOut.body.data.order.stores[0].items[1].outcome, "awaiting_decision");
    const closed = await step("items/0-1/close_decision_window");
    assert.equal(closed.status, 200, JSON.stringify(closed.body));
    const refunded = closed.body.data.order.stores[0].items[1];
    assert.deepEqual([refunded.outcome, refunded.decided_by], ["unavailable", "preference"]);
    const late = await t.call("POST", `/business/shopping-orders/${ref}/items/0-1/decision`, {
      key: b.api_key,
      body: { decision: "accept" },
    });
    assert.equal(late.body.code, "decision_window_closed");
    assert.equal(
      (await step("items/0-1/close_decision_window")).body.code,
      "not_awaiting_decision",
    );
    // No amount and no receipt: what the lines bought (2 x 10.25) and a placeholder image.
    const collected = await step("stores/F-0/collect");
    assert.equal(collected.status, 200, JSON.stringify(collected.body));
    const store0 = collected.body.data.order.stores[0];
    assert.deepEqual([store0.status, store0.collected_amount, store0.receipt_photo_received], [
      "collected",
      20.5,
      true,
    ]);

    await step("stores/F-1/items/1-0", SUBSTITUTE);
    await step("stores/F-1/items/1-1", SUBSTITUTE);
    const decide = (item: string, decision: string) =>
      t.call("POST", `/business/shopping-orders/${ref}/items/${item}/decision`, {
        key: b.api_key,
        body: { decision },
      });
    assert.equal((await decide("1-0", "accept")).status, 200);
    const rejected = await decide("1-1", "reject");
    const lines = rejected.body.data.stores[1].items;
    assert.deepEqual(
      lines.map((l: { outcome: string; decided_by: string }) => [l.outcome, l.decided_by]),
      [
        ["substituted", "customer"],
        ["unavailable", "customer"],
      ],
    );
    const store1 = await step("stores/F-1/collect", { collected_amount: 12 });
    assert.equal(store1.body.data.order.stores[1].collected_amount, 12);
    assert.equal(store1.body.data.order.float.collected_amount, 32.5);
  }, { name: "sandbox" }));

Deno.test("sandbox shopper: live refuses the steps as a missing endpoint", () =>
  withTestEnv(async (t: TestEnv) => {
    const b = await shoppingBusiness(t);
    const r = await t.call(
      "POST",
      "/business/sandbox/shopping-orders/BK-000000000000/stores/F-0/unavailable",
      {
        key: b.api_key,
        body: {},
      },
    );
    assert.equal(r.status, 404);
    assert.match(r.body.message, /sandbox base/);
  }));
