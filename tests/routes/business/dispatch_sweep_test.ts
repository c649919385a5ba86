/**
 * A trip waiting for a driver lives in the dispatcher's memory (Business API 3.1): a restart, or
 * another instance that never heard its booking, knows nothing of it until the sweep takes it up
 * from the query side, so no pending trip is left waiting in a memory that is gone. A pending trip
 * found past its dispatch window with no timer to end it is cancelled by the system, refunded.
 */
import assert from "node:assert/strict";
import { rewriteStored, withoutTimer } from "../../helpers/stored_records.ts";
import { tripActor, WINDOW_TIMER } from "../../../actors/business/trip/mod.ts";
import { dispatcherOf } from "../../../src/business/reactors/dispatcher.ts";
import { advance, until } from "../../helpers/receiver.ts";
import { onlineDriverAt } from "../../helpers/pool_drivers.ts";
import type { TestEnv } from "../../helpers/test_env.ts";
import { thenAnotherInstance } from "../../helpers/two_instances.ts";
import { balanceOf, book, bookedReference, bwp, fundedBusiness, PARCEL } from "./trips_fixtures.ts";
import { postBatch, quiet, stop } from "./batch_fixtures.ts";

/** Once all is settled, the instance's next sweep takes up no trip. */
async function nothingToSweep(t: TestEnv) {
  await t.settle();
  assert.equal(await dispatcherOf(t.env).sweep(t.env.db), 0);
}

Deno.test("dispatch sweep: a trip waiting in another instance's memory is taken up and offered", () =>
  thenAnotherInstance(async (first) => {
    const b = await fundedBusiness(first);
    const reference = await bookedReference(first, b.api_key);
    await first.settle();
    assert.equal(dispatcherOf(first.env).waiting(), 1, "no driver: the trip waits in memory");
    // Its events are on the bus: the second instance's start republishes none of them.
    await first.env.runtime.sweepMarkers();
    // The first stands for an instance whose memory is gone: it hears no driver's position from
    // here on (else it would offer the trip itself once the driver's signal reached it).
    await first.env.reactors["position_signals"]!.close();
    return reference;
  }, async (second, reference) => {
    // The driver works from the second instance, which never heard of the trip's booking.
    const d = await onlineDriverAt(second, PARCEL.pickup_lat, PARCEL.pickup_lng);
    const offer = async () =>
      (await second.call("GET", "/driver/offers", { bearer: d.token })).body.data.offer;
    await dispatcherOf(second.env).idle();
    assert.equal(await offer(), null, "no offer before the sweep");
    assert.equal(await dispatcherOf(second.env).sweep(second.env.db), 1);
    await dispatcherOf(second.env).idle();
    assert.equal((await offer())?.reference, reference);
    // Taken up once: the next sweep finds it offered.
    await nothingToSweep(second);
  }));

Deno.test("dispatch sweep: a scheduled trip due and waiting in another instance's memory is taken up and offered", () =>
  thenAnotherInstance(async (first) => {
    const b = await fundedBusiness(first);
    // spec: business 3.1: scheduled, offered 15 minutes before scheduled_at: due at once.
    const scheduledAt = new Date(first.clock.now() + 12 * 60_000).toISOString();
    const booked = await book(first, b.api_key, { ...PARCEL, scheduled_at: scheduledAt });
    assert.equal(booked.status, 201, JSON.stringify(booked.body));
    assert.equal(booked.body.data.status, "scheduled");
    await first.settle();
    assert.equal(dispatcherOf(first.env).waiting(), 1, "no driver: the trip waits in memory");
    await first.env.runtime.sweepMarkers();
    await first.env.reactors["position_signals"]!.close();
    return booked.body.data.reference as string;
  }, async (second, reference) => {
    const d = await onlineDriverAt(second, PARCEL.pickup_lat, PARCEL.pickup_lng);
    await dispatcherOf(second.env).idle();
    assert.equal(await dispatcherOf(second.env).sweep(second.env.db), 1);
    await dispatcherOf(second.env).idle();
    const offer = (await second.call("GET", "/driver/offers", { bearer: d.token })).body.data.offer;
    assert.equal(offer?.reference, reference);
  }));

/**
 * A trip given back inside its window, stored as the give-back once left it: the same events, but
 * no window timer (its acceptance cancelled it, and that give-back did not set it again). Written
 * by hand into the KV file: no rule runs.
 */
async function givenBackWithoutTimer(t: TestEnv, kvPath: string, key: string): Promise<string> {
  const reference = await bookedReference(t, key);
  const driver = await onlineDriverAt(t, PARCEL.pickup_lat, PARCEL.pickup_lng);
  let offer: { offer_id: string } | null = null;
  await until(t, async () => {
    offer = (await t.call("GET", "/driver/offers", { bearer: driver.token })).body.data.offer;
    return offer !== null;
  }, "the offer");
  const accepted = await t.call("POST", `/driver/offers/${offer!.offer_id}/accept`, {
    bearer: driver.token,
    body: { idempotency_key: "k1" },
  });
  assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
  // Inside the window: pending again, for another driver (spec: business 3.1).
  const back = await t.call("POST", `/driver/trips/${reference}/cancel_by_driver`, {
    bearer: driver.token,
    body: { idempotency_key: "k2", reason: "flat tyre" },
  });
  assert.equal(back.body.data.status, "pending", JSON.stringify(back.body));
  await t.settle();
  // Its changes are on the bus: another instance's start republishes none of them.
  await t.env.runtime.sweepMarkers();
  await storedWithoutWindowTimer(kvPath, reference, {
    timer: "today's give-back sets the window's timer again",
    written: "written as the old give-back left it",
  });
  return reference;
}

/**
 * Writes the trip back into the KV file without its window timer (and with `edit` made to its
 * state), as older code stored it: no rule runs.
 */
async function storedWithoutWindowTimer(
  kvPath: string,
  reference: string,
  says: { timer: string; written: string },
  // deno-lint-ignore no-explicit-any
  edit: (state: any) => void = () => {},
): Promise<void> {
  await rewriteStored(kvPath, { type: tripActor.type, id: reference }, (stored) => {
    const state = structuredClone(stored.state);
    edit(state);
    return withoutTimer({ ...stored, state }, WINDOW_TIMER, says.timer);
  }, says.written);
}

Deno.test("dispatch sweep: a trip left pending past its window with no timer is cancelled by the system and refunded", () =>
  thenAnotherInstance(async (first, kvPath) => {
    const b = await fundedBusiness(first);
    return { b, reference: await givenBackWithoutTimer(first, kvPath, b.api_key) };
  }, async (second, { b, reference }) => {
    // An instance of the deployment started on that store, its dispatcher's memory empty.
    const trip = async () => {
      const r = await second.env.runtime.read(tripActor, b.id, reference, { kind: "get" });
      assert.ok(r.ok && r.reply.phase === "booked");
      return r.reply.trip;
    };
    // The window counts from the first offer: 15 minutes on, nothing ends the trip.
    await advance(second, 15 * 60);
    await second.settle();
    assert.equal((await trip()).status, "pending", "no timer ends it");
    assert.notDeepEqual(await balanceOf(second, b.api_key), bwp(1000), "its charge is held");
    // spec: business 3.1 "pending, no driver answers: cancelled with cancelled_by system".
    assert.equal(await dispatcherOf(second.env).sweep(second.env.db), 1);
    await dispatcherOf(second.env).idle();
    await until(second, async () => (await trip()).status === "cancelled", "the cancellation");
    const read = await second.call("GET", `/business/trips/${reference}`, { key: b.api_key });
    assert.equal(read.body.data.status, "cancelled", JSON.stringify(read.body));
    assert.equal(read.body.data.cancelled_by, "system");
    // The cancellation's refund puts the charge back in the wallet.
    await until(
      second,
      async () => JSON.stringify(await balanceOf(second, b.api_key)) === JSON.stringify(bwp(1000)),
      "the refund",
    );
    // Ended: the next sweep finds nothing pending.
    await nothingToSweep(second);
  }));

/**
 * A trip booked with no driver anywhere, stored as bookings stored it before its window was
 * decided at booking: no window in its dispatch, no window timer. Written by hand into the KV file.
 */
async function bookedBeforeWindows(t: TestEnv, kvPath: string, key: string): Promise<string> {
  const reference = await bookedReference(t, key);
  await storedBeforeWindows(t, kvPath, reference);
  return reference;
}

/** The trip `reference` rewritten in the KV file as bookings stored it before windows. */
async function storedBeforeWindows(t: TestEnv, kvPath: string, reference: string) {
  await t.settle();
  await t.env.runtime.sweepMarkers();
  await storedWithoutWindowTimer(kvPath, reference, {
    timer: "booked today, the trip has its window's timer",
    written: "written as bookings stored it before",
  }, (state) => {
    delete state.trip.dispatch.window_ends_at;
    delete state.trip.dispatch.window_ms;
  });
}

Deno.test("dispatch sweep: a trip never offered, stored before its window was decided at booking, is cancelled by the system and refunded", () =>
  thenAnotherInstance(async (first, kvPath) => {
    const b = await fundedBusiness(first);
    return { b, reference: await bookedBeforeWindows(first, kvPath, b.api_key) };
  }, async (second, { b, reference }) => {
    const status = async () => {
      const r = await second.env.runtime.read(tripActor, b.id, reference, { kind: "get" });
      assert.ok(r.ok && r.reply.phase === "booked");
      return r.reply.trip.status;
    };
    await advance(second, 20 * 60);
    await second.settle();
    assert.equal(await status(), "pending", "no timer ends it");
    // spec: business 3.1 "pending, no driver answers: cancelled with cancelled_by system".
    assert.equal(await dispatcherOf(second.env).sweep(second.env.db), 1);
    await dispatcherOf(second.env).idle();
    await until(second, async () => (await status()) === "cancelled", "the cancellation");
    const read = await second.call("GET", `/business/trips/${reference}`, { key: b.api_key });
    assert.equal(read.body.data.cancelled_by, "system");
    await until(
      second,
      async () => JSON.stringify(await balanceOf(second, b.api_key)) === JSON.stringify(bwp(1000)),
      "the refund",
    );
    await nothingToSweep(second);
  }));

Deno.test("dispatch sweep: trips scheduled far ahead never crowd a trip due now out of the sweep", () =>
  thenAnotherInstance(async (first) => {
    const b = await fundedBusiness(first);
    // Booked first (as a subscription books them): due to be offered in two days, each with a
    // timer of its own to bring it back then.
    const later = new Date(first.clock.now() + 2 * 24 * 3_600_000).toISOString();
    for (let i = 0; i < 3; i++) {
      const booked = await book(first, b.api_key, { ...PARCEL, scheduled_at: later });
      assert.equal(booked.body.data.status, "scheduled", JSON.stringify(booked.body));
    }
    const reference = await bookedReference(first, b.api_key);
    await first.settle();
    assert.equal(dispatcherOf(first.env).waiting(), 1, "no driver: the trip due waits in memory");
    await first.env.runtime.sweepMarkers();
    await first.env.reactors["position_signals"]!.close();
    return reference;
  }, async (second, reference) => {
    const d = await onlineDriverAt(second, PARCEL.pickup_lat, PARCEL.pickup_lng);
    await dispatcherOf(second.env).idle();
    // spec: business 3.1: the trip due now is taken up, whatever the sweep's bound.
    assert.equal(await dispatcherOf(second.env).sweep(second.env.db, 2), 1);
    await dispatcherOf(second.env).idle();
    const offer = (await second.call("GET", "/driver/offers", { bearer: d.token })).body.data.offer;
    assert.equal(offer?.reference, reference);
  }));

Deno.test("dispatch sweep: trips already waiting here never crowd a trip left in a lost memory out of the sweep", () =>
  thenAnotherInstance(async (first) => {
    const b = await fundedBusiness(first);
    const references = [];
    for (let i = 0; i < 3; i++) {
      references.push(await bookedReference(first, b.api_key));
      await advance(first, 1);
    }
    await first.settle();
    assert.equal(dispatcherOf(first.env).waiting(), 3, "no driver: the trips wait in memory");
    await first.env.runtime.sweepMarkers();
    await first.env.reactors["position_signals"]!.close();
    return references;
  }, async (second, references) => {
    // This instance's clock starts where the first's started: brought to the bookings' times.
    await advance(second, 3);
    await dispatcherOf(second.env).idle();
    // The first two are taken up, and wait here (no driver): the third is the next sweep's.
    assert.equal(await dispatcherOf(second.env).sweep(second.env.db, 2), 2);
    await dispatcherOf(second.env).idle();
    assert.equal(dispatcherOf(second.env).waiting(), 2);
    // spec: business 3.1: the next sweep reads past the trips waiting here to the one left.
    assert.equal(await dispatcherOf(second.env).sweep(second.env.db, 2), 1);
    await dispatcherOf(second.env).idle();
    assert.equal(dispatcherOf(second.env).waiting(), 3);
    const d = await onlineDriverAt(second, PARCEL.pickup_lat, PARCEL.pickup_lng);
    let offer: { reference: string } | null = null;
    await until(second, async () => {
      offer = (await second.call("GET", "/driver/offers", { bearer: d.token })).body.data.offer;
      return offer !== null;
    }, "the offer");
    assert.equal(offer!.reference, references[0], "the longest due first");
  }));

Deno.test("dispatch sweep: a batch's later stop never offered, stored before its window was decided at booking, is cancelled by the system and refunded", () =>
  thenAnotherInstance(async (first, kvPath) => {
    const b = await fundedBusiness(first);
    const r = await postBatch(first, b.api_key, {
      segment: "parcel",
      stops: [stop("A", "s", 0, 1), stop("B", "s", 0, 2)],
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const refs: string[] = r.body.data.stops.map((s: { trip_reference: string }) =>
      s.trip_reference
    );
    await quiet(first);
    // Both stored as before: the first stop has no timer, and the second follows its driver.
    for (const ref of refs) await storedBeforeWindows(first, kvPath, ref);
    return { b, refs };
  }, async (second, { b, refs }) => {
    const status = async (ref: string) => {
      const r = await second.env.runtime.read(tripActor, b.id, ref, { kind: "get" });
      assert.ok(r.ok && r.reply.phase === "booked");
      return r.reply.trip.status;
    };
    await advance(second, 20 * 60);
    await second.settle();
    assert.deepEqual(await Promise.all(refs.map(status)), ["pending", "pending"], "no timers");
    // spec: business 3.1 "pending, no driver answers: cancelled with cancelled_by system".
    await dispatcherOf(second.env).sweep(second.env.db);
    await dispatcherOf(second.env).idle();
    for (const ref of refs) {
      await until(second, async () => (await status(ref)) === "cancelled", "the cancellation");
      const read = await second.call("GET", `/business/trips/${ref}`, { key: b.api_key });
      assert.equal(read.body.data.cancelled_by, "system");
    }
    await until(
      second,
      async () => JSON.stringify(await balanceOf(second, b.api_key)) === JSON.stringify(bwp(1000)),
      "the refunds",
    );
    await nothingToSweep(second);
  }));
