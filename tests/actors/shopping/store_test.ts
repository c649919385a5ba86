import assert from "node:assert/strict";
import { ActorHarness } from "../../helpers/actor.ts";
import { shoppingStoreActor } from "../../../actors/shopping/store.ts";

Deno.test("shopping store actor: opened once with its lines pending; a retry keeps the first opening", () => {
  const h = new ActorHarness(shoppingStoreActor, { now: 1_000 });
  const store = {
    external_fulfilment_id: 7,
    external_store_id: "S1",
    store_name: "Spar",
    sequence: 1,
    estimated_amount_minor: 2_000,
    items: [{
      external_item_id: 9,
      name: "Milk",
      qty: 2,
      unit_price_minor: 1_000,
      barcode: null,
      image: null,
    }],
  };
  const ids = {
    business_id: "biz_1",
    store_id: "shc_1.0",
    substitution_preference: "ask",
  } as const;
  const opened = h.must({ kind: "open", order_reference: "BK-1", ...ids, store });
  assert.equal(opened.reply?.status, "pending");
  assert.equal(opened.reply?.substitution_preference, "ask");
  assert.deepEqual([opened.reply?.receipt_photo, opened.reply?.finished_at], [null, null]);
  assert.deepEqual(opened.reply?.lines.map((l) => [l.external_item_id, l.outcome, l.qty_found]), [
    [9, "pending", null],
  ]);
  h.now = 2_000;
  const again = h.must({
    kind: "open",
    order_reference: "BK-1",
    ...ids,
    store: { ...store, items: [] },
  });
  assert.deepEqual(again.events, []);
  assert.equal(h.state?.lines.length, 1);
  assert.equal(h.state?.opened_at, 1_000);
});
