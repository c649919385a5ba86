/**
 * Dispatch over HTTP (Business API 3.1; CONTRACT "Driver app" GET /driver/offers, POST
 * /driver/offers/{offer}/accept, /decline): a booking is offered to the nearest driver, expires
 * to the next, and is accepted with a trip.accepted webhook; another driver's offer is 404; a trip
 * given back goes to another driver until the first offer's window ends, then is cancelled.
 */
import assert from "node:assert/strict";
import { advance, startReceiver, until } from "../../helpers/receiver.ts";
import { onlineDriverAt } from "../../helpers/pool_drivers.ts";
import type { TestEnv } from "../../helpers/test_env.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import { commandKind, holdAsk, whileFlaky } from "../../helpers/faults.ts";
import { tripActor } from "../../../actors/business/trip/mod.ts";
import {
  balanceOf,
  bookedReference,
  bwp,
  fundedBusiness,
  hooked,
  PARCEL,
} from "./trips_fixtures.ts";

/** Waits for the offer the dispatcher makes to this driver (it follows the booking's commit). */
async function offerOf(t: TestEnv, token: string) {
  let offer: Record<string, unknown> | null = null;
  await until(t, async () => {
    const r = await t.call("GET", "/driver/offers", { bearer: token });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    offer = r.body.data.offer;
    return offer !== null;
  }, "an offer");
  return offer! as { offer_id: string; reference: string } & Record<string, unknown>;
}

async function noOffer(t: TestEnv, token: string) {
  await t.settle();
  const r = await t.call("GET", "/driver/offers", { bearer: token });
  assert.equal(r.body.data.offer, null);
}

function answer(t: TestEnv, token: string, offer: string, outcome: string, key = "k1") {
  return t.call("POST", `/driver/offers/${offer}/${outcome}`, {
    bearer: token,
    body: { idempotency_key: key },
  });
}

/** The trip's driver gives it back (cancel_by_driver, a flat tyre): pending again. */
async function givenBack(t: TestEnv, token: string, reference: string) {
  const back = await t.call("POST", `/driver/trips/${reference}/cancel_by_driver`, {
    bearer: token,
    body: { idempotency_key: "cbd-1", reason: "flat tyre" },
  });
  assert.equal(back.status, 200, JSON.stringify(back.body));
  assert.equal(back.body.data.status, "pending", JSON.stringify(back.body));
}

/** Another driver comes online near the pickup and is offered the trip: that driver, the offer. */
async function offeredToAnother(t: TestEnv, reference: string) {
  const other = await onlineDriverAt(t, -24.651, 25.9086);
  const again = await offerOf(t, other.token);
  assert.equal(again.reference, reference);
  return { other, again };
}

/**
 * Waits for the window's cancellation of the trip (spec: business 3.1 "no driver answers":
 * cancelled by the system) and for its refund to put the charge back (the wallet had 1000).
 */
async function cancelledBySystemAndRefunded(t: TestEnv, key: string, reference: string) {
  await until(t, async () => {
    const r = await t.call("GET", `/business/trips/${reference}`, { key });
    return r.body.data.status === "cancelled";
  }, "the window's cancellation");
  const trip = await t.call("GET", `/business/trips/${reference}`, { key });
  assert.equal(trip.body.data.cancelled_by, "system");
  await until(
    t,
    async () => JSON.stringify(await balanceOf(t, key)) === JSON.stringify(bwp(1000)),
    "the refund",
  );
}

Deno.test("dispatch: book -> offer to the nearest -> expire -> next driver -> accept -> trip.accepted", () =>
  withTestEnv(async (t) => {
    const receiver = startReceiver();
    try {
      const b = await hooked(t, receiver);
      // Near the Main Mall pickup (about 0.5 km), and farther (about 3 km).
      const near = await onlineDriverAt(t, -24.650, 25.9086);
      const far = await onlineDriverAt(t, -24.627, 25.9086);
      const reference = await bookedReference(t, b.api_key);

      const first = await offerOf(t, near.token);
      assert.equal(first.reference, reference);
      assert.equal(first.pickup_distance_km, 0.5);
      assert.equal("fare_lines" in first || "billing_amount" in first, false, "no fare lines");
      await noOffer(t, far.token);
      // The driver reads the trip offered to them, and acts on it only once accepted; another
      // driver reads nothing of it (CONTRACT "Driver app").
      const view = await t.call("GET", `/driver/trips/${reference}`, { bearer: near.token });
      assert.equal(view.status, 200, JSON.stringify(view.body));
      const hidden = await t.call("GET", `/driver/trips/${reference}`, { bearer: far.token });
      assert.equal(hidden.status, 404);
      const early = await t.call("POST", `/driver/trips/${reference}/arrive_pickup`, {
        bearer: near.token,
        body: { idempotency_key: "early-1" },
      });
      // Theirs to see, so not missing: a step out of order, told to accept first.
      assert.equal(early.status, 409, JSON.stringify(early.body));
      assert.equal(early.body.code, "invalid_transition");
      assert.match(early.body.message, /accept the offer first/);
      // Another driver's offer answers as one that does not exist, word for word.
      const stranger = await answer(t, far.token, first.offer_id, "accept");
      const fabricated = await answer(t, far.token, "off_nope.bm9wZQ", "accept");
      assert.equal(stranger.status, 404);
      assert.deepEqual(stranger.body, fabricated.body);

      await advance(t, 31); // spec: business 3.1: dispatch_offer_seconds 30, then the next driver.
      const second = await offerOf(t, far.token);
      assert.notEqual(second.offer_id, first.offer_id);
      await noOffer(t, near.token);
      const late = await answer(t, near.token, first.offer_id, "accept");
      assert.equal(late.status, 409);
      assert.equal(late.body.code, "offer_expired");

      const accepted = await answer(t, far.token, second.offer_id, "accept");
      assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
      assert.deepEqual(accepted.body.data, {
        offer_id: second.offer_id,
        outcome: "accepted",
        reference,
        status: "accepted",
      });
      const replay = await answer(t, far.token, second.offer_id, "accept");
      assert.deepEqual(replay.body.data, accepted.body.data, "a replay answers the first answer");
      await noOffer(t, far.token);

      await until(
        t,
        () => receiver.deliveries.some((d) => JSON.parse(d.body).event === "trip.accepted"),
        "trip.accepted",
      );
      const trip = await t.call("GET", `/business/trips/${reference}`, { key: b.api_key });
      assert.equal(trip.body.data.status, "accepted");
      const me = await t.env.runtime.read(
        (await import("../../../actors/business/pool_driver.ts")).poolDriverActor,
        "platform",
        far.id,
        { kind: "get" },
      );
      assert.ok(me.ok);
      assert.equal(me.reply.current, `${b.id}:${reference}`);
      assert.deepEqual(me.reply.unconfirmed, []);
    } finally {
      await receiver.close();
    }
  }));

Deno.test("dispatch: a prep order waits for its time, a fresh position brings the driver, a decline is final, the window cancels by the system and refunds", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const d = await onlineDriverAt(t, -24.650, 25.9086);
    const reference = await bookedReference(t, b.api_key, { ...PARCEL, prep_minutes: 30 });
    await noOffer(t, d.token); // spec: business 3.1: offered at booking + 30 - 12 minutes.
    await advance(t, 18 * 60);
    await noOffer(t, d.token); // due, but the driver's position is 18 minutes old: unavailable.
    const at = new Date(t.clock.now()).toISOString();
    await t.call("POST", "/driver/positions", {
      bearer: d.token,
      body: { positions: [{ lat: -24.650, lng: 25.9086, accuracy: 5, heading: 0, at }] },
    });
    const offer = await offerOf(t, d.token);
    assert.equal(offer.reference, reference);
    const declined = await answer(t, d.token, offer.offer_id, "decline");
    assert.equal(declined.status, 200, JSON.stringify(declined.body));
    assert.equal(declined.body.data.outcome, "declined");
    await noOffer(t, d.token); // never asked again for this trip
    await advance(t, 15 * 60); // spec: business 3.1: dispatch_window_minutes from the first offer
    await cancelledBySystemAndRefunded(t, b.api_key, reference);
    // Another business sees nothing of it.
    const other = await fundedBusiness(t);
    const hidden = await t.call("GET", `/business/trips/${reference}`, { key: other.api_key });
    assert.equal(hidden.status, 404);
  }));

Deno.test("dispatch: a trip its driver gives back is offered to another driver, and when nobody takes it the window cancels it by the system and refunds", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const first = await onlineDriverAt(t, -24.650, 25.9086);
    const reference = await bookedReference(t, b.api_key);
    const offer = await offerOf(t, first.token);
    assert.equal(offer.reference, reference);
    const accepted = await answer(t, first.token, offer.offer_id, "accept");
    assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
    await advance(t, 120);
    await givenBack(t, first.token, reference);
    // spec: business 3.1 "put back for another driver": the next driver in range is offered it.
    const { other, again } = await offeredToAnother(t, reference);
    await noOffer(t, first.token);
    const declined = await answer(t, other.token, again.offer_id, "decline");
    assert.equal(declined.status, 200, JSON.stringify(declined.body));
    // The window of the first offer ends 13 minutes on: nobody took the trip.
    await advance(t, 13 * 60);
    await cancelledBySystemAndRefunded(t, b.api_key, reference);
  }));

/** The bodies of one event the receiver holds, in the order they came. */
const sentOf = (r: { deliveries: { body: string }[] }, event: string) =>
  r.deliveries.map((d) => JSON.parse(d.body)).filter((x) => x.event === event);

Deno.test("dispatch: a trip given back and accepted by another driver sends a second trip.accepted, its own id", () =>
  withTestEnv(async (t) => {
    const receiver = startReceiver();
    try {
      const b = await hooked(t, receiver);
      const first = await onlineDriverAt(t, -24.650, 25.9086);
      const reference = await bookedReference(t, b.api_key);
      const offer = await offerOf(t, first.token);
      assert.equal((await answer(t, first.token, offer.offer_id, "accept", "a1")).status, 200);
      await until(t, () => sentOf(receiver, "trip.accepted").length === 1, "trip.accepted");
      await advance(t, 60);
      await givenBack(t, first.token, reference);
      // spec: business 3.1 "put back for another driver": the second driver's acceptance is a
      // fact of its own (6 "a driver accepted"), under an id of its own (receivers dedupe on id).
      const { other, again } = await offeredToAnother(t, reference);
      await advance(t, 5);
      assert.equal((await answer(t, other.token, again.offer_id, "accept", "a2")).status, 200);
      const steps = [["arrive_pickup", {}], ["pick_up", { force_reason: "no scanner" }]] as const;
      for (const [action, body] of steps) {
        const r = await t.call("POST", `/driver/trips/${reference}/${action}`, {
          bearer: other.token,
          body: { idempotency_key: `${action}-2`, ...body },
        });
        assert.equal(r.status, 200, JSON.stringify(r.body));
      }
      await until(t, () => sentOf(receiver, "trip.picked_up").length === 1, "trip.picked_up");
      await t.settle();
      await t.env.pump();
      const accepted = sentOf(receiver, "trip.accepted");
      assert.equal(new Set(accepted.map((x) => x.id)).size, 2, JSON.stringify(accepted));
      assert.deepEqual(accepted.map((x) => x.data.reference), [reference, reference]);
      assert.ok(accepted[0].timestamp < accepted[1].timestamp, "each at its own acceptance");
    } finally {
      await receiver.close();
    }
  }));

Deno.test("dispatch: a trip no driver is ever offered is cancelled by the system when its window ends, refunded once, with trip.cancelled", () =>
  withTestEnv(async (t) => {
    const receiver = startReceiver();
    try {
      // No driver online at all: the trip is never offered (spec: business 3.1 "pending, no
      // driver answers: cancelled with cancelled_by system"; its wallet charge refunded).
      const b = await hooked(t, receiver);
      const reference = await bookedReference(t, b.api_key);
      assert.notDeepEqual(await balanceOf(t, b.api_key), bwp(1000), "charged at booking");
      await advance(t, 14 * 60);
      const still = await t.call("GET", `/business/trips/${reference}`, { key: b.api_key });
      assert.equal(still.body.data.status, "pending");
      await advance(t, 60); // dispatch_window_minutes 15 from booking
      await cancelledBySystemAndRefunded(t, b.api_key, reference);
      // spec: business 6: the cancellation (refund pending), then its refund once credited.
      await until(t, () => sentOf(receiver, "trip.cancelled").length === 2, "trip.cancelled");
      const sent = sentOf(receiver, "trip.cancelled");
      assert.deepEqual(sent.map((x) => x.data.cancelled_by), ["system", "system"]);
      assert.deepEqual(sent.map((x) => x.data.refund_status).sort(), ["pending", "refunded"]);
      await advance(t, 60 * 60);
      await t.settle();
      assert.deepEqual(await balanceOf(t, b.api_key), bwp(1000), "refunded once");
      assert.equal(sentOf(receiver, "trip.cancelled").length, 2);
    } finally {
      await receiver.close();
    }
  }));

Deno.test("dispatch: a freed driver is offered a waiting trip their vehicle fits, behind many waiting trips it cannot carry", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t, "20000.00");
    // More trips than one freed driver tries, each needing a panel van (vehicle type 3), booked
    // first while no driver is on shift: they wait, oldest first.
    for (let i = 0; i < 25; i++) {
      await bookedReference(t, b.api_key, { ...PARCEL, vehicle_type_id: 3 });
    }
    const small = await bookedReference(t, b.api_key);
    await t.settle();
    // spec: business 3.1: a motorcycle rider comes online at the pickup: the trip it can carry
    // is offered to them, whatever waits ahead of it.
    const rider = await onlineDriverAt(t, -24.650, 25.9086);
    assert.equal((await offerOf(t, rider.token)).reference, small);
  }));

Deno.test("dispatch: a driver's offer whose trip read meets a busy actor answers 503 actor_busy, not 'no offer' nor 404; then it is accepted", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const near = await onlineDriverAt(t, -24.650, 25.9086);
    const reference = await bookedReference(t, b.api_key);
    const offer = await offerOf(t, near.token);
    assert.equal(offer.reference, reference);
    const calls = [
      () => t.call("GET", "/driver/offers", { bearer: near.token }),
      () => t.call("GET", `/driver/trips/${reference}`, { bearer: near.token }),
      () => answer(t, near.token, offer.offer_id, "accept"),
    ];
    for (const call of calls) {
      let busy = { status: 0, body: {} as { code?: string } };
      const failed = await whileFlaky(t.env, {
        fails: commandKind("get", tripActor.type),
        refuse: true,
      }, async () => {
        busy = await call();
      });
      assert.equal(failed, 1);
      assert.equal(busy.status, 503, JSON.stringify(busy.body));
      assert.equal(busy.body.code, "actor_busy");
    }
    const accepted = await answer(t, near.token, offer.offer_id, "accept");
    assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
    assert.equal(accepted.body.data.outcome, "accepted");
  }));

Deno.test("dispatch: an acceptance met by the business's cancel answers 409 invalid_transition, and the driver is free again", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const d = await onlineDriverAt(t, -24.650, 25.9086);
    const reference = await bookedReference(t, b.api_key);
    const offer = await offerOf(t, d.token);
    // The driver took the trip; its acceptance waits while the business cancels it.
    const held = holdAsk(t.env.runtime, commandKind("accept", tripActor.type));
    const accepting = answer(t, d.token, offer.offer_id, "accept");
    await held.reached;
    const cancel = await t.call("POST", `/business/trips/${reference}/cancel`, { key: b.api_key });
    assert.equal(cancel.status, 200, JSON.stringify(cancel.body));
    held.open();
    const refused = await accepting;
    assert.equal(refused.status, 409, JSON.stringify(refused.body));
    assert.equal(refused.body.code, "invalid_transition");
    const { poolDriverActor } = await import("../../../actors/business/pool_driver.ts");
    const me = await t.env.runtime.read(poolDriverActor, "platform", d.id, { kind: "get" });
    assert.ok(me.ok);
    assert.equal(me.reply.current, null);
  }));
