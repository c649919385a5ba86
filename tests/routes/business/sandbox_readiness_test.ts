/**
 * Business API appendix 3, GET /business/sandbox/readiness: the flows a business's own receiver
 * handled in the sandbox, judged from the webhooks it answered 2xx. Trips are driven through the
 * driver app, as a real driver would; a receiver answering 500 and the built-in inbox count for
 * nothing.
 */
import assert from "node:assert/strict";
import { readinessEvidence } from "../../../src/business/queries/sandbox_readiness.ts";
import { type AcceptedTrip, acceptedTrip, act, pngFile } from "../../helpers/driver_trips.ts";
import { type Receiver, startReceiver, until } from "../../helpers/receiver.ts";
import { type CreatedBusiness, type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { book, fundedBusiness, PARCEL } from "./trips_fixtures.ts";

const READINESS = "/business/sandbox/readiness";

async function pointAt(t: TestEnv, b: CreatedBusiness, url: string): Promise<void> {
  const r = await t.call("PATCH", "/business/profile", {
    key: b.api_key,
    body: { webhook_url: url },
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
}

/** Collects and delivers the trip through the driver app (proof photo and signature). */
async function deliver(t: TestEnv, trip: AcceptedTrip, fields: Record<string, string> = {}) {
  await act(t, trip, "arrive_pickup");
  await act(t, trip, "pick_up", { force_reason: "no scanner" });
  await act(t, trip, "arrive_dropoff");
  const form = new FormData();
  for (const [k, v] of Object.entries({ idempotency_key: "deliver-1", ...fields })) form.set(k, v);
  form.set("proof_photo", pngFile("door.png"));
  form.set("signature", pngFile("sig.png"));
  const r = await t.call("POST", `/driver/trips/${trip.reference}/deliver`, {
    bearer: trip.driver.token,
    body: form,
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
}

/** Fails the delivery (plain, or an ID refusal) and completes the return. */
async function failAndReturn(
  t: TestEnv,
  trip: AcceptedTrip,
  action: "fail_delivery" | "id_refused",
) {
  await act(t, trip, "arrive_pickup");
  await act(t, trip, "pick_up", { force_reason: "no scanner" });
  await act(t, trip, "arrive_dropoff");
  const failed = await act(t, trip, action, { reason: "nobody home" });
  assert.equal(failed.status, 200, JSON.stringify(failed.body));
  const back = await act(t, trip, "complete_return");
  assert.equal(back.status, 200, JSON.stringify(back.body));
}

/** Waits until the readiness table holds `n` flows' evidence for the business. */
async function flowsDone(t: TestEnv, b: CreatedBusiness, n: number): Promise<void> {
  await until(t, async () => {
    await t.settle();
    return Object.keys((await readinessEvidence(t.env.db, b.id)).evidence).length >= n;
  }, `${n} flows done`);
}

async function readiness(t: TestEnv, b: CreatedBusiness) {
  const r = await t.call("GET", READINESS, { key: b.api_key });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const byFlow = Object.fromEntries(
    r.body.data.flows.map((f: { flow: string }) => [f.flow, f]),
  );
  return { ready: r.body.data.ready as boolean, byFlow };
}

async function withReceiver(fn: (r: Receiver) => Promise<void>): Promise<void> {
  const receiver = startReceiver();
  try {
    await fn(receiver);
  } finally {
    await receiver.close();
  }
}

Deno.test("sandbox readiness: each flow the receiver answered 2xx is done with its evidence; age-restricted goods add the ID refusal", () =>
  withTestEnv((t) =>
    withReceiver(async (receiver) => {
      const b = await fundedBusiness(t);
      await pointAt(t, b, receiver.url);
      const before = await readiness(t, b);
      assert.equal(before.ready, false);
      assert.equal(before.byFlow.delivery.done, false);
      assert.match(before.byFlow.delivery.missing, /trip\.completed/);
      assert.equal(before.byFlow.id_refusal.required, false, "no age-restricted trip booked");

      const delivered = await acceptedTrip(t, {}, b);
      await deliver(t, delivered);
      const returned = await acceptedTrip(t, {}, b);
      await failAndReturn(t, returned, "fail_delivery");
      const dropped = await acceptedTrip(t, {}, b);
      // Past the dispatch window the driver's cancellation ends the trip (spec: business 3.1).
      t.clock.advanceBy(15 * 60_000);
      assert.equal(
        (await act(t, dropped, "cancel_by_driver", { reason: "flat tyre" })).status,
        200,
      );
      const own = await book(t, b.api_key, PARCEL);
      const cancelled = await t.call("POST", `/business/trips/${own.body.data.id}/cancel`, {
        key: b.api_key,
        body: { reason: "customer changed their mind" },
      });
      assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
      await flowsDone(t, b, 4);

      const after = await readiness(t, b);
      assert.equal(after.ready, true, JSON.stringify(after));
      assert.equal(after.byFlow.delivery.evidence.trip_reference, delivered.reference);
      const sent = receiver.deliveries.map((d) => JSON.parse(d.body)).find((x) =>
        x.event === "trip.completed" && x.data.reference === delivered.reference
      );
      assert.equal(after.byFlow.delivery.evidence.event_id, sent.event_id);
      assert.equal(
        after.byFlow.failed_delivery_and_return.evidence.trip_reference,
        returned.reference,
      );
      assert.equal(after.byFlow.driver_cancellation.evidence.trip_reference, dropped.reference);
      assert.equal(after.byFlow.own_cancellation.evidence.trip_reference, own.body.data.reference);
      assert.equal(after.byFlow.id_refusal.done, false);
      assert.equal(after.byFlow.delivery.missing, null);

      // Selling age-restricted goods makes the ID refusal required, until it is handled.
      const restricted = await acceptedTrip(t, { age_verification_required: true }, b);
      await until(t, async () => (await readiness(t, b)).byFlow.id_refusal.required, "required");
      assert.equal((await readiness(t, b)).ready, false);
      await failAndReturn(t, restricted, "id_refused");
      await flowsDone(t, b, 5);
      const final = await readiness(t, b);
      assert.equal(final.ready, true);
      assert.equal(final.byFlow.id_refusal.evidence.trip_reference, restricted.reference);
    }), { name: "sandbox" }));

Deno.test("sandbox readiness: a receiver answering 500 and the built-in inbox count for nothing; another business's flows are not yours", () =>
  withTestEnv((t) =>
    withReceiver(async (receiver) => {
      receiver.failFirst = 1_000;
      const b = await fundedBusiness(t);
      const other = await fundedBusiness(t);
      await pointAt(t, b, receiver.url);
      const first = await acceptedTrip(t, {}, b);
      await deliver(t, first);
      const completed = () =>
        receiver.deliveries.some((d) => JSON.parse(d.body).event === "trip.completed");
      await until(t, completed, "the trip.completed answered 500");
      const failedAt = t.clock.now();

      // The inbox takes the next delivery of another business: not its receiver either.
      assert.equal(
        (await t.call("POST", "/business/sandbox/inbox", { key: other.api_key })).status,
        200,
      );
      const inboxTrip = await acceptedTrip(t, {}, other);
      await deliver(t, inboxTrip);

      // The receiver recovers: the retry after a minute is the evidence, not the failed attempt.
      receiver.failFirst = 0;
      t.clock.advanceBy(60_000);
      await flowsDone(t, b, 1);
      const mine = await readiness(t, b);
      assert.equal(mine.byFlow.delivery.done, true);
      assert.ok(Date.parse(mine.byFlow.delivery.evidence.delivered_at) >= failedAt + 60_000);
      assert.equal(mine.byFlow.own_cancellation.done, false);

      const theirs = await readiness(t, other);
      assert.equal(theirs.byFlow.delivery.done, false, "the inbox is not the receiver");
      assert.equal(theirs.ready, false);
    }), { name: "sandbox" }));
