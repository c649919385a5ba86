/**
 * CONTRACT "Driver app": "Every action takes `idempotency_key`; a replay answers the first
 * answer", whatever happened to the trip since: given back, completed, cancelled. The answer is
 * the driver's own: another driver sending the same key is answered as today (404), and a new key
 * goes through the checks as any action does.
 */
import assert from "node:assert/strict";
import { acceptedTrip, act } from "../../helpers/driver_trips.ts";
import { createPoolDriver, onlineDriverAt } from "../../helpers/pool_drivers.ts";
import { until } from "../../helpers/receiver.ts";
import type { TestEnv } from "../../helpers/test_env.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import { book, fundedBusiness, PARCEL } from "./trips_fixtures.ts";

/** The body of an answer without its request id, which differs on every request. */
function bodyOf(r: { body: Record<string, unknown> }) {
  const { request_id: _, ...rest } = r.body;
  return rest;
}

Deno.test("driver replays: a replayed cancel_by_driver answers the first answer once the trip is back in the pool; another driver's same key is not found", () =>
  withTestEnv(async (t) => {
    const trip = await acceptedTrip(t);
    const first = await act(t, trip, "cancel_by_driver", { reason: "flat tyre" });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.data.status, "pending");
    const replay = await act(t, trip, "cancel_by_driver", { reason: "flat tyre" });
    assert.equal(replay.status, 200, `replay: ${JSON.stringify(replay.body)}`);
    assert.deepEqual(replay.body.data, first.body.data);
    // A new key is checked as any action: the trip is no longer the driver's.
    const fresh = await act(t, trip, "cancel_by_driver", {
      idempotency_key: "cancel-2",
      reason: "flat tyre",
    });
    assert.equal(fresh.status, 404);
    // Another driver's same key finds nothing of the first driver's answer.
    const other = await createPoolDriver(t);
    const theirs = await act(t, { ...trip, driver: other }, "cancel_by_driver", {
      reason: "flat tyre",
    });
    assert.equal(theirs.status, 404);
    assert.deepEqual(bodyOf(theirs), bodyOf(fresh));
  }));

Deno.test("driver replays: every step replayed after the trip completed answers its first answer", () =>
  withTestEnv(async (t) => {
    const trip = await acceptedTrip(t);
    const steps: [string, Record<string, unknown>][] = [
      ["arrive_pickup", {}],
      ["pick_up", { force_reason: "no label on the bag" }],
      ["fail_delivery", { reason: "nobody home" }],
      ["complete_return", {}],
    ];
    const firsts = [];
    for (const [action, body] of steps) {
      const r = await act(t, trip, action, body);
      assert.equal(r.status, 200, `${action}: ${JSON.stringify(r.body)}`);
      firsts.push(r.body.data);
    }
    assert.equal(firsts.at(-1).status, "completed");
    for (const [n, [action, body]] of steps.entries()) {
      const replay = await act(t, trip, action, body);
      assert.equal(replay.status, 200, `${action}: ${JSON.stringify(replay.body)}`);
      assert.deepEqual(replay.body.data, firsts[n], action);
    }
  }));

Deno.test("driver replays: a step replayed after the business cancelled the trip answers its first answer", () =>
  withTestEnv(async (t) => {
    const trip = await acceptedTrip(t);
    const first = await act(t, trip, "arrive_pickup");
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const cancelled = await t.call("POST", `/business/trips/${trip.reference}/cancel`, {
      key: trip.business.api_key,
    });
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    const replay = await act(t, trip, "arrive_pickup");
    assert.equal(replay.status, 200, `replay: ${JSON.stringify(replay.body)}`);
    assert.deepEqual(replay.body.data, first.body.data);
    assert.equal(replay.body.data.status, "arrived");
  }));

Deno.test("driver replays: a step replayed after the driver's give-back ended the trip cancelled answers its first answer", () =>
  withTestEnv(async (t) => {
    const trip = await acceptedTrip(t);
    const first = await act(t, trip, "arrive_pickup");
    assert.equal(first.status, 200, JSON.stringify(first.body));
    t.clock.advanceBy(15 * 60_000); // past the dispatch window: the give-back ends the trip
    const gone = await act(t, trip, "cancel_by_driver", { reason: "vehicle broke down" });
    assert.equal(gone.body.data.status, "cancelled", JSON.stringify(gone.body));
    const replay = await act(t, trip, "arrive_pickup");
    assert.equal(replay.status, 200, `replay: ${JSON.stringify(replay.body)}`);
    assert.deepEqual(replay.body.data, first.body.data);
  }));

/** A booking offered to a driver near its pickup, and the offer as the driver sees it. */
async function offered(t: TestEnv) {
  const b = await fundedBusiness(t);
  const d = await onlineDriverAt(t, -24.650, 25.9086);
  assert.equal((await book(t, b.api_key, PARCEL)).status, 201);
  let offer: { offer_id: string; reference: string } | null = null;
  await until(t, async () => {
    offer = (await t.call("GET", "/driver/offers", { bearer: d.token })).body.data.offer;
    return offer !== null;
  }, "an offer");
  return { b, d, offer: offer! as { offer_id: string; reference: string } };
}

function answer(t: TestEnv, token: string, offerId: string, outcome: string, key: string) {
  return t.call("POST", `/driver/offers/${offerId}/${outcome}`, {
    bearer: token,
    body: { idempotency_key: key },
  });
}

Deno.test("driver replays: a replayed offer acceptance answers the first answer after the trip was given back and cancelled; a new key or another driver is refused as today", () =>
  withTestEnv(async (t) => {
    const { b, d, offer } = await offered(t);
    const first = await answer(t, d.token, offer.offer_id, "accept", "accept-1");
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const back = await t.call("POST", `/driver/trips/${offer.reference}/cancel_by_driver`, {
      bearer: d.token,
      body: { idempotency_key: "cancel-1", reason: "flat tyre" },
    });
    assert.equal(back.status, 200, JSON.stringify(back.body));
    const replay = await answer(t, d.token, offer.offer_id, "accept", "accept-1");
    assert.equal(replay.status, 200, `replay: ${JSON.stringify(replay.body)}`);
    assert.deepEqual(replay.body.data, first.body.data);
    // A new key is an acceptance of an offer that ended: refused as before.
    const fresh = await answer(t, d.token, offer.offer_id, "accept", "accept-2");
    assert.equal(fresh.status, 409);
    assert.equal(fresh.body.code, "offer_expired");
    // Another driver's same key: the offer is not theirs, as one that does not exist.
    const other = await createPoolDriver(t);
    const theirs = await answer(t, other.token, offer.offer_id, "accept", "accept-1");
    const fabricated = await answer(t, other.token, "off_nope.bm9wZQ", "accept", "accept-1");
    assert.equal(theirs.status, 404);
    assert.deepEqual(bodyOf(theirs), bodyOf(fabricated));
    // Cancelled by the business: the replay still answers the first answer.
    const cancelled = await t.call("POST", `/business/trips/${offer.reference}/cancel`, {
      key: b.api_key,
    });
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    const late = await answer(t, d.token, offer.offer_id, "accept", "accept-1");
    assert.equal(late.status, 200, `late replay: ${JSON.stringify(late.body)}`);
    assert.deepEqual(late.body.data, first.body.data);
  }));

Deno.test("driver replays: a replayed offer acceptance answers the first answer after the trip completed", () =>
  withTestEnv(async (t) => {
    const { d, offer } = await offered(t);
    const first = await answer(t, d.token, offer.offer_id, "accept", "accept-1");
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const trip = { reference: offer.reference, driver: d };
    for (
      const [action, body] of [
        ["arrive_pickup", {}],
        ["pick_up", { force_reason: "no label on the bag" }],
        ["fail_delivery", { reason: "nobody home" }],
        ["complete_return", {}],
      ] as const
    ) {
      const r = await act(t, trip, action, body);
      assert.equal(r.status, 200, `${action}: ${JSON.stringify(r.body)}`);
    }
    const replay = await answer(t, d.token, offer.offer_id, "accept", "accept-1");
    assert.equal(replay.status, 200, `replay: ${JSON.stringify(replay.body)}`);
    assert.deepEqual(replay.body.data, first.body.data);
    assert.equal(replay.body.data.status, "accepted");
  }));

Deno.test("driver replays: a replayed decline answers the first answer after the trip was cancelled; another driver's same key is not found", () =>
  withTestEnv(async (t) => {
    const { b, d, offer } = await offered(t);
    const first = await answer(t, d.token, offer.offer_id, "decline", "decline-1");
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.data.outcome, "declined");
    const cancelled = await t.call("POST", `/business/trips/${offer.reference}/cancel`, {
      key: b.api_key,
    });
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    const replay = await answer(t, d.token, offer.offer_id, "decline", "decline-1");
    assert.equal(replay.status, 200, `replay: ${JSON.stringify(replay.body)}`);
    assert.deepEqual(replay.body.data, first.body.data);
    const other = await createPoolDriver(t);
    const theirs = await answer(t, other.token, offer.offer_id, "decline", "decline-1");
    assert.equal(theirs.status, 404);
  }));
