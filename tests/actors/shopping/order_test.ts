import assert from "node:assert/strict";
import { ActorHarness } from "../../helpers/actor.ts";
import {
  EXTERNAL_ORDER_INDEX,
  shoppingOrderActor,
  type ShoppingOrderCommand,
} from "../../../actors/shopping/order.ts";

const CLAIM: Extract<ShoppingOrderCommand, { kind: "claim" }> = {
  kind: "claim",
  order: {
    business_id: "biz_1",
    reference: "BK-1",
    fingerprint: "f1",
    external_order_id: 42,
    external_reference: "42",
    external_location_id: null,
    substitution_preference: "ask",
    recipient: { first_names: "Neo", surname: "Kgosi", phone: "+26771234567" },
    currency: "BWP",
    purchase_amount_minor: 5_000,
    estimated_amount_minor: 4_000,
    payment_method: null,
  },
  stores: [{
    external_fulfilment_id: "F1",
    external_store_id: "S1",
    store_name: null,
    sequence: 1,
    estimated_amount_minor: 4_000,
    lines: 1,
  }],
};

Deno.test("shopping order actor: a claim takes the external order id; a repeat answers the same claim", () => {
  const h = new ActorHarness(shoppingOrderActor);
  const first = h.must(CLAIM);
  assert.equal(first.reply?.phase, "booking");
  assert.equal(first.reply?.stores[0]?.store_id, `${first.reply?.claim_id}.0`);
  assert.deepEqual(h.indexes(), [{ index: EXTERNAL_ORDER_INDEX, key: "biz_1\n42" }]);
  const again = h.must({ ...CLAIM, order: { ...CLAIM.order, fingerprint: "other" } });
  assert.deepEqual(again.events, []);
  assert.equal(again.reply?.fingerprint, "f1", "the first claim stands; the flow compares");
  h.must({ kind: "booked" });
  assert.equal(h.state?.phase, "booked");
  assert.deepEqual(h.replayed(), h.state);
});

Deno.test("shopping order actor: a refused booking releases its own claim only, never a booked order", () => {
  const h = new ActorHarness(shoppingOrderActor);
  const claimed = h.must(CLAIM).reply!;
  assert.deepEqual(h.must({ kind: "release", claim_id: "shc_other" }).events, []);
  h.must({ kind: "release", claim_id: claimed.claim_id });
  assert.equal(h.replayed(), null);
  assert.deepEqual(h.indexes(), [], "the external order id is free again");
  const next = h.must(CLAIM).reply!;
  h.must({ kind: "booked" });
  assert.deepEqual(h.must({ kind: "release", claim_id: next.claim_id }).events, []);
  assert.equal(h.state?.phase, "booked");
  new ActorHarness(shoppingOrderActor).refused({ kind: "booked" }, "not_found", /not claimed/);
});
