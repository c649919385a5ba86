/**
 * Checkouts past expires_at (Business API 4.1): the hold lapsed then, whether or not its expiry
 * timer has fired yet (a scheduler running late, an instance restarting): a read and a cancel say
 * expired, as a booking naming it is refused checkout_expired.
 */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { book, fundedBusiness, PARCEL } from "./trips_fixtures.ts";

const CART = {
  pickup_address: PARCEL.pickup_address,
  pickup_lat: PARCEL.pickup_lat,
  pickup_lng: PARCEL.pickup_lng,
  dest_address: PARCEL.dest_address,
  dest_lat: PARCEL.dest_lat,
  dest_lng: PARCEL.dest_lng,
  parcel_weight_kg: 3,
  hold_minutes: 1,
};

Deno.test("checkouts: read and cancelled once expires_at passed, before the expiry timer fired, a checkout is expired at expires_at", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const opened = await t.call("POST", "/business/checkouts", { key: b.api_key, body: CART });
    assert.equal(opened.status, 201, JSON.stringify(opened.body));
    const co = opened.body.data;
    const read = () => t.call("GET", `/business/checkouts/${co.reference}`, { key: b.api_key });
    // The test clock moves without firing timers: the expiry timer is late.
    t.clock.advanceBy(60_000 - 1);
    assert.equal((await read()).body.data.status, "open");
    t.clock.advanceBy(1);
    const lapsed = (await read()).body.data;
    assert.equal(lapsed.status, "expired", JSON.stringify(lapsed));
    assert.equal(lapsed.released_at, co.expires_at);
    const booked = await book(t, b.api_key, {
      type: "parcel",
      passenger_name: "Neo Kgosi",
      passenger_phone: "+26771234567",
      checkout_reference: co.reference,
    });
    assert.equal(booked.status, 409, JSON.stringify(booked.body));
    assert.equal(booked.body.code, "checkout_expired");
    const cancel = await t.call("POST", `/business/checkouts/${co.reference}/cancel`, {
      key: b.api_key,
      body: { reason: "cart emptied" },
    });
    assert.equal(cancel.status, 200, JSON.stringify(cancel.body));
    assert.equal(cancel.body.data.status, "expired");
    assert.equal(cancel.body.data.replayed, true);
    assert.equal(cancel.body.data.cancel_reason, null);
    const { replayed: _, ...recorded } = cancel.body.data;
    assert.deepEqual((await read()).body.data, recorded);
  }));
