/**
 * A trip waiting for a driver lives in the dispatcher's memory (Business API 3.1): a restart, or
 * another instance that never heard its booking, knows nothing of it until the sweep takes it up
 * from the query side, so no pending trip is left waiting in a memory that is gone.
 */
import assert from "node:assert/strict";
import { dispatcherOf } from "../../../src/business/reactors/dispatcher.ts";
import { onlineDriverAt } from "../../helpers/pool_drivers.ts";
import { openTestEnv } from "../../helpers/test_env.ts";
import { book, fundedBusiness, PARCEL } from "./trips_fixtures.ts";

Deno.test("dispatch sweep: a trip waiting in another instance's memory is taken up and offered", async () => {
  const kvPath = await Deno.makeTempFile({ suffix: ".kv" });
  const first = await openTestEnv({ kvPath });
  try {
    const b = await fundedBusiness(first);
    const booked = await book(first, b.api_key, PARCEL);
    assert.equal(booked.status, 201, JSON.stringify(booked.body));
    await first.settle();
    assert.equal(dispatcherOf(first.env).waiting(), 1, "no driver: the trip waits in memory");
    // Its events are on the bus: the second instance's start republishes none of them.
    await first.env.runtime.sweepMarkers();
    // The first stands for an instance whose memory is gone: it hears no driver's position from
    // here on (else it would offer the trip itself once the driver's signal reached it).
    await first.env.reactors["position_signals"]!.close();
    const second = await openTestEnv({ alongside: first });
    try {
      // The driver works from the second instance, which never heard of the trip's booking.
      const d = await onlineDriverAt(second, PARCEL.pickup_lat, PARCEL.pickup_lng);
      const offer = async () =>
        (await second.call("GET", "/driver/offers", { bearer: d.token })).body.data.offer;
      await dispatcherOf(second.env).idle();
      assert.equal(await offer(), null, "no offer before the sweep");
      assert.equal(await dispatcherOf(second.env).sweep(second.env.db), 1);
      await dispatcherOf(second.env).idle();
      assert.equal((await offer())?.reference, booked.body.data.reference);
      // Taken up once: the next sweep finds it offered.
      await second.settle();
      assert.equal(await dispatcherOf(second.env).sweep(second.env.db), 0);
    } finally {
      await second.close();
    }
  } finally {
    await first.close();
    await Deno.remove(kvPath).catch(() => {});
  }
});
