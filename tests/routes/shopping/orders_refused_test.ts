/**
 * Shopping 7 "invalid shopping block (nothing is booked)": a booking refused after the order's
 * stores were opened, or one stopped between its steps and released by its sweep, leaves none of
 * their lines stored.
 */
import assert from "node:assert/strict";
import { shoppingStoreActor } from "../../../actors/shopping/store.ts";
import { tripActor } from "../../../actors/business/trip/mod.ts";
import { commandKind, failAsks } from "../../helpers/faults.ts";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { createOrder, orderBody, shoppingBusiness } from "./shopping_fixtures.ts";

/** The shopping store actors holding lines (any claim's, any business's). */
async function storesHeld(t: TestEnv): Promise<string[]> {
  const held: string[] = [];
  for await (const s of t.env.runtime.stored(shoppingStoreActor)) {
    if (s.record.state !== null) held.push(s.id);
  }
  return held;
}

// spec: shopping 7: "invalid shopping block (nothing is booked)"; business appendix 1: a refused
// booking leaves nothing. Before: each refused request kept its stores' every line (up to 20
// stores of 200) in store actors no order would ever read.
Deno.test("shopping orders: a booking refused after its stores were opened keeps none of their lines; a booked order keeps them", () =>
  withTestEnv(async (t) => {
    const b = await shoppingBusiness(t, "0");
    for (const id of ["ORD-LEFT-1", "ORD-LEFT-2"]) {
      const poor = await createOrder(t, b.api_key, orderBody(id, { stores: 3, lines: 4 }));
      assert.equal(poor.body.code, "insufficient_balance", JSON.stringify(poor.body));
    }
    assert.deepEqual(await storesHeld(t), []);
    await t.call("POST", `/operator/businesses/${b.id}/wallet`, {
      operator: true,
      body: { amount: "1000.00", currency: "BWP", reference: "fund-later" },
    });
    const made = await createOrder(t, b.api_key, orderBody("ORD-LEFT-1", { stores: 3, lines: 4 }));
    assert.equal(made.status, 201, JSON.stringify(made.body).slice(0, 300));
    assert.equal((await storesHeld(t)).length, 3);
    assert.equal(made.body.data.stores[2].items.length, 4);
  }));

Deno.test("shopping orders: a booking stopped after its stores were opened and released by the sweep keeps none of their lines", () =>
  withTestEnv(async (t) => {
    const b = await shoppingBusiness(t);
    // The process dies after the stores were opened, before the trip's claim; no retry comes.
    const stop = failAsks(t.env.runtime, commandKind("claim", tripActor.type));
    const cut = await createOrder(t, b.api_key, orderBody("ORD-STOP", { stores: 2, lines: 3 }));
    stop();
    assert.equal(cut.status, 500, JSON.stringify(cut.body));
    assert.equal((await storesHeld(t)).length, 2);
    // Past the order's stalled-booking bound (2 minutes): the sweep releases the claim.
    await t.call("POST", "/operator/clock/advance", { operator: true, body: { seconds: 121 } });
    await t.env.runtime.outboxesIdle();
    assert.deepEqual(await storesHeld(t), []);
  }));
