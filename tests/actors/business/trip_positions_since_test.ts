// deno-lint-ignore-file no-explicit-any
/**
 * From when a trip shows its driver's positions (Business API 2.4, 3.1; tenant isolation), pure:
 * decided at acceptance, after the driver last gave up a trip (maybe another business's, at its
 * customer's door), else from the acceptance; a trip stored before it was kept, from its acceptance.
 */
import assert from "node:assert/strict";
import { tripActor } from "../../../actors/business/trip/mod.ts";
import { booked, DRIVER } from "./trip_fixtures.ts";

Deno.test("trip positions_since: the acceptance records the time it was given, never later than itself", () => {
  const h = booked();
  assert.equal(h.state.trip.positions_since, null, "no driver yet");
  h.now = 5_000;
  const step = h.must({ kind: "accept", driver: DRIVER, positions_since: 4_001 });
  assert.equal(step.events[0].positions_since, 4_001);
  assert.equal(h.state.trip.positions_since, 4_001);
  assert.deepEqual(h.replayed(), h.state);

  const ahead = booked();
  ahead.now = 5_000;
  ahead.must({ kind: "accept", driver: DRIVER, positions_since: 9_000 });
  assert.equal(ahead.state.trip.positions_since, 5_000);
});

Deno.test("trip positions_since: without a last release, from the acceptance; given back, none", () => {
  const h = booked();
  h.now = 5_000;
  h.must({ kind: "accept", driver: DRIVER });
  assert.equal(h.state.trip.positions_since, 5_000);
  h.must({
    kind: "withdraw",
    driver_id: DRIVER.id,
    reason: "flat tyre",
    dispatch_window_ms: 15 * 60_000,
  });
  assert.equal(h.state.trip.positions_since, null, "given back: no one's trip");
  assert.deepEqual(h.replayed(), h.state);
});

Deno.test("trip positions_since: a trip or an acceptance stored before it was kept shows none before its acceptance", () => {
  const h = booked();
  h.now = 5_000;
  h.must({ kind: "accept", driver: DRIVER, positions_since: 1 });
  const { positions_since: _, ...old } = h.state.trip;
  const loaded: any = tripActor.load!({ ...h.state, trip: old }, 1);
  assert.equal(loaded.trip.positions_since, 5_000);
  const unaccepted = booked();
  const { positions_since: __, ...fresh } = unaccepted.state.trip;
  assert.equal(
    (tripActor.load!({ ...unaccepted.state, trip: fresh }, 1) as any).trip
      .positions_since,
    null,
  );
  const event = { kind: "trip_accepted", at: 7_000, driver: DRIVER, acceptance: 1 } as const;
  const evolved: any = tripActor.evolve(unaccepted.state, event as any);
  assert.equal(evolved.trip.positions_since, 7_000);
});
