/**
 * A batch's stop prices (Business API 2.3, 4.2): kept once, so every booking of the batch's stops
 * reads the prices the batch answered; keeping again (a retry of the same keep) changes nothing.
 */
import assert from "node:assert/strict";
import { batchPricesActor, type StopPrice } from "../../../actors/business/batch_prices.ts";
import { ActorHarness } from "../../helpers/actor.ts";

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
