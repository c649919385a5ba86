/**
 * Business API 4.4: a simulation step's answer names the webhooks of its own commit only; a
 * cancellation of the same trip committed while the step's answer is being made is not the
 * step's, and is not listed in it.
 */
import assert from "node:assert/strict";
import { tripActor } from "../../../actors/business/trip/mod.ts";
import { afterAsk, commandKind } from "../../helpers/faults.ts";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { bookedReference, fundedBusiness, PARCEL } from "./trips_fixtures.ts";

/** `name` on the trip, with the business's cancel committed right after the step's own commit. */
async function stepThenCancel(t: TestEnv, key: string, reference: string, name: string) {
  const kind = name === "assign_driver" ? "accept" : "arrive";
  afterAsk(t.env.runtime, commandKind(kind, tripActor.type), async () => {
    const cancel = await t.call("POST", `/business/trips/${reference}/cancel`, {
      key,
      body: { reason: "changed my mind" },
    });
    assert.equal(cancel.status, 200, JSON.stringify(cancel.body));
  });
  const r = await t.call("POST", `/business/sandbox/trips/${reference}/${name}`, { key, body: {} });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data.webhooks.map((w: { event: string }) => w.event);
}

Deno.test("sandbox steps: assign_driver lists its trip.accepted alone, not a cancellation committed meanwhile", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const reference = await bookedReference(t, b.api_key, PARCEL);
    assert.deepEqual(await stepThenCancel(t, b.api_key, reference, "assign_driver"), [
      "trip.accepted",
    ]);
    const trip = await t.call("GET", `/business/trips/${reference}`, { key: b.api_key });
    assert.equal(trip.body.data.status, "cancelled");
  }, { name: "sandbox" }));

Deno.test("sandbox steps: arrive_pickup lists no webhook, though the trip was cancelled meanwhile", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const reference = await bookedReference(t, b.api_key, PARCEL);
    const assigned = await t.call("POST", `/business/sandbox/trips/${reference}/assign_driver`, {
      key: b.api_key,
      body: {},
    });
    assert.equal(assigned.status, 200, JSON.stringify(assigned.body));
    assert.deepEqual(await stepThenCancel(t, b.api_key, reference, "arrive_pickup"), []);
  }, { name: "sandbox" }));
