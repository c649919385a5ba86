// deno-lint-ignore-file no-explicit-any
import assert from "node:assert/strict";
import { OFFER_TIMER, tripActor, WINDOW_TIMER } from "../../../actors/business/trip/mod.ts";
import { newScanCode, RETURN_DUE_MS } from "../../../src/business/rules/driver_actions.ts";
import { BUSINESS_WEBHOOK_OUTBOX } from "../../../src/business/rules/webhook_events.ts";
import { TRIP_REFUND_OUTBOX } from "../../../src/business/rules/booking.ts";
import { ActorHarness, kinds } from "../../helpers/actor.ts";
import {
  booked,
  CHARGE,
  claimOf,
  DRIVER,
  FORCED,
  PHOTO,
  PROOF,
  SIGNATURE,
  webhooks,
} from "./trip_fixtures.ts";
import type { TripDraft } from "../../../actors/business/trip/mod.ts";

const MINUTE = 60_000;
const WINDOW = 15 * MINUTE;
/** The driver gives the trip back ("flat tyre"), under the window of WINDOW. */
const GIVE_BACK = {
  kind: "withdraw",
  driver_id: DRIVER.id,
  reason: "flat tyre",
  dispatch_window_ms: WINDOW,
} as const;

/** A trip at the pickup, its driver arrived. */
function arrived(over: Partial<TripDraft> = {}, scan_code: string | null = null) {
  const h = new ActorHarness(tripActor, { now: 1_000 }) as ActorHarness<any, any, any, any>;
  h.must({ kind: "claim", claim: claimOf(over) });
  h.must({ kind: "create", fingerprint: "fp1", id: 7, charge: CHARGE, scan_code });
  h.must({ kind: "accept", driver: DRIVER });
  h.must({ kind: "arrive", driver_id: DRIVER.id });
  return h;
}

/** The data of the webhook `event` the outbox holds for `step`'s events. */
function payloadOf(h: ActorHarness<any, any, any, any>, events: readonly any[], event: string) {
  for (const e of events) {
    for (const add of tripActor.outbox!(e, h.state)) {
      const p = add.payload as any;
      if (add.outbox === BUSINESS_WEBHOOK_OUTBOX && p.event === event) return p.data;
    }
  }
  assert.fail(`no ${event} webhook`);
}

Deno.test("trip drive: arrive_pickup said again keeps the first arrival and sends nothing; after collection it is refused", () => {
  const h = arrived();
  const first = h.state.trip.arrived_at;
  h.now += 5_000;
  assert.deepEqual(h.must({ kind: "arrive", driver_id: DRIVER.id }).events, []);
  assert.equal(h.state.trip.status, "arrived");
  assert.equal(h.state.trip.arrived_at, first);
  h.must(FORCED);
  h.refused({ kind: "arrive", driver_id: DRIVER.id }, "invalid_transition");
});

Deno.test("trip drive: another driver's trip is not found, word for word as a missing one", () => {
  const h = arrived();
  for (const kind of ["arrive", "arrive_dropoff", "complete_return"]) {
    h.refused({ kind, driver_id: "pdr_other" }, "not_found", "trip not found");
  }
  h.refused({ ...FORCED, driver_id: "pdr_other" }, "not_found", "trip not found");
  assert.equal(h.state.trip.status, "arrived");
});

Deno.test("trip drive: a custody scan matches without the hyphen and in any case", () => {
  const code = newScanCode();
  assert.match(code, /^[A-Z2-9]{4}-[A-Z2-9]{4}$/);
  const h = arrived({}, code);
  h.refused({ kind: "collect", scan_code: "ZZZZ-ZZZZ" }, "scan_mismatch");
  h.refused({ kind: "collect" }, "force_reason_required");
  const step = h.must({ kind: "collect", scan_code: code.replace("-", "").toLowerCase() });
  assert.equal(h.state.trip.scanned_at, 1_000);
  assert.equal(h.state.trip.collect_override, null);
  assert.equal(payloadOf(h, step.events, "trip.picked_up").scanned_at, "1970-01-01T00:00:01.000Z");
});

Deno.test("trip drive: a forced collection records its override and leaves scanned_at null", () => {
  const h = arrived({}, newScanCode());
  const step = h.must({ kind: "collect", force_reason: "label torn" });
  assert.equal(h.state.trip.scanned_at, null);
  assert.deepEqual(h.state.trip.collect_override, { at: 1_000, reason: "label torn" });
  const data = payloadOf(h, step.events, "trip.picked_up");
  assert.equal(data.scanned_at, null);
  assert.equal(data.collect_override_reason, "label torn");
  const without = arrived();
  without.refused({ kind: "collect", scan_code: "ABCD-EFGH" }, "force_reason_required");
});

Deno.test("trip drive: arrive_dropoff keeps status active and records when, once", () => {
  const h = arrived();
  h.refused({ kind: "arrive_dropoff" }, "invalid_transition");
  h.must(FORCED);
  h.must({ kind: "arrive_dropoff" });
  assert.equal(h.state.trip.status, "active");
  assert.equal(h.state.trip.arrived_dropoff_at, 1_000);
  h.now += 5_000;
  assert.deepEqual(h.must({ kind: "arrive_dropoff" }).events, []);
  assert.equal(h.state.trip.arrived_dropoff_at, 1_000);
});

Deno.test("trip drive: deliver refuses each missing requirement, naming it, changing nothing", () => {
  const h = arrived({
    delivery_code: "4411",
    age_verification_required: true,
    cod_amount_minor: 15_000,
  });
  h.must(FORCED);
  const full = {
    ...PROOF,
    delivery_code: "4411",
    id_checked: true,
    cod_collected_amount_minor: 15_000,
  };
  const cases: [Record<string, unknown>, string, RegExp][] = [
    [{ delivery_code: undefined }, "delivery_code_required", /delivery_code/],
    [{ delivery_code: "9999" }, "delivery_code_mismatch", /delivery_code/],
    [{ id_checked: false }, "id_check_required", /id_checked/],
    [{ proof_photo: undefined }, "proof_photo_required", /proof_photo/],
    [{ signature: undefined }, "signature_required", /signature/],
    [{ cod_collected_amount_minor: 14_000 }, "cod_amount_mismatch", /cod_collected_amount/],
  ];
  for (const [change, code, message] of cases) {
    const command: any = { ...full, ...change };
    for (const k of Object.keys(command)) if (command[k] === undefined) delete command[k];
    h.refused(command, code, message);
  }
  assert.equal(h.state.trip.status, "active");
  const done = h.must({ ...full, delivery_code: " 4411 " });
  assert.deepEqual(webhooks(h, done.events), [
    "trip.age_verified",
    "cod.collected",
    "trip.completed",
  ]);
  assert.deepEqual(h.state.trip.delivery_proof, {
    id_checked: true,
    proof_photo: PHOTO,
    signature: SIGNATURE,
    cod_collected_minor: 15_000,
  });
  assert.equal(payloadOf(h, done.events, "cod.collected").cod_collected_amount, 150);
  assert.equal(payloadOf(h, done.events, "trip.completed").delivery_outcome, "delivered");
  // spec: business 2.2, 2.4: an ended trip is no minutes away (before, the booking's estimate).
  assert.equal(payloadOf(h, done.events, "trip.completed").eta_minutes, null);
});

Deno.test("trip drive: deliver of a trip without COD refuses a collected amount, takes none or 0", () => {
  for (const [collected, ok] of [[2_500, false], [0, true], [undefined, true]] as const) {
    const h = arrived();
    h.must(FORCED);
    const command = {
      ...PROOF,
      ...(collected === undefined ? {} : { cod_collected_amount_minor: collected }),
    } as const;
    if (!ok) {
      h.refused(command, "cod_amount_mismatch", /without COD/);
      assert.equal(h.state.trip.status, "active");
      continue;
    }
    const done = h.must(command);
    assert.equal(h.state.trip.status, "completed");
    assert.ok(!webhooks(h, done.events).includes("cod.collected"));
  }
});

Deno.test("trip drive: a ride needs no proof photo nor signature", () => {
  const h = arrived({ type: "ride" });
  h.must(FORCED);
  h.must({ kind: "deliver" });
  assert.equal(h.state.trip.status, "completed");
});

Deno.test("trip drive: fail and id_refused start the return with return_due_at", () => {
  const h = arrived({ age_verification_required: true });
  h.must(FORCED);
  const refused = h.must({ kind: "refuse_id", reason: "no ID shown" });
  assert.deepEqual(webhooks(h, refused.events), ["trip.age_verification_failed"]);
  assert.equal(h.state.trip.returning, true);
  assert.equal(h.state.trip.return_due_at, 1_000 + RETURN_DUE_MS);
  const data = payloadOf(h, refused.events, "trip.age_verification_failed");
  assert.equal(data.age_verification_outcome, "refused");
  assert.equal(data.return_due_at, new Date(1_000 + RETURN_DUE_MS).toISOString());
  h.refused({ kind: "fail", reason: "again" }, "invalid_transition", /already in progress/);
  const back = h.must({ kind: "complete_return" });
  const done = payloadOf(h, back.events, "trip.completed");
  assert.equal(done.delivery_outcome, "returned");
  assert.equal(done.returned, true);
  assert.equal(done.return_reason, "age_verification_refused");
  // spec: business 3.1, 4.4: the goods are back: returned, no longer returning.
  assert.equal(h.state.trip.returning, false);
  assert.equal(done.returning, false);
  assert.equal(h.state.trip.status, "completed");
});

Deno.test("trip drive: a ride has no goods to return and ID is refused only on an age-restricted trip, each said", () => {
  const ride = arrived({ type: "ride" });
  ride.must(FORCED);
  ride.refused({ kind: "fail", reason: "no show" }, "invalid_transition", /a ride has no goods/);
  ride.refused({ kind: "refuse_id", reason: "x" }, "invalid_transition", /a ride has no goods/);
  const parcel = arrived();
  parcel.must(FORCED);
  parcel.refused({ kind: "refuse_id", reason: "x" }, "invalid_transition", /not age-restricted/);
  assert.deepEqual(webhooks(parcel, parcel.must({ kind: "fail", reason: "closed" }).events), [
    "trip.delivery_failed",
  ]);
});

Deno.test("trip drive: the driver gives the trip back within the window: pending, no driver", () => {
  const h = arrived();
  const step = h.must(GIVE_BACK);
  assert.deepEqual(kinds(step.events), ["driver_withdrew"]);
  assert.deepEqual(webhooks(h, step.events), []);
  assert.equal(h.state.trip.status, "pending");
  assert.equal(h.state.trip.driver, null);
  // spec: business 3.1: it goes to another driver: this one is not asked again for it.
  assert.deepEqual(h.state.trip.dispatch.excluded, [DRIVER.id]);
  // Another driver takes it; the one who gave it back is not its driver any more.
  h.must({ kind: "accept", driver: { ...DRIVER, id: "pdr_2" } });
  h.refused({ kind: "arrive", driver_id: DRIVER.id }, "not_found");
});

Deno.test("trip drive: the driver a trip is offered to acting before accepting is told to accept first; any other driver gets not_found", () => {
  const h = booked();
  h.must({
    kind: "offer",
    offer: { offer_id: "off_1", driver_id: DRIVER.id, expires_at: h.now + 30_000 },
    window_ends_at: h.now + WINDOW,
  });
  const before = h.state;
  for (const kind of ["arrive", "collect", "arrive_dropoff", "withdraw"]) {
    h.refused(
      { kind, driver_id: DRIVER.id, reason: "r" },
      "invalid_transition",
      /accept the offer/,
    );
    h.refused({ kind, driver_id: "pdr_2", reason: "r" }, "not_found");
  }
  h.refused({ kind: "deliver", driver_id: DRIVER.id }, "invalid_transition", /accept the offer/);
  assert.deepEqual(h.state, before, "nothing changed");
  h.must({ kind: "accept", driver: DRIVER, offer_id: "off_1" });
  h.must({ kind: "arrive", driver_id: DRIVER.id });
});

Deno.test("trip drive: given back inside the window, offered to others until it ends, then cancelled by the system and refunded", () => {
  const h = booked();
  const offer = (offer_id: string, driver_id: string) => ({
    kind: "offer",
    offer: { offer_id, driver_id, expires_at: h.now + 30_000 },
    window_ends_at: h.now + WINDOW,
  });
  h.must(offer("off_1", DRIVER.id));
  h.must({ kind: "accept", driver: DRIVER, offer_id: "off_1" });
  h.now += 2 * MINUTE;
  const back = h.must(GIVE_BACK);
  // spec: business 3.1: the acceptance cancelled the window's timer: the put-back sets it again
  // at the end of the window of the first offer, not a fresh one.
  assert.deepEqual(back.timers, [{ op: "set", name: WINDOW_TIMER, at: 1_000 + WINDOW }]);
  // Put back for another driver: one is offered it; the driver who gave it back is not.
  h.refused(offer("off_2", DRIVER.id), "driver_excluded");
  h.must(offer("off_3", "pdr_2"));
  h.now += 30_000;
  assert.deepEqual(kinds(h.fire(OFFER_TIMER).events), ["offer_ended"]);
  h.now = 1_000 + WINDOW;
  const end = h.fire(WINDOW_TIMER);
  assert.deepEqual(kinds(end.events), ["trip_cancelled"]);
  assert.equal(h.state.trip.status, "cancelled");
  assert.equal(h.state.trip.cancelled_by, "system");
  assert.deepEqual(webhooks(h, end.events), ["trip.cancelled"]);
  const adds = end.events.flatMap((e: any) => tripActor.outbox!(e, h.state));
  assert.equal(adds.filter((a) => a.outbox === TRIP_REFUND_OUTBOX).length, 1, "refund owed");
  assert.deepEqual(h.replayed(), h.state);
});

Deno.test("trip drive: a trip given back and taken by another driver is not ended by the window", () => {
  // Accepted with no offer made: its window counts from when it could first be offered.
  const h = arrived();
  h.now += 5 * MINUTE;
  const back = h.must(GIVE_BACK);
  assert.deepEqual(back.timers, [{ op: "set", name: WINDOW_TIMER, at: 1_000 + WINDOW }]);
  const taken = h.must({ kind: "accept", driver: { ...DRIVER, id: "pdr_2" } });
  assert.deepEqual(taken.timers, [
    { op: "cancel", name: OFFER_TIMER },
    { op: "cancel", name: WINDOW_TIMER },
  ]);
  // Were the window's timer to fire all the same, it finds the trip accepted: nothing ends.
  h.now = 1_000 + WINDOW;
  assert.deepEqual(kinds(h.fire(WINDOW_TIMER).events), []);
  assert.equal(h.state.trip.status, "accepted");
});

Deno.test("trip drive: given back once the window closed, the trip ends cancelled and refunded", () => {
  const h = arrived();
  h.now += WINDOW;
  const step = h.must(GIVE_BACK);
  assert.deepEqual(kinds(step.events), ["driver_withdrew", "trip_cancelled"]);
  assert.equal(h.state.trip.status, "cancelled");
  assert.equal(h.state.trip.cancelled_by, "driver");
  const data = payloadOf(h, step.events, "trip.cancelled");
  assert.equal(data.cancelled_by, "driver");
  assert.equal(data.reason, "flat tyre");
  const adds = step.events.flatMap((e: any) => tripActor.outbox!(e, h.state));
  assert.equal(adds.filter((a) => a.outbox === TRIP_REFUND_OUTBOX).length, 1);
});

Deno.test("trip drive: no giving back after collection", () => {
  const h = booked();
  h.must({ kind: "accept", driver: DRIVER });
  h.must({ kind: "arrive" });
  h.must(FORCED);
  h.refused(
    { kind: "withdraw", driver_id: DRIVER.id, reason: "x", dispatch_window_ms: WINDOW },
    "invalid_transition",
  );
  assert.deepEqual(h.replayed(), h.state);
});

/** The event ids of the webhooks the outbox holds for one step's events. */
function eventIds(h: ActorHarness<any, any, any, any>, events: readonly any[]): string[] {
  return events.flatMap((e) => tripActor.outbox!(e, h.state))
    .filter((a) => a.outbox === BUSINESS_WEBHOOK_OUTBOX)
    .map((a) => `${(a.payload as any).event} ${(a.payload as any).event_id}`);
}

Deno.test("trip drive: each acceptance of a trip given back is a trip.accepted of its own id; the first keeps its id", () => {
  const h = booked();
  const ref = h.state.trip.reference;
  const first = h.must({ kind: "accept", driver: DRIVER });
  assert.deepEqual(eventIds(h, first.events), [`trip.accepted ${ref}:trip.accepted`]);
  // The holder's retry of its own acceptance (lost signal) is no new fact.
  assert.deepEqual(h.must({ kind: "accept", driver: DRIVER }).events, []);
  // spec: business 3.1 "put back for another driver", then accepted again, at the same moment.
  h.must(GIVE_BACK);
  const second = h.must({ kind: "accept", driver: { ...DRIVER, id: "pdr_2" } });
  assert.equal(second.events[0].acceptance, 2);
  assert.deepEqual(eventIds(h, second.events), [`trip.accepted ${ref}:trip.accepted:2`]);
  h.must({ ...GIVE_BACK, driver_id: "pdr_2" });
  const third = h.must({ kind: "accept", driver: { ...DRIVER, id: "pdr_3" }, queued: true });
  assert.deepEqual(eventIds(h, third.events), [`trip.accepted ${ref}:trip.accepted:3`]);
  h.must({ kind: "start", driver_id: "pdr_3" });
  h.must({ kind: "arrive", driver_id: "pdr_3" });
  // Collected once: trip.picked_up keeps the id it always had.
  const collected = h.must({ ...FORCED, driver_id: "pdr_3" });
  assert.deepEqual(eventIds(h, collected.events), [`trip.picked_up ${ref}:trip.picked_up`]);
  assert.equal(h.state.trip.acceptances, 3);
  assert.deepEqual(h.replayed(), h.state);
});

Deno.test("trip drive: a trip stored before acceptances were counted never reuses a trip.accepted id sent", () => {
  const stored = (h: ActorHarness<any, any, any, any>) => {
    const { acceptances: _, ...trip } = h.state.trip;
    return tripActor.load!(JSON.parse(JSON.stringify({ ...h.state, trip })), 1);
  };
  // Never accepted: its first acceptance sends the first's id.
  const waiting = booked();
  const never = new ActorHarness(tripActor, { now: 2_000, state: stored(waiting) });
  const ref = waiting.state.trip.reference;
  const taken = never.must({ kind: "accept", driver: DRIVER });
  assert.deepEqual(eventIds(never, taken.events), [`trip.accepted ${ref}:trip.accepted`]);
  // Accepted then (the first's id sent), or given back since: the next acceptance has its own.
  const held = booked();
  held.must({ kind: "accept", driver: DRIVER });
  const givenBack = booked();
  givenBack.must({ kind: "accept", driver: DRIVER });
  givenBack.must(GIVE_BACK);
  for (const [h, back] of [[held, true], [givenBack, false]] as const) {
    const loaded = new ActorHarness(tripActor, { now: 2_000, state: stored(h) });
    if (back) loaded.must(GIVE_BACK);
    const again = loaded.must({ kind: "accept", driver: { ...DRIVER, id: "pdr_2" } });
    assert.deepEqual(eventIds(loaded, again.events), [`trip.accepted ${ref}:trip.accepted:2`]);
  }
});

Deno.test("trip drive: a batch's stop given back inside the window ends cancelled by its driver and refunded, never put back", () => {
  // spec: business 3.2: one driver carries the whole batch; put back, the stop would go to
  // another driver (or wait for good for the one who gave it back).
  for (const position of [1, 2]) {
    const h = arrived({ batch: { id: "bat_1", position, stops: 3 } });
    h.now += 2 * MINUTE;
    const step = h.must(GIVE_BACK);
    assert.deepEqual(kinds(step.events), ["driver_withdrew", "trip_cancelled"]);
    assert.deepEqual(step.timers.filter((t: any) => t.op === "set"), [], "no window reopened");
    assert.equal(h.state.trip.status, "cancelled");
    assert.equal(h.state.trip.cancelled_by, "driver");
    assert.equal(h.state.trip.driver, null);
    assert.equal(payloadOf(h, step.events, "trip.cancelled").cancelled_by, "driver");
    const adds = step.events.flatMap((e: any) => tripActor.outbox!(e, h.state));
    assert.equal(adds.filter((a) => a.outbox === TRIP_REFUND_OUTBOX).length, 1, "refund owed");
    assert.deepEqual(h.replayed(), h.state);
  }
});
