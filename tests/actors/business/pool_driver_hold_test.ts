// deno-lint-ignore-file no-explicit-any
/**
 * A pool driver's holding of trips (Business API 3.1): a trip under way and one queued behind it,
 * never a third; a take the trip never confirmed goes to the settling outbox when its timer fires.
 */
import assert from "node:assert/strict";
import {
  HOLD_CONFIRM_MS,
  HOLD_OUTBOX,
  poolDriverActor,
} from "../../../actors/business/pool_driver.ts";
import { ActorHarness, kinds } from "../../helpers/actor.ts";

function driver(): ActorHarness<any, any, any, any> {
  const h = new ActorHarness(poolDriverActor, { now: 1_000 });
  h.must({
    kind: "create",
    driver: {
      id: "pdr_1",
      name: "Neo",
      phone: "+26771234567",
      vehicle_type_id: 1,
      zone_id: "gaborone",
      plate: null,
      color: null,
      token: { hash: "h", prefix: "dt_live_", created_at: 0 } as any,
    },
  });
  return h;
}

Deno.test("pool driver: holds a trip and one queued, never a third; a retried take changes nothing", () => {
  const h = driver();
  const first = h.must({ kind: "take", trip: "biz:A" });
  assert.deepEqual(first.timers, [{ op: "set", name: "hold:biz:A", at: 1_000 + HOLD_CONFIRM_MS }]);
  assert.equal(h.state.current, "biz:A");
  assert.deepEqual(kinds(h.must({ kind: "take", trip: "biz:A" }).events), []);
  h.must({ kind: "take", trip: "biz:B" });
  assert.equal(h.state.queued, "biz:B");
  h.refused({ kind: "take", trip: "biz:C" }, "driver_busy");
  // Releasing the trip under way moves the queued one up.
  h.must({ kind: "release", trip: "biz:A" });
  assert.equal(h.state.current, "biz:B");
  assert.equal(h.state.queued, null);
  assert.deepEqual(h.replayed(), h.state);
});

Deno.test("pool driver: a confirmed take is settled; an unconfirmed one goes to the settling outbox when due", () => {
  const h = driver();
  h.must({ kind: "take", trip: "biz:A" });
  h.must({ kind: "take", trip: "biz:B" });
  const confirmed = h.must({ kind: "confirm", trip: "biz:A" });
  assert.deepEqual(confirmed.timers, [{ op: "cancel", name: "hold:biz:A" }]);
  assert.deepEqual(kinds(h.fire("hold:biz:A").events), []);
  const due = h.fire("hold:biz:B");
  assert.deepEqual(kinds(due.events), ["hold_unconfirmed"]);
  assert.deepEqual(poolDriverActor.outbox!(due.events[0], h.state), [
    { outbox: HOLD_OUTBOX, payload: { driver_id: "pdr_1", trip: "biz:B" } },
  ]);
});
