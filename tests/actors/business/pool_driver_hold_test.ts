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
import { QUEUED_START_OUTBOX } from "../../../src/business/rules/driver_holding.ts";
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

Deno.test("pool driver: a held batch stop that left passes its slot to the next stop, started at once if current; a stop not held passes nothing", () => {
  const h = driver();
  h.must({ kind: "take", trip: "a:T" });
  h.must({ kind: "take", trip: "b:S1" });
  // spec: business 2.3, 3.1 queued: the queued stop left; the next stop waits in its place.
  const queued = h.must({ kind: "pass", trip: "b:S1", to: "b:S2" });
  assert.deepEqual(kinds(queued.events), ["hold_passed"]);
  assert.deepEqual(queued.timers, [{ op: "cancel", name: "hold:b:S1" }]);
  assert.deepEqual(poolDriverActor.outbox!(queued.events[0], h.state), []);
  assert.deepEqual([h.state.current, h.state.queued, h.state.unconfirmed], ["a:T", "b:S2", [
    "a:T",
  ]]);
  // Again, or from a stop not held: nothing.
  assert.deepEqual(kinds(h.must({ kind: "pass", trip: "b:S1", to: "b:S2" }).events), []);
  assert.deepEqual(kinds(h.must({ kind: "pass", trip: "b:S3", to: "b:S4" }).events), []);
  // The trip under way ended: the stop moved up and left before it started.
  h.must({ kind: "release", trip: "a:T" });
  const current = h.must({ kind: "pass", trip: "b:S2", to: "b:S3" });
  assert.equal(h.state.current, "b:S3");
  assert.deepEqual(poolDriverActor.outbox!(current.events[0], h.state), [
    { outbox: QUEUED_START_OUTBOX, payload: { driver_id: "pdr_1", trip: "b:S3" } },
  ]);
  // To a stop held already: a release.
  h.must({ kind: "take", trip: "c:X" });
  assert.deepEqual(kinds(h.must({ kind: "pass", trip: "c:X", to: "b:S3" }).events), [
    "trip_released",
  ]);
  assert.deepEqual([h.state.current, h.state.queued], ["b:S3", null]);
  assert.deepEqual(h.replayed(), h.state);
});

Deno.test("pool driver: keeps when a held trip was last given up, released or passed on; stored before, not known", () => {
  const h = driver();
  assert.equal(h.state.released_at, 0, "never gave one up");
  h.must({ kind: "take", trip: "a:T" });
  h.must({ kind: "take", trip: "b:S1" });
  h.now = 5_000;
  h.must({ kind: "pass", trip: "b:S1", to: "b:S2" });
  assert.equal(h.state.released_at, 5_000);
  h.now = 9_000;
  h.must({ kind: "release", trip: "a:T" });
  assert.equal(h.state.released_at, 9_000);
  assert.deepEqual(h.replayed(), h.state);
  // A driver stored before releases were kept: when they last gave one up is not known.
  const { released_at: _gone, ...stored } = h.state;
  assert.equal(poolDriverActor.load!(stored, 1)!.released_at, null);
  assert.equal(poolDriverActor.load!(h.state, 1)!.released_at, 9_000);
});
