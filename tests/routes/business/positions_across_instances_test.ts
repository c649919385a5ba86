/**
 * Positions across instances (Business API 1.2, 2.4, 3.1): a driver's position posted through one
 * instance reaches every other instance's live positions within one pump (its signal on the shared
 * bus: in process, or NATS when NATS_URL is set), so dispatch and tracking through any instance see
 * the driver's latest position; the newest observed wins wherever each ping arrived; and since
 * every instance may then offer the driver a trip, the store keeps it to one offer at a time.
 */
import assert from "node:assert/strict";
import { tripActor } from "../../../actors/business/trip/mod.ts";
import { dispatcherOf } from "../../../src/business/reactors/dispatcher.ts";
import { livePositionsOf } from "../../../src/business/reactors/live_positions.ts";
import { onlineDriverAt } from "../../helpers/pool_drivers.ts";
import { openTestEnv, type TestEnv } from "../../helpers/test_env.ts";
import { report, tokenOf } from "./tracking_fixtures.ts";
import { book, fundedBusiness, PARCEL } from "./trips_fixtures.ts";

/** One pump of the instance the ping reached, heard by the other (the bus flushed). */
async function pumped(t: TestEnv, other: TestEnv): Promise<void> {
  await t.env.pump();
  await t.deployment.bus.flush();
  await dispatcherOf(other.env).idle();
}

/** Both instances' manual clocks moved together: one deployment's time. */
function advance(ms: number, ...ts: TestEnv[]): void {
  for (const t of ts) t.clock.advanceBy(ms);
}

Deno.test("positions across instances: dispatch and tracking through either instance see the newest, one pump later", async () => {
  const kvPath = await Deno.makeTempFile({ suffix: ".kv" });
  const first = await openTestEnv({ kvPath });
  try {
    const second = await openTestEnv({ alongside: first });
    try {
      // The driver goes on shift and pings through the first instance only.
      const d = await onlineDriverAt(first, -24.6546, 25.9087);
      await first.settle();
      await pumped(first, second);
      assert.equal(livePositionsOf(second.env).latest(d.id)?.lat, -24.6546);

      // spec: business 3.1: a booking through the second is offered to that driver at once.
      const b = await fundedBusiness(second);
      const booked = await book(second, b.api_key, PARCEL);
      assert.equal(booked.status, 201, JSON.stringify(booked.body));
      const offered = await second.call("GET", "/driver/offers", { bearer: d.token });
      const offer = offered.body.data.offer;
      assert.equal(offer?.reference, booked.body.data.reference, JSON.stringify(offered.body));
      const accepted = await second.call("POST", `/driver/offers/${offer.offer_id}/accept`, {
        bearer: d.token,
        body: { idempotency_key: "accept-1" },
      });
      assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
      const token = tokenOf(booked.body.data.tracking_url);
      const seenThrough = async (t: TestEnv) => {
        const r = await t.call("GET", `/trip-track/${token}`);
        assert.equal(r.status, 200, JSON.stringify(r.body));
        return r.body.data;
      };

      // The driver's pings move to the second instance, then back to the first: the second
      // must not keep showing the position it heard itself once the first has a newer one.
      advance(5_000, first, second);
      await report(second, d.token, -24.66, 25.91);
      await pumped(second, first);
      advance(5_000, first, second);
      await report(first, d.token, -24.67, 25.92);
      const observed = new Date(first.clock.now()).toISOString();
      await pumped(first, second);
      for (const t of [first, second]) {
        const seen = await seenThrough(t);
        assert.deepEqual([seen.driver_lat, seen.driver_lng], [-24.67, 25.92]);
        assert.equal(seen.location_observed_at, observed);
        assert.equal(seen.location_is_fresh, true);
      }

      // spec: business 1.2: a late ping after lost signal (observed earlier) changes nothing.
      const late = new Date(first.clock.now() - 2_000).toISOString();
      const r = await second.call("POST", "/driver/positions", {
        bearer: d.token,
        body: { positions: [{ lat: -24.6, lng: 25.8, accuracy: 5, heading: 90, at: late }] },
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      await pumped(second, first);
      for (const t of [first, second]) {
        assert.deepEqual(livePositionsOf(t.env).latest(d.id)?.lat, -24.67);
        assert.equal((await seenThrough(t)).driver_lat, -24.67);
      }

      // Both instances now know where the driver is, so both may offer them the next trip (their
      // queued one) at once: the store lets one offer through, the other trip waits.
      const two = await Promise.all([first, second].map((t) => book(t, b.api_key, PARCEL)));
      const offers = await Promise.all(two.map(async (r) => {
        assert.equal(r.status, 201, JSON.stringify(r.body));
        const got = await first.env.runtime.read(tripActor, b.id, r.body.data.reference, {
          kind: "get",
        });
        assert.ok(got.ok && got.reply.phase === "booked");
        return got.reply.trip.offer?.driver_id;
      }));
      assert.equal(offers.filter((id) => id === d.id).length, 1, JSON.stringify(offers));
    } finally {
      await second.close();
    }
  } finally {
    await first.close();
    await Deno.remove(kvPath).catch(() => {});
  }
});
