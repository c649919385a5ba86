/** The run actor's own rules, pure (courier 3.4, 4.5): bounded state, capacity, the close rule. */
import assert from "node:assert/strict";
import {
  networkRunActor,
  type NetworkRunState,
  RUN_STATE_BUDGET,
  type RunCommand,
  STOPS_MAX,
} from "../../actors/network_run.ts";
import type { Ctx } from "../../src/runtime/actor.ts";

const ctx: Ctx = { now: Date.parse("2026-11-02T08:00:00Z"), newId: (p) => `${p}_x` };
const BIG = { grams: 10_000_000, cm3: 10_000_000_000, pieces: 100_000, cold_slots: 0 };

function apply(state: NetworkRunState, command: RunCommand) {
  const d = networkRunActor.decide(state, command, ctx);
  if (!d.ok) return { state, refused: d };
  let next = state;
  for (const e of d.events) next = networkRunActor.evolve(next, e);
  return { state: next, refused: null };
}

function created(): NetworkRunState {
  return apply(null, {
    kind: "create",
    run: {
      id: "run_1",
      courier_id: "biz_1",
      facility_id: "GBE-HUB",
      kind: "delivery",
      countries: ["BW"],
      capacity: BIG,
      vehicle: null,
      driver_id: "drv_1",
    },
    by: "test",
  }).state;
}

Deno.test("network run: stops are added until the state budget or STOPS_MAX, then refused cleanly", () => {
  let state = created();
  let added = 0;
  for (let i = 0; i < STOPS_MAX + 50; i++) {
    const r = apply(state, {
      kind: "add_stop",
      stop: {
        id: `stop_${String(i).padStart(16, "0")}`,
        kind: "deliver",
        waybill: `WB${String(i).padStart(12, "0")}`,
        work_order: null,
        country: null,
        to_country: null,
        border_post: null,
        load: { grams: 1000, cm3: 1000, pieces: 1, cold_slots: 0 },
      },
      by: "test",
    });
    if (r.refused) {
      assert.equal(r.refused.code, "run_full");
      break;
    }
    state = r.state;
    added++;
  }
  assert.ok(added >= 100, `only ${added} stops fit`);
  assert.ok(added <= STOPS_MAX);
  assert.ok(new TextEncoder().encode(JSON.stringify(state)).length <= RUN_STATE_BUDGET);
});

Deno.test("network run: a run closes only when every item has an end state", () => {
  let state = created();
  state = apply(state, {
    kind: "add_stop",
    stop: {
      id: "stop_a",
      kind: "deliver",
      waybill: "WB1",
      work_order: null,
      country: null,
      to_country: null,
      border_post: null,
      load: { grams: 1000, cm3: 1000, pieces: 1, cold_slots: 0 },
    },
    by: "t",
  }).state;
  const refused = apply(state, { kind: "close", by: "t" }).refused;
  assert.equal(refused?.code, "items_without_end_state");
  state = apply(state, { kind: "depart", by: "t" }).state;
  state = apply(state, { kind: "stop_deliver", stop_id: "stop_a", lab_handover: false, by: "t" })
    .state;
  const closed = apply(state, { kind: "close", by: "t" });
  assert.equal(closed.refused, null);
  assert.equal(closed.state?.status, "closed");
});
