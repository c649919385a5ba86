import assert from "node:assert/strict";
import { ActorHarness } from "../../helpers/actor.ts";
import {
  EXTERNAL_ORDER_INDEX,
  shoppingOrderActor,
  type ShoppingOrderCommand,
} from "../../../actors/shopping/order.ts";
import {
  BASKET_WEBHOOK_OUTBOX,
  ORDER_BOOKING_STALL_MS,
  ORDER_STALL_TIMER,
  ORDER_STALLED_OUTBOX,
} from "../../../src/shopping/rules/events.ts";

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

Deno.test("shopping order actor: each finished store recorded once; the last collects the basket and reconciles the float", () => {
  const h = new ActorHarness(shoppingOrderActor);
  const two = {
    ...CLAIM,
    stores: [CLAIM.stores[0]!, { ...CLAIM.stores[0]!, external_fulfilment_id: "F2" }],
  };
  const claimed = h.must(two).reply!;
  const [a, b] = claimed.stores.map((s) => s.store_id);
  const line = {
    external_item_id: "L1",
    qty: 2,
    unit_price_minor: 1_000,
    outcome: "found" as const,
    qty_found: 2,
  };
  const finished = {
    store_id: a!,
    status: "collected" as const,
    estimated_amount_minor: 4_000,
    collected_amount_minor: 2_150,
    lines: [line],
  };
  h.refused({ kind: "record_store", store: finished }, "not_found");
  h.must({ kind: "booked" });
  h.refused(
    { kind: "record_store", store: { ...finished, status: "pending" } },
    "store_not_finished",
  );
  h.refused({ kind: "record_store", store: { ...finished, store_id: "x.9" } }, "not_found");
  h.refused({ kind: "record_settlement", transaction_id: null }, "basket_not_collected");
  const first = h.must({ kind: "record_store", store: finished });
  assert.deepEqual(first.events.map((e) => e.kind), ["store_recorded"]);
  assert.equal(first.reply?.basket ?? null, null);
  // A second handling of the same item records nothing more.
  assert.deepEqual(h.must({ kind: "record_store", store: finished }).events, []);
  h.now = 7_000;
  const last = h.must({
    kind: "record_store",
    store: {
      ...finished,
      store_id: b!,
      status: "unavailable",
      collected_amount_minor: null,
      lines: [{ ...line, outcome: "unavailable", qty_found: 0 }],
    },
  });
  assert.deepEqual(last.events.map((e) => e.kind), ["store_recorded", "basket_collected"]);
  assert.deepEqual(last.reply?.basket?.reconciliation, {
    purchase_minor: 5_000,
    estimated_minor: 8_000,
    spent_minor: 2_150,
    difference_minor: -5_850,
    float_returned_minor: 2_850,
    refund_minor: 2_000,
    charge_minor: 2_150,
  });
  assert.equal(last.reply?.basket?.collected_at, 7_000);
  // spec: business 6: the basket's business webhook is handed over in the commit that collects it.
  const outbox = last.events.map((e) => shoppingOrderActor.outbox!(e, h.state));
  assert.deepEqual(outbox, [[], [{
    outbox: BASKET_WEBHOOK_OUTBOX,
    payload: { business_id: "biz_1", order_reference: "BK-1" },
  }]]);
  const eventId = last.reply?.basket?.event_id;
  assert.ok(eventId);
  h.must({ kind: "record_settlement", transaction_id: "wtx_1" });
  assert.deepEqual(h.must({ kind: "record_settlement", transaction_id: "wtx_2" }).events, []);
  assert.deepEqual(h.state?.basket?.settlement, { transaction_id: "wtx_1", at: 7_000 });
  assert.equal(h.state?.basket?.event_id, eventId, "the basket's event id is kept");
  assert.deepEqual(h.replayed(), h.state);
});

Deno.test("shopping order actor: a stalled booking is handed to the sweep; a trip claim it let through is never released, and one released never charges", () => {
  const h = new ActorHarness(shoppingOrderActor, { now: 0 });
  const claimed = h.must(CLAIM);
  assert.deepEqual(claimed.timers, [
    { op: "set", name: ORDER_STALL_TIMER, at: ORDER_BOOKING_STALL_MS },
  ]);
  const claimId = claimed.reply!.claim_id;
  h.now = ORDER_BOOKING_STALL_MS;
  const stalled = h.fire(ORDER_STALL_TIMER);
  assert.deepEqual(stalled.events, [{ kind: "order_booking_stalled", at: ORDER_BOOKING_STALL_MS }]);
  assert.deepEqual(stalled.timers, [
    { op: "set", name: ORDER_STALL_TIMER, at: 2 * ORDER_BOOKING_STALL_MS },
  ]);
  assert.deepEqual(stalled.events.map((e) => shoppingOrderActor.outbox!(e, h.state)), [[{
    outbox: ORDER_STALLED_OUTBOX,
    payload: { business_id: "biz_1", reference: "BK-1" },
  }]]);
  // The trip's claim 7 was let through after the sweep looked (and saw none): it stands.
  h.must({ kind: "confirm_claim", claim_id: claimId, claimed_at: 7 });
  assert.deepEqual(
    h.must({ kind: "release_stalled", claim_id: claimId, claimed_at: null }).events,
    [],
  );
  assert.equal(h.state?.phase, "booking");
  // That claim was released (a refused charge) and the sweep saw it: the order id is freed.
  h.must({ kind: "release_stalled", claim_id: claimId, claimed_at: 7 });
  assert.equal(h.state, null);
  assert.deepEqual(h.indexes(), []);
  h.refused({ kind: "confirm_claim", claim_id: claimId, claimed_at: 9 }, "shopping_order_released");
  // A newer claim of the reference is not the old booking's.
  const next = h.must(CLAIM).reply!;
  h.refused({ kind: "confirm_claim", claim_id: claimId, claimed_at: 9 }, "shopping_order_released");
  h.must({ kind: "booked" });
  assert.deepEqual(
    h.must({ kind: "confirm_claim", claim_id: next.claim_id, claimed_at: 9 }).events,
    [],
  );
  assert.deepEqual(h.replayed(), h.state);
});
