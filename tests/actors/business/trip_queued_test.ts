// deno-lint-ignore-file no-explicit-any
/**
 * The queued trip (Business API 3.1 queued), pure: a trip that ends or is given back frees its
 * driver through the release outbox; the driver freed of the trip under way moves the queued one
 * up and hands it to the start outbox; the queued trip then starts (queued to accepted), once.
 */
import assert from "node:assert/strict";
import { poolDriverActor } from "../../../actors/business/pool_driver.ts";
import { tripActor } from "../../../actors/business/trip/mod.ts";
import {
  BATCH_HOLD_OUTBOX,
  BATCH_START_OUTBOX,
  DRIVER_RELEASE_OUTBOX,
  QUEUED_START_OUTBOX,
} from "../../../src/business/rules/driver_holding.ts";
import { ActorHarness, kinds } from "../../helpers/actor.ts";
import { booked, DRIVER, FORCED, PROOF, webhooks } from "./trip_fixtures.ts";

const KEY = "biz_1:BK-0000000001";

/** The outbox items the events of one step add, as [outbox, payload]. */
function outboxOf(h: ActorHarness<any, any, any, any>, events: readonly any[]) {
  return events.flatMap((e) =>
    h.def.outbox!(e, h.state).map((a: any) => [a.outbox, a.payload] as const)
  );
}

const releases = (h: ActorHarness<any, any, any, any>, events: readonly any[]) =>
  outboxOf(h, events).filter(([o]) => o === DRIVER_RELEASE_OUTBOX).map(([, p]) => p);

function queued() {
  const h = booked();
  h.must({ kind: "accept", driver: DRIVER, queued: true });
  assert.equal(h.state.trip.status, "queued");
  return h;
}

Deno.test("trip queued: starts as its driver's current trip, once, with no second trip.accepted", () => {
  const h = queued();
  h.refused({ kind: "start", driver_id: "pdr_other" }, "not_found");
  h.refused({ kind: "arrive", driver_id: DRIVER.id }, "invalid_transition");
  h.now = 5_000;
  const step = h.must({ kind: "start", driver_id: DRIVER.id });
  assert.deepEqual(kinds(step.events), ["trip_started"]);
  assert.equal(h.state.trip.status, "accepted");
  assert.equal(h.state.trip.accepted_at, 1_000, "accepted when the driver accepted it");
  // spec: business 3.1: trip.accepted went when the driver accepted it; none names this moment.
  assert.deepEqual(webhooks(h, step.events), []);
  assert.deepEqual(kinds(h.must({ kind: "start", driver_id: DRIVER.id }).events), []);
  h.must({ kind: "arrive", driver_id: DRIVER.id });
  assert.deepEqual(h.replayed(), h.state);
});

Deno.test("trip queued: kept unstarted while queued, started when it becomes the driver's; a trip accepted outright starts at acceptance", () => {
  const h = queued();
  assert.equal(h.state.trip.started_at, null);
  h.now = 5_000;
  h.must({ kind: "start", driver_id: DRIVER.id });
  assert.equal(h.state.trip.started_at, 5_000);
  assert.deepEqual(h.replayed(), h.state);
  const outright = booked();
  outright.must({ kind: "accept", driver: DRIVER });
  assert.equal(outright.state.trip.started_at, outright.state.trip.accepted_at);
  outright.must({
    kind: "withdraw",
    driver_id: DRIVER.id,
    reason: "flat tyre",
    dispatch_window_ms: 15 * 60_000,
  });
  assert.equal(outright.state.trip.started_at, null, "given back: no one's trip");
});

Deno.test("trip queued: started in the millisecond it was accepted, it starts after its acceptance", () => {
  const h = queued();
  const step = h.must({ kind: "start", driver_id: DRIVER.id });
  assert.deepEqual(step.events, [{ kind: "trip_started", at: 1_001 }]);
  assert.ok(h.state.trip.started_at > h.state.trip.accepted_at, "read as once queued");
  assert.deepEqual(h.replayed(), h.state);
});

const batchStarts = (h: ActorHarness<any, any, any, any>, events: readonly any[]) =>
  outboxOf(h, events).filter(([o]) => o === BATCH_START_OUTBOX).map(([, p]) => p);

Deno.test("trip queued: a batch's stop its driver holds that starts hands its batch and driver to the start outbox; a stop given queued hands itself", () => {
  const batch = (position: number) => ({ id: "bat_1", position, stops: 3 });
  const first = booked({ batch: batch(1) });
  const queuedFirst = first.must({ kind: "accept", driver: DRIVER, queued: true });
  assert.deepEqual(batchStarts(first, queuedFirst.events), []);
  first.now = 5_000;
  const started = first.must({ kind: "start", driver_id: DRIVER.id });
  assert.deepEqual(batchStarts(first, started.events), [{
    business_id: "biz_1",
    batch_id: "bat_1",
    driver_id: DRIVER.id,
  }]);

  const other = booked({ batch: batch(2) });
  const given = other.must({ kind: "accept", driver: DRIVER, queued: true });
  assert.deepEqual(batchStarts(other, given.events), [
    { business_id: "biz_1", batch_id: "bat_1", stop: other.state.trip.reference },
  ]);
  // Started with the batch: it starts no others.
  const withBatch = other.must({ kind: "start", driver_id: DRIVER.id, with_batch: true });
  assert.deepEqual(withBatch.events, [{ kind: "trip_started", at: 1_001, with_batch: true }]);
  assert.deepEqual(batchStarts(other, withBatch.events), []);
  assert.deepEqual(other.replayed(), other.state);
  // The next stop, holding the driver once the first left in the queue, starts the others too.
  const next = booked({ batch: batch(2) });
  next.must({ kind: "accept", driver: DRIVER, queued: true });
  assert.deepEqual(
    batchStarts(next, next.must({ kind: "start", driver_id: DRIVER.id }).events),
    [{ business_id: "biz_1", batch_id: "bat_1", driver_id: DRIVER.id }],
  );

  // Not queued behind another trip (the batch as before), or no batch: nothing to start.
  const outright = booked({ batch: batch(1) });
  assert.deepEqual(
    batchStarts(outright, outright.must({ kind: "accept", driver: DRIVER }).events),
    [],
  );
  const follows = booked({ batch: batch(2) });
  assert.deepEqual(
    batchStarts(follows, follows.must({ kind: "accept", driver: DRIVER }).events),
    [],
  );
  const single = queued();
  assert.deepEqual(
    batchStarts(single, single.must({ kind: "start", driver_id: DRIVER.id }).events),
    [],
  );
});

const holds = (h: ActorHarness<any, any, any, any>, events: readonly any[]) =>
  outboxOf(h, events).filter(([o]) => o === BATCH_HOLD_OUTBOX || o === DRIVER_RELEASE_OUTBOX);

Deno.test("trip queued: a batch's stop cancelled in the queue, given back, or ended once started passes its driver's hold on", () => {
  const stop = (position: number) => booked({ batch: { id: "bat_1", position, stops: 3 } });
  const hold = (h: ActorHarness<any, any, any, any>) => [BATCH_HOLD_OUTBOX, {
    business_id: "biz_1",
    batch_id: "bat_1",
    driver_id: DRIVER.id,
    stop: h.state.trip.reference,
  }];
  const cancelled = stop(1);
  cancelled.must({ kind: "accept", driver: DRIVER, queued: true });
  const c = cancelled.must({ kind: "cancel", by: "business", reason: null });
  assert.deepEqual(holds(cancelled, c.events), [hold(cancelled)]);

  const given = stop(2);
  given.must({ kind: "accept", driver: DRIVER, queued: true });
  const back = given.must({
    kind: "withdraw",
    driver_id: DRIVER.id,
    reason: "van full",
    dispatch_window_ms: 15 * 60_000,
  });
  assert.deepEqual(holds(given, back.events), [hold(given)]);

  // Started, the driver still carries the batch's other stops (spec: business 3.2): the hold
  // passes to the next one they carry, released only when none is left (the handler looks).
  const started = stop(1);
  started.must({ kind: "accept", driver: DRIVER, queued: true });
  started.must({ kind: "start", driver_id: DRIVER.id });
  const s = started.must({ kind: "cancel", by: "business", reason: null });
  assert.deepEqual(holds(started, s.events), [hold(started)]);
});

Deno.test("trip queued: a trip stored before its start was kept starts at its acceptance, unless still queued", () => {
  const stored = (status: string) => {
    const { started_at: _, ...trip } = { ...booked().state.trip, status, accepted_at: 1_000 };
    return tripActor.load!({ phase: "booked", trip, fingerprint: "fp" }, 1) as any;
  };
  assert.equal(stored("accepted").trip.started_at, 1_000);
  assert.equal(stored("queued").trip.started_at, null);
});

Deno.test("trip queued: a trip cancelled while queued is not started", () => {
  const h = queued();
  h.must({ kind: "cancel", by: "business", reason: null });
  assert.deepEqual(kinds(h.must({ kind: "start", driver_id: DRIVER.id }).events), []);
  assert.equal(h.state.trip.status, "cancelled");
});

Deno.test("trip queued: a delivery, a completed return, a cancellation and a giving back each release the driver", () => {
  const driver = { driver_id: DRIVER.id, trip: KEY };
  const delivered = booked();
  delivered.must({ kind: "accept", driver: DRIVER });
  assert.deepEqual(releases(delivered, delivered.must({ kind: "arrive" }).events), []);
  delivered.must(FORCED);
  assert.deepEqual(releases(delivered, delivered.must(PROOF).events), [driver]);

  const returned = booked();
  returned.must({ kind: "accept", driver: DRIVER });
  returned.must({ kind: "arrive" });
  returned.must(FORCED);
  assert.deepEqual(releases(returned, returned.must({ kind: "fail", reason: "away" }).events), []);
  assert.deepEqual(releases(returned, returned.must({ kind: "complete_return" }).events), [driver]);

  const cancelled = queued();
  const step = cancelled.must({ kind: "cancel", by: "business", reason: null });
  assert.deepEqual(releases(cancelled, step.events), [driver]);
  const never = booked();
  const unheld = never.must({ kind: "cancel", by: "business", reason: null });
  assert.deepEqual(releases(never, unheld.events), [], "no driver held it");

  const given = booked();
  given.must({ kind: "accept", driver: DRIVER });
  const back = given.must({
    kind: "withdraw",
    driver_id: DRIVER.id,
    reason: "flat tyre",
    dispatch_window_ms: 15 * 60_000,
  });
  assert.deepEqual(releases(given, back.events), [driver]);
});

function poolDriver(): ActorHarness<any, any, any, any> {
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
  h.must({ kind: "take", trip: "biz:A" });
  h.must({ kind: "take", trip: "biz:B" });
  return h;
}

Deno.test("pool driver: the trip under way released moves the queued one up and hands it to the start outbox", () => {
  const h = poolDriver();
  const step = h.must({ kind: "release", trip: "biz:A" });
  assert.deepEqual(kinds(step.events), ["trip_released", "queued_moved_up"]);
  assert.equal(h.state.current, "biz:B");
  assert.deepEqual(outboxOf(h, step.events), [
    [QUEUED_START_OUTBOX, { driver_id: "pdr_1", trip: "biz:B" }],
  ]);
  // A second release (the outbox's sweep after a crash) changes nothing and starts nothing.
  assert.deepEqual(kinds(h.must({ kind: "release", trip: "biz:A" }).events), []);
  assert.deepEqual(h.replayed(), h.state);
});

Deno.test("pool driver: the queued trip released leaves the trip under way and starts nothing", () => {
  const h = poolDriver();
  const step = h.must({ kind: "release", trip: "biz:B" });
  assert.deepEqual(kinds(step.events), ["trip_released"]);
  assert.equal(h.state.current, "biz:A");
  assert.equal(h.state.queued, null);
  assert.deepEqual(outboxOf(h, step.events), []);
});
