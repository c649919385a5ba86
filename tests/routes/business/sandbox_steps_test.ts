/**
 * Business API 4.4 simulation steps: each step is the driver app's command given by the trip's
 * simulated driver; its answer names the webhooks it sent, and the receiver gets exactly the
 * events of 4.4's table with their documented fields. Steps out of order are refused as the spec
 * and the trip's rules say; live and another business's trip are not found.
 */
import assert from "node:assert/strict";
import { type Receiver, startReceiver, until } from "../../helpers/receiver.ts";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { book, fundedBusiness, hooked, PARCEL } from "./trips_fixtures.ts";
import { commandKind, whileFlaky } from "../../helpers/faults.ts";

const step = (t: TestEnv, key: string, ref: string | number, name: string, body = {}) =>
  t.call("POST", `/business/sandbox/trips/${ref}/${name}`, { key, body });

/** Runs `names` in order, each 200, answering the events each step named. */
async function run(t: TestEnv, key: string, ref: string | number, names: string[], body = {}) {
  const events: string[][] = [];
  for (const name of names) {
    const r = await step(t, key, ref, name, body);
    assert.equal(r.status, 200, `${name}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body.data.environment, "sandbox");
    assert.equal(r.body.data.step, name);
    for (const w of r.body.data.webhooks) {
      assert.match(w.event_id, /^evt_/);
      assert.ok(["pending", "delivered"].includes(w.status), w.status);
    }
    events.push(r.body.data.webhooks.map((w: { event: string }) => w.event));
  }
  return events;
}

/** The bodies the receiver got for the trip, by event name. */
async function received(t: TestEnv, receiver: Receiver, reference: string, n: number) {
  const mine = () =>
    receiver.deliveries.map((d) => JSON.parse(d.body)).filter((b) =>
      b.data.reference === reference
    );
  await until(t, () => mine().length >= n, `${n} webhooks of ${reference}`);
  return new Map(mine().map((b) => [b.event, b]));
}

Deno.test("sandbox steps: a delivery step by step, by external_reference, with 4.4's webhooks", () =>
  withTestEnv(async (t) => {
    const receiver = startReceiver();
    try {
      const b = await hooked(t, receiver);
      const booked = await book(t, b.api_key, {
        ...PARCEL,
        external_reference: "ORD-41",
        cod_amount: 150,
        delivery_code: "4411",
        age_verification_required: true,
      });
      assert.equal(booked.status, 201, JSON.stringify(booked.body));
      const trip = booked.body.data;
      for (const early of ["arrive_pickup", "deliver", "complete_return"]) {
        const r = await step(t, b.api_key, "ORD-41", early);
        assert.equal(r.status, 409, early);
        assert.equal(r.body.code, "driver_not_assigned");
      }
      const events = await run(t, b.api_key, "ORD-41", [
        "assign_driver",
        "arrive_pickup",
        "pick_up",
      ]);
      assert.deepEqual(events, [["trip.accepted"], [], ["trip.picked_up"]]);
      // spec: business 7: the business's own cancel after pick_up is refused, the trip unchanged.
      const cancel = await t.call("POST", `/business/trips/${trip.reference}/cancel`, {
        key: b.api_key,
        body: { reason: "too late" },
      });
      assert.equal(cancel.status, 422);
      assert.equal(cancel.body.code, "not_cancellable");
      const noReturn = await step(t, b.api_key, trip.reference, "complete_return");
      assert.equal(noReturn.status, 409);
      assert.equal(noReturn.body.code, "no_return_in_progress");
      const tail = await run(t, b.api_key, trip.reference, ["arrive_dropoff", "deliver"]);
      assert.deepEqual(tail, [[], ["trip.age_verified", "cod.collected", "trip.completed"]]);
      const again = await step(t, b.api_key, trip.reference, "deliver");
      assert.equal(again.status, 409, "a completed trip is not delivered twice");
      const reassigned = await step(t, b.api_key, trip.reference, "assign_driver");
      assert.equal(reassigned.status, 409, JSON.stringify(reassigned.body));
      assert.equal(reassigned.body.code, "invalid_transition");
      assert.equal(again.body.code, "invalid_transition");

      const got = await received(t, receiver, trip.reference, 6);
      assert.deepEqual([...got.keys()].sort(), [
        "cod.collected",
        "trip.accepted",
        "trip.age_verified",
        "trip.completed",
        "trip.created",
        "trip.picked_up",
      ]);
      assert.equal(
        got.get("trip.picked_up").data.collect_override_reason,
        "sandbox simulated scan",
      );
      assert.equal(got.get("cod.collected").data.cod_collected_amount, 150);
      const done = got.get("trip.completed").data;
      assert.equal(done.delivery_outcome, "delivered");
      assert.equal(done.returned, false);
      assert.equal(done.status, "completed");
    } finally {
      await receiver.close();
    }
  }, { name: "sandbox" }));

Deno.test("sandbox steps: a failed delivery and an ID refusal start returns that complete_return ends", () =>
  withTestEnv(async (t) => {
    const receiver = startReceiver();
    try {
      const b = await hooked(t, receiver);
      const failed = (await book(t, b.api_key, PARCEL)).body.data;
      const refused = (await book(t, b.api_key, { ...PARCEL, age_verification_required: true }))
        .body.data;
      const approach = ["assign_driver", "arrive_pickup", "pick_up", "arrive_dropoff"];
      // By integer id.
      await run(t, b.api_key, failed.id, approach);
      const fail = await run(t, b.api_key, failed.id, ["fail_delivery"], { reason: "nobody home" });
      assert.deepEqual(fail, [["trip.delivery_failed"]]);
      const ret = await run(t, b.api_key, failed.id, ["complete_return"]);
      assert.deepEqual(ret, [["trip.completed"]]);

      await run(t, b.api_key, refused.reference, approach);
      const noId = await run(t, b.api_key, refused.reference, ["id_refused"], { reason: "no ID" });
      assert.deepEqual(noId, [["trip.age_verification_failed"]]);
      await run(t, b.api_key, refused.reference, ["complete_return"]);

      const f = await received(t, receiver, failed.reference, 5);
      const df = f.get("trip.delivery_failed").data;
      assert.equal(df.reason, "nobody home");
      assert.equal(df.return_reason, "nobody home");
      assert.equal(df.returning, true);
      assert.match(df.return_due_at, /^\d{4}-\d\d-\d\dT/);
      const fc = f.get("trip.completed").data;
      assert.deepEqual([fc.delivery_outcome, fc.returned, fc.return_reason], [
        "returned",
        true,
        "nobody home",
      ]);
      const r = await received(t, receiver, refused.reference, 5);
      const av = r.get("trip.age_verification_failed").data;
      assert.deepEqual([av.age_verification_outcome, av.reason], ["refused", "no ID"]);
      const rc = r.get("trip.completed").data;
      assert.deepEqual([rc.delivery_outcome, rc.returned, rc.return_reason], [
        "returned",
        true,
        "age_verification_refused",
      ]);
      // The reads say it too, as the webhooks do.
      for (
        const [ref, reason] of [[failed.reference, "nobody home"], [
          refused.reference,
          rc.return_reason,
        ]]
      ) {
        const read = (await t.call("GET", `/business/trips/${ref}`, { key: b.api_key })).body.data;
        assert.deepEqual([read.delivery_outcome, read.returning, read.return_reason], [
          "returned",
          false,
          reason,
        ]);
        assert.match(read.return_due_at, /^\d{4}-\d\d-\d\dT/);
      }
    } finally {
      await receiver.close();
    }
  }, { name: "sandbox" }));

Deno.test("sandbox steps: the driver's cancellation ends the trip; refusals; another business and live find nothing", async () => {
  await withTestEnv(async (t) => {
    const receiver = startReceiver();
    try {
      const b = await hooked(t, receiver);
      const trip = (await book(t, b.api_key, PARCEL)).body.data;
      const refusedId = await run(t, b.api_key, trip.reference, ["assign_driver"]);
      assert.deepEqual(refusedId, [["trip.accepted"]]);
      const noAge = await step(t, b.api_key, trip.reference, "id_refused", { reason: "x" });
      assert.equal(noAge.status, 409, "not yet collected");
      const events = await run(
        t,
        b.api_key,
        trip.reference,
        ["arrive_pickup", "cancel_by_driver"],
        {
          reason: "flat tyre",
        },
      );
      assert.deepEqual(events, [[], ["trip.cancelled"]]);
      const c = (await received(t, receiver, trip.reference, 3)).get("trip.cancelled").data;
      assert.deepEqual([c.cancelled_by, c.reason, c.status], ["driver", "flat tyre", "cancelled"]);
      // spec: business 3.1: cancelled is final: no step moves it, assign_driver included.
      for (const name of ["assign_driver", "arrive_pickup", "cancel_by_driver"]) {
        const ended = await step(t, b.api_key, trip.reference, name, { reason: "x" });
        assert.equal(ended.status, 409, `${name}: ${JSON.stringify(ended.body)}`);
        assert.equal(ended.body.code, "invalid_transition", name);
        assert.match(ended.body.message, /the trip is cancelled/, name);
      }

      const other = await fundedBusiness(t);
      const theirs = await step(t, other.api_key, trip.reference, "assign_driver");
      assert.equal(theirs.status, 404);
      assert.equal(theirs.body.code, "not_found");
      const unknown = await step(t, b.api_key, trip.reference, "teleport");
      assert.equal(unknown.status, 422);
      assert.equal(unknown.body.code, "validation_failed");
    } finally {
      await receiver.close();
    }
  }, { name: "sandbox" });
  await withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const trip = (await book(t, b.api_key, PARCEL)).body.data;
    const r = await step(t, b.api_key, trip.reference, "assign_driver");
    assert.equal(r.status, 404);
    assert.equal(r.body.code, "not_found");
    assert.match(r.body.message, /sandbox base/);
    const after = await t.call("GET", `/business/trips/${trip.reference}`, { key: b.api_key });
    assert.equal(after.body.data.status, "pending", "nothing changed on live");
  });
});

// spec: business 4.4: "Answer: 200 `{success, environment: sandbox, step, trip {reference, status,
// returning, ...}, webhooks[{event, event_id, status}]}`"; the same fields stay under `data`.
Deno.test("sandbox steps: the answer is {success, environment, step, trip, webhooks} at the top level, and the same under data; the OpenAPI document shows both", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const trip = (await book(t, b.api_key, PARCEL)).body.data;
    const r = await step(t, b.api_key, trip.reference, "assign_driver");
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(Object.keys(r.body).sort(), [
      "data",
      "environment",
      "step",
      "success",
      "trip",
      "webhooks",
    ]);
    assert.deepEqual([r.body.success, r.body.environment, r.body.step], [
      true,
      "sandbox",
      "assign_driver",
    ]);
    assert.deepEqual(
      [r.body.trip.reference, r.body.trip.status, r.body.trip.returning],
      [trip.reference, "accepted", false],
    );
    assert.deepEqual(r.body.webhooks.map((w: { event: string }) => w.event), ["trip.accepted"]);
    assert.deepEqual(r.body.data, { environment: "sandbox", ...pick(r.body) });
    const { body: doc } = await t.call("GET", "/api-docs/openapi.json");
    const answer = doc.paths["/business/sandbox/trips/{reference}/{step}"].post.responses["200"]
      .content["application/json"].schema;
    for (const field of ["step", "trip", "webhooks", "data"]) {
      assert.ok(answer.properties[field], field);
      assert.ok(answer.required.includes(field), field);
    }
  }, { name: "sandbox" }));

function pick({ step, trip, webhooks }: Record<string, unknown>) {
  return { step, trip, webhooks };
}

Deno.test("sandbox steps: a step whose read of the trip meets a busy actor answers 503 actor_busy, not 404; then it is taken", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const booked = await book(t, b.api_key, PARCEL);
    assert.equal(booked.status, 201, JSON.stringify(booked.body));
    const ref = booked.body.data.reference;
    let busy = { status: 0, body: {} as { code?: string } };
    const failed = await whileFlaky(t.env, {
      fails: commandKind("get", "business_trip"),
      refuse: true,
    }, async () => {
      busy = await step(t, b.api_key, ref, "assign_driver");
    });
    assert.equal(failed, 1);
    assert.equal(busy.status, 503, JSON.stringify(busy.body));
    assert.equal(busy.body.code, "actor_busy");
    assert.equal((await step(t, b.api_key, ref, "assign_driver")).status, 200);
  }, { name: "sandbox" }));

Deno.test("sandbox steps: a step taken again under its key (the autopilot run again after a crash) answers its first answer, complete_return and cancel_by_driver too", () =>
  withTestEnv(async (t) => {
    const { moveSandboxTrip } = await import("../../../src/business/flows/sandbox_steps.ts");
    const b = await fundedBusiness(t);
    const returned = (await book(t, b.api_key, PARCEL)).body.data.reference;
    const ended = (await book(t, b.api_key, PARCEL)).body.data.reference;
    const runs: [string, string[]][] = [
      [returned, ["assign_driver", "arrive_pickup", "pick_up", "fail_delivery", "complete_return"]],
      [ended, ["assign_driver", "arrive_pickup", "cancel_by_driver"]],
    ];
    for (const [reference, steps] of runs) {
      for (const [i, name] of steps.entries()) {
        const key = { idempotency_key: `autopilot:${reference}:${i}` };
        const first = await moveSandboxTrip(t.env, b.id, reference, name as never, key);
        if (i < steps.length - 1) continue;
        // spec: business 4.4: "asked again after a crash, the step is answered under the same key".
        const again = await moveSandboxTrip(t.env, b.id, reference, name as never, key);
        assert.deepEqual(again, first, name);
      }
    }
  }, { name: "sandbox" }));
