/**
 * Business API 4.4 with 3.1: the autopilot's first step (assign_driver) comes when live dispatch
 * would offer the trip: a prep order at booking + prep_minutes - the operator's lead (12), or at
 * once when marked ready; a scheduled trip at the operator's lead before scheduled_at. Time is the
 * manual clock.
 */
import assert from "node:assert/strict";
import { advance } from "../../helpers/receiver.ts";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { book, fundedBusiness, PARCEL } from "./trips_fixtures.ts";

async function steps(t: TestEnv, n: number, seconds = 1): Promise<void> {
  for (let i = 0; i < n; i++) {
    await advance(t, seconds);
    await t.env.runtime.outboxesIdle();
  }
}

async function statusOf(t: TestEnv, key: string, reference: string): Promise<string> {
  const r = await t.call("GET", `/business/trips/${reference}`, { key });
  return r.body.data.status;
}

async function autopilotOn(t: TestEnv): Promise<string> {
  const b = await fundedBusiness(t);
  const put = await t.call("PUT", "/business/sandbox/autopilot", {
    key: b.api_key,
    body: { scenario: "delivered", step_seconds: 1 },
  });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  return b.api_key;
}

async function booked(t: TestEnv, key: string, body: Record<string, unknown>): Promise<string> {
  const r = await book(t, key, { ...PARCEL, ...body });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.data.reference as string;
}

Deno.test("sandbox autopilot: a prep order is assigned at booking + prep_minutes - 12, not before", () =>
  withTestEnv(async (t) => {
    const key = await autopilotOn(t);
    const trip = await booked(t, key, { prep_minutes: 30 });
    await steps(t, 5);
    assert.equal(await statusOf(t, key, trip), "pending", "not offered a few seconds on");
    await steps(t, 1, 18 * 60 - 5);
    assert.equal(await statusOf(t, key, trip), "pending", "not before 18 minutes");
    // Offered at 18 minutes; the simulated driver accepts a step (1 second) after.
    await steps(t, 1);
    assert.equal(await statusOf(t, key, trip), "accepted");
  }, { name: "sandbox" }));

Deno.test("sandbox autopilot: a prep order marked ready is assigned at once", () =>
  withTestEnv(async (t) => {
    const key = await autopilotOn(t);
    const trip = await booked(t, key, { prep_minutes: 30 });
    await steps(t, 3);
    assert.equal(await statusOf(t, key, trip), "pending");
    const ready = await t.call("POST", `/business/trip/${trip}/ready`, { key, body: {} });
    assert.equal(ready.status, 200, JSON.stringify(ready.body));
    await t.env.runtime.outboxesIdle();
    await steps(t, 1);
    assert.equal(await statusOf(t, key, trip), "accepted", "a step after ready");
  }, { name: "sandbox" }));

Deno.test("sandbox autopilot: a scheduled trip is assigned at the operator's lead before scheduled_at", () =>
  withTestEnv(async (t) => {
    const key = await autopilotOn(t);
    const at = new Date(t.clock.now() + 60 * 60_000).toISOString();
    const trip = await booked(t, key, { scheduled_at: at });
    await steps(t, 5);
    assert.equal(await statusOf(t, key, trip), "scheduled", "not a few seconds on");
    // The default lead is 15 minutes: due 45 minutes after booking.
    await steps(t, 1, 45 * 60 - 5);
    assert.equal(await statusOf(t, key, trip), "scheduled", "not before the lead");
    await steps(t, 1);
    assert.equal(await statusOf(t, key, trip), "accepted");
  }, { name: "sandbox" }));

Deno.test("sandbox autopilot: a scheduled_at within the next 10 minutes is treated as now: assigned a step after booking", () =>
  withTestEnv(async (t) => {
    const key = await autopilotOn(t);
    const at = new Date(t.clock.now() + 9 * 60_000).toISOString();
    const trip = await booked(t, key, { scheduled_at: at });
    await steps(t, 1);
    assert.equal(await statusOf(t, key, trip), "accepted");
  }, { name: "sandbox" }));
