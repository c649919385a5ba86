/**
 * A scheduled trip's offer over HTTP (Business API 3.1: "scheduled: offered to drivers shortly
 * before scheduled_at", the lead an operator setting, CONTRACT PUT /operator/settings
 * schedule_offer_lead_minutes): booked an hour ahead, nothing is offered until the lead, then the
 * nearest driver hears it.
 */
import assert from "node:assert/strict";
import { advance, until } from "../../helpers/receiver.ts";
import { onlineDriverAt } from "../../helpers/pool_drivers.ts";
import type { TestEnv } from "../../helpers/test_env.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import { book, fundedBusiness, PARCEL } from "./trips_fixtures.ts";

async function offerFor(t: TestEnv, token: string) {
  const r = await t.call("GET", "/driver/offers", { bearer: token });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data.offer as { reference: string } | null;
}

/** The driver reports where they are now (a fresh position). */
async function ping(t: TestEnv, token: string, lat: number, lng: number) {
  const at = new Date(t.clock.now()).toISOString();
  const r = await t.call("POST", "/driver/positions", {
    bearer: token,
    body: { positions: [{ lat, lng, accuracy: 5, heading: 0, at }] },
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
}

Deno.test("dispatch: a trip booked an hour ahead is offered to the nearest driver at the operator's lead before scheduled_at, not before", () =>
  withTestEnv(async (t) => {
    const settings = await t.call("PUT", "/operator/settings", {
      operator: true,
      body: { schedule_offer_lead_minutes: 20, position_fresh_seconds: 600 },
    });
    assert.equal(settings.status, 200, JSON.stringify(settings.body));
    const b = await fundedBusiness(t);
    const near = await onlineDriverAt(t, -24.650, 25.9086);
    const far = await onlineDriverAt(t, -24.627, 25.9086);
    const scheduledAt = new Date(t.clock.now() + 60 * 60_000).toISOString();
    const booked = await book(t, b.api_key, { ...PARCEL, scheduled_at: scheduledAt });
    assert.equal(booked.status, 201, JSON.stringify(booked.body));
    assert.equal(booked.body.data.status, "scheduled");
    const reference = booked.body.data.reference as string;

    await t.settle();
    assert.equal(await offerFor(t, near.token), null, "not offered at booking");
    // 39 minutes on: a minute before the lead of 20 minutes. Both drivers report afresh.
    await advance(t, 39 * 60);
    await ping(t, near.token, -24.650, 25.9086);
    await ping(t, far.token, -24.627, 25.9086);
    await t.settle();
    assert.equal(await offerFor(t, near.token), null, "not offered before the lead");
    assert.equal(await offerFor(t, far.token), null);

    await advance(t, 60);
    await until(t, async () => (await offerFor(t, near.token))?.reference === reference, "offer");
    assert.equal(await offerFor(t, far.token), null, "one offer, to the nearest");
    const trip = await t.call("GET", `/business/trips/${reference}`, { key: b.api_key });
    assert.equal(trip.body.data.status, "scheduled", "scheduled until a driver accepts");
  }));

Deno.test("dispatch: a trip booked an hour ahead and marked ready is not offered before the lead", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const near = await onlineDriverAt(t, -24.650, 25.9086);
    const scheduledAt = new Date(t.clock.now() + 60 * 60_000).toISOString();
    const booked = await book(t, b.api_key, { ...PARCEL, scheduled_at: scheduledAt });
    assert.equal(booked.status, 201, JSON.stringify(booked.body));
    const reference = booked.body.data.reference as string;
    // spec: business 3.1: "scheduled: offered to drivers shortly before scheduled_at"; the
    // order packed early changes nothing of when.
    const ready = await t.call("POST", `/business/trip/${reference}/ready`, { key: b.api_key });
    assert.equal(ready.status, 200, JSON.stringify(ready.body));
    await t.settle();
    assert.equal(await offerFor(t, near.token), null, "not offered at readiness");
    const trip = await t.call("GET", `/business/trips/${reference}`, { key: b.api_key });
    assert.equal(trip.body.data.status, "scheduled");
  }));
