/**
 * The first offer in the trip's creation (Business API 3.1): a booking due at once with a free
 * driver nearby is offered in the commit that creates it, so the offer is readable as soon as the
 * booking answers; bookings at once never share a driver; the others wait for the dispatcher.
 */
import assert from "node:assert/strict";
import type { ActorChange } from "../../../src/bus/bus.ts";
import { subjectPattern } from "../../../src/bus/bus.ts";
import { dispatcherOf } from "../../../src/business/reactors/dispatcher.ts";
import { tripActor } from "../../../actors/business/trip/mod.ts";
import { onlineDriverAt } from "../../helpers/pool_drivers.ts";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { book, fundedBusiness, PARCEL } from "./trips_fixtures.ts";

/** The event kinds of each trip change heard on the bus, by reference. */
function hearTrips(t: TestEnv) {
  const heard = new Map<string, string[][]>();
  const sub = t.env.bus.subscribe(
    subjectPattern(t.env.runtime.busPrefix, "*", tripActor.type),
    (m) => {
      const c = m.payload as ActorChange;
      const kinds = c.events.map(({ event }) => (event as { kind: string }).kind);
      heard.set(c.id, [...(heard.get(c.id) ?? []), kinds]);
    },
  );
  return { heard, stop: () => sub.unsubscribe() };
}

async function driversKnown(t: TestEnv) {
  await t.settle();
  await dispatcherOf(t.env).idle();
}

Deno.test("dispatch: a booking due at once is offered in its creation's commit, readable at the answer", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const near = await onlineDriverAt(t, -24.650, 25.9086);
    await driversKnown(t);
    const trips = hearTrips(t);
    const booked = await book(t, b.api_key, PARCEL);
    assert.equal(booked.status, 201, JSON.stringify(booked.body));
    const reference = booked.body.data.reference as string;
    // No waiting for the dispatcher: the offer was committed with the trip.
    const r = await t.call("GET", "/driver/offers", { bearer: near.token });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.data.offer?.reference, reference);
    await t.settle();
    await dispatcherOf(t.env).idle();
    trips.stop();
    const changes = [...trips.heard.values()].flat();
    assert.ok(
      changes.some((k) => k.join() === "trip_created,trip_offered"),
      `one change creates and offers: ${JSON.stringify(changes)}`,
    );
    // The dispatcher that then hears it offers nothing more.
    assert.equal(changes.filter((k) => k.includes("trip_offered")).length, 1);
  }));

Deno.test("dispatch: bookings at once never share a driver; the rest wait for one", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const only = await onlineDriverAt(t, -24.650, 25.9086);
    await driversKnown(t);
    const answers = await Promise.all(
      [1, 2, 3].map((i) => book(t, b.api_key, { ...PARCEL, external_reference: `ORD-${i}` })),
    );
    for (const a of answers) assert.equal(a.status, 201, JSON.stringify(a.body));
    await t.settle();
    await dispatcherOf(t.env).idle();
    const offers: string[] = [];
    for (const a of answers) {
      const r = await t.env.runtime.read(tripActor, b.id, a.body.data.reference, { kind: "get" });
      assert.ok(r.ok && r.reply.phase === "booked");
      if (r.reply.trip.offer) offers.push(r.reply.trip.offer.driver_id);
    }
    assert.deepEqual(offers, [only.id]);
    const mine = await t.call("GET", "/driver/offers", { bearer: only.token });
    assert.ok(mine.body.data.offer, "the driver holds one offer");
    // spec: business 3.1: one offer at a time per driver; the two others wait.
    assert.equal(dispatcherOf(t.env).waiting(), 2);
  }));
