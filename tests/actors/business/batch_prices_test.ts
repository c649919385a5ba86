/**
 * A batch's stop prices (Business API 2.3, 4.2): kept once, so every booking of the batch's stops
 * reads the prices the batch answered; keeping again (a retry of the same keep) changes nothing.
 */
import assert from "node:assert/strict";
import { batchPricesActor, type StopPrice } from "../../../actors/business/batch_prices.ts";
import { ActorHarness } from "../../helpers/actor.ts";
import {
  BATCH_PRICES_CHECK_MS,
  BATCH_PRICES_DUE_OUTBOX,
  BATCH_PRICES_TIMER,
} from "../../../src/business/rules/batch.ts";

const VEHICLE: StopPrice["vehicle"] = {
  parcel_size: "small",
  parcel_size_label: "Small",
  parcel_weight_min_kg: 0,
  parcel_weight_max_kg: 5,
  cargo_body_type: null,
  cargo_capacity_class: null,
  volumetric_weight_kg: null,
  vehicle_class: { id: 2, name: "Car", body_type: "closed", capacity_class: "half_ton" },
  vehicle_upgraded: false,
  vehicle_upgrade_reason: null,
};

function price(amount_minor: number): StopPrice {
  return {
    vehicle: VEHICLE,
    amount_minor,
    lines: [{ code: "base_fare", amount_minor }],
    distance_m: 1_000,
  };
}

Deno.test("batch prices: not found before kept; kept once, a second keep answers the first prices and changes nothing", () => {
  const h = new ActorHarness(batchPricesActor, { now: 5 });
  h.refused({ kind: "get" }, "not_found");
  const first = [price(6191), price(4500)];
  assert.deepEqual(h.must({ kind: "keep", stops: first }).reply, first);
  const again = h.must({ kind: "keep", stops: [price(16191)] });
  assert.deepEqual(again.events, []);
  assert.deepEqual(again.reply, first);
  assert.deepEqual(h.must({ kind: "get" }).reply, first);
  assert.deepEqual(h.state, { phase: "kept", stops: first, kept_at: 5 });
  assert.deepEqual(h.replayed(), h.state);
});

Deno.test("batch prices: kept with their owner, the sweep is handed them when their check is due; still needed they are looked at again, removed they are gone for good", () => {
  const h = new ActorHarness(batchPricesActor, { now: 5 });
  const owner = { business_id: "biz_1", batch_id: "BT-1", id: "BT-1:p" };
  const kept = h.must({ kind: "keep", stops: [price(6191)], owner });
  assert.deepEqual(kept.timers, [{
    op: "set",
    name: BATCH_PRICES_TIMER,
    at: 5 + BATCH_PRICES_CHECK_MS,
  }]);
  const due = h.fire(BATCH_PRICES_TIMER);
  assert.deepEqual(due.events.map((e) => e.kind), ["batch_prices_due"]);
  assert.deepEqual(batchPricesActor.outbox!(due.events[0]!, h.state), [
    { outbox: BATCH_PRICES_DUE_OUTBOX, payload: owner },
  ]);
  const again = h.must({ kind: "still_needed" });
  assert.deepEqual([again.events, again.timers.map((x) => x.op)], [[], ["set"]]);
  assert.deepEqual(h.must({ kind: "get" }).reply, [price(6191)]);
  assert.deepEqual(h.must({ kind: "remove" }).events.map((e) => e.kind), ["batch_prices_removed"]);
  h.refused({ kind: "get" }, "not_found");
  h.refused({ kind: "keep", stops: [price(1)], owner }, "not_found");
  assert.deepEqual(h.must({ kind: "remove" }).events, []);
  assert.deepEqual(h.fire(BATCH_PRICES_TIMER).events, []);
  assert.deepEqual(h.replayed(), h.state);
});
