import assert from "node:assert/strict";
import { ActorHarness } from "../../helpers/actor.ts";
import { shoppingStoreActor } from "../../../actors/shopping/store.ts";

const STORE = {
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
const IDS = {
  business_id: "biz_1",
  store_id: "shc_1.0",
  substitution_preference: "ask",
} as const;

Deno.test("shopping store actor: opened once with its lines pending; a retry keeps the first opening", () => {
  const h = new ActorHarness(shoppingStoreActor, { now: 1_000 });
  const opened = h.must({ kind: "open", order_reference: "BK-1", ...IDS, store: STORE });
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
    ...IDS,
    store: { ...STORE, items: [] },
  });
  assert.deepEqual(again.events, []);
  assert.equal(h.state?.lines.length, 1);
  assert.equal(h.state?.opened_at, 1_000);
});

// spec: shopping 7 "nothing is booked": a released claim's store drops its lines; a store the
// shopper worked on belongs to a booked order and is never dropped.
Deno.test("shopping store actor: discard drops an untouched store's lines, once; a worked store stays", () => {
  const h = new ActorHarness(shoppingStoreActor, { now: 1_000 });
  h.must({ kind: "open", order_reference: "BK-1", ...IDS, store: STORE });
  const dropped = h.must({ kind: "discard" });
  assert.deepEqual(dropped.events.map((e) => e.kind), ["store_discarded"]);
  assert.equal(h.state, null);
  assert.deepEqual(h.must({ kind: "discard" }).events, []);
  const worked = new ActorHarness(shoppingStoreActor, { now: 1_000 });
  worked.must({ kind: "open", order_reference: "BK-1", ...IDS, store: STORE });
  worked.must({
    kind: "record_line",
    external_item_id: 9,
    report: { outcome: "unavailable", qty_found: 0, unit_price_paid_minor: null, substitute: null },
    ask_timeout_ms: 60_000,
  });
  assert.deepEqual(worked.must({ kind: "discard" }).events, []);
  assert.equal(worked.state?.lines[0]?.outcome, "unavailable");
});
