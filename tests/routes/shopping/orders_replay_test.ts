/**
 * POST /business/shopping-orders repeated (shopping 4 "a repeat with the same external_reference
 * replays"; Business API 7): the replay of an order whose trip was cancelled says so.
 */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { createOrder, orderBody, shoppingBusiness } from "./shopping_fixtures.ts";

Deno.test("shopping orders: the replay of an order whose trip was cancelled answers 200 with original_status cancelled and replay_terminal true; a live one's replay has neither", () =>
  withTestEnv(async (t) => {
    const b = await shoppingBusiness(t);
    const body = orderBody("ORD-RT", { stores: 1, lines: 1 });
    const made = await createOrder(t, b.api_key, body);
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.equal(made.body.data.original_status, undefined);
    const reference = made.body.data.reference;
    const live = await createOrder(t, b.api_key, body);
    assert.equal(live.status, 200, JSON.stringify(live.body));
    assert.equal(live.body.data.replayed, true);
    assert.equal(live.body.data.original_status, undefined);
    assert.equal(live.body.data.replay_terminal, undefined);
    const cancelled = await t.call("POST", `/business/trips/${reference}/cancel`, {
      key: b.api_key,
    });
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    const again = await createOrder(t, b.api_key, body);
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.data.reference, reference);
    assert.equal(again.body.data.replayed, true);
    assert.equal(again.body.data.trip.status, "cancelled");
    // spec: business 7: "replay of a cancelled delivery answers 200 with original_status:
    // cancelled and replay_terminal: true".
    assert.equal(again.body.data.original_status, "cancelled");
    assert.equal(again.body.data.replay_terminal, true);
    // A read is no replay.
    const read = await t.call("GET", `/business/shopping-orders/${reference}`, { key: b.api_key });
    assert.equal(read.body.data.replay_terminal, undefined);
  }));
