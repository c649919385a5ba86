/**
 * Business API 4.4 autopilot: PUT/GET /business/sandbox/autopilot; trips booked afterwards run the
 * scenario on durable timers moved by the manual clock (no sleeping), a booking's own
 * sandbox_scenario wins, a refused step is tried 3 times and then left for manual moves, and a
 * restart resumes the steps from the KV file.
 */
import assert from "node:assert/strict";
import { advance } from "../../helpers/receiver.ts";
import { openTestEnv, type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { book, fundedBusiness, PARCEL } from "./trips_fixtures.ts";

/** Moves the clock a step at a time, letting each due step's handler finish. */
async function steps(t: TestEnv, n: number, seconds = 1): Promise<void> {
  for (let i = 0; i < n; i++) {
    await advance(t, seconds);
    await t.env.runtime.outboxesIdle();
  }
}

/** The setting's id_refused: runs on every trip booked afterwards, age-restricted or not. */
async function idRefusedSetting(t: TestEnv, key: string): Promise<void> {
  const put = await t.call("PUT", "/business/sandbox/autopilot", {
    key,
    body: { scenario: "id_refused", step_seconds: 5 },
  });
  assert.equal(put.status, 200, JSON.stringify(put.body));
}

async function statusOf(t: TestEnv, key: string, reference: string): Promise<string> {
  const r = await t.call("GET", `/business/trips/${reference}`, { key });
  return r.body.data.status;
}

Deno.test("sandbox autopilot: the setting runs each trip booked afterwards; a booking's own scenario wins", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const put = await t.call("PUT", "/business/sandbox/autopilot", {
      key: b.api_key,
      body: { scenario: "delivered", step_seconds: 1 },
    });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.deepEqual(
      [put.body.data.scenario, put.body.data.step_seconds, put.body.data.moving],
      ["delivered", 1, []],
    );
    const delivered = (await book(t, b.api_key, PARCEL)).body.data;
    const cancelled =
      (await book(t, b.api_key, { ...PARCEL, sandbox_scenario: "cancel_by_driver" }))
        .body.data;
    const manual = (await book(t, b.api_key, { ...PARCEL, sandbox_scenario: "off" })).body.data;
    const got = await t.call("GET", "/business/sandbox/autopilot", { key: b.api_key });
    const moving = got.body.data.moving.map((m: { reference: string }) => m.reference).sort();
    assert.deepEqual(moving, [delivered.reference, cancelled.reference].sort());
    assert.equal(got.body.data.moving[0].next_step, "assign_driver");

    await steps(t, 2);
    assert.equal(await statusOf(t, b.api_key, delivered.reference), "arrived");
    await steps(t, 3);
    assert.equal(await statusOf(t, b.api_key, delivered.reference), "completed");
    assert.equal(await statusOf(t, b.api_key, cancelled.reference), "cancelled");
    assert.equal(await statusOf(t, b.api_key, manual.reference), "pending", "off: left alone");
    const after = await t.call("GET", "/business/sandbox/autopilot", { key: b.api_key });
    assert.deepEqual([after.body.data.moving, after.body.data.gave_up], [[], []]);

    const off = await t.call("PUT", "/business/sandbox/autopilot", {
      key: b.api_key,
      body: { scenario: "off" },
    });
    assert.deepEqual([off.body.data.scenario, off.body.data.step_seconds], ["off", 5]);
    const later = (await book(t, b.api_key, PARCEL)).body.data;
    await steps(t, 2, 5);
    assert.equal(await statusOf(t, b.api_key, later.reference), "pending", "off stops it");
  }, { name: "sandbox" }));

Deno.test("sandbox autopilot: off stops the trips the setting started at their next step; a booking's own scenario runs on", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    await t.call("PUT", "/business/sandbox/autopilot", {
      key: b.api_key,
      body: { scenario: "delivered", step_seconds: 1 },
    });
    const bySetting = (await book(t, b.api_key, PARCEL)).body.data;
    const own = (await book(t, b.api_key, { ...PARCEL, sandbox_scenario: "delivered" })).body
      .data;
    await steps(t, 1);
    assert.equal(await statusOf(t, b.api_key, bySetting.reference), "accepted");
    const off = await t.call("PUT", "/business/sandbox/autopilot", {
      key: b.api_key,
      body: { scenario: "off" },
    });
    assert.equal(off.status, 200, JSON.stringify(off.body));
    await steps(t, 6, 5);
    // spec: business 4.4 "off stops it": left where it was, for manual moves.
    assert.equal(await statusOf(t, b.api_key, bySetting.reference), "accepted");
    assert.equal(await statusOf(t, b.api_key, own.reference), "completed");
    const got = await t.call("GET", "/business/sandbox/autopilot", { key: b.api_key });
    assert.deepEqual([got.body.data.moving, got.body.data.gave_up], [[], []]);
  }, { name: "sandbox" }));

Deno.test("sandbox autopilot: a step the rules refuse is tried 3 times, then left for manual moves", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    // The setting's id_refused on a trip that is not age-restricted: the trip refuses the step
    // (a booking's own id_refused on such a trip is refused at booking).
    await idRefusedSetting(t, b.api_key);
    const trip = (await book(t, b.api_key, PARCEL)).body.data;
    await steps(t, 4, 5);
    assert.equal(await statusOf(t, b.api_key, trip.reference), "active");
    await steps(t, 3, 5);
    const got = await t.call("GET", "/business/sandbox/autopilot", { key: b.api_key });
    assert.deepEqual(got.body.data.moving, []);
    const [gave] = got.body.data.gave_up;
    assert.equal(gave.reference, trip.reference);
    assert.equal(gave.tries, 3);
    assert.equal(gave.next_step, "id_refused");
    assert.equal(gave.refusal.code, "invalid_transition");
    assert.match(gave.refusal.message, /not age-restricted: there is no ID check to refuse/);
    await steps(t, 2, 5);
    assert.equal(await statusOf(t, b.api_key, trip.reference), "active", "no more tries");
    // Left for manual moves: the integrator finishes it by hand.
    const done = await t.call("POST", `/business/sandbox/trips/${trip.reference}/fail_delivery`, {
      key: b.api_key,
      body: { reason: "taken over" },
    });
    assert.equal(done.status, 200, JSON.stringify(done.body));
  }, { name: "sandbox" }));

Deno.test("sandbox autopilot: bad settings are refused naming the field; live does not serve it", async () => {
  await withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    for (const body of [{ scenario: "delivered", step_seconds: 0 }, { scenario: "fly" }, {}]) {
      const r = await t.call("PUT", "/business/sandbox/autopilot", { key: b.api_key, body });
      assert.equal(r.status, 422, JSON.stringify(body));
      assert.equal(r.body.code, "validation_failed");
    }
    const bad = await book(t, b.api_key, { ...PARCEL, sandbox_scenario: "teleport" });
    assert.equal(bad.status, 422);
    assert.equal(bad.body.code, "validation_failed");
    const got = await t.call("GET", "/business/sandbox/autopilot", { key: b.api_key });
    assert.deepEqual([got.body.data.scenario, got.body.data.step_seconds], ["off", 5]);
  }, { name: "sandbox" });
  await withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    for (const method of ["PUT", "GET"]) {
      const r = await t.call(method, "/business/sandbox/autopilot", {
        key: b.api_key,
        body: method === "PUT" ? { scenario: "delivered" } : undefined,
      });
      assert.equal(r.status, 404);
      assert.match(r.body.message, /sandbox base/);
    }
  });
});

Deno.test("sandbox autopilot: a restart resumes the steps from the stored timers", async () => {
  const kvPath = await Deno.makeTempFile({ suffix: ".kv" });
  try {
    const first = await openTestEnv({ name: "sandbox", kvPath });
    let key: string, reference: string, stoppedAt: number;
    try {
      const b = await fundedBusiness(first);
      key = b.api_key;
      await first.call("PUT", "/business/sandbox/autopilot", {
        key,
        body: { scenario: "delivered", step_seconds: 1 },
      });
      reference = (await book(first, key, PARCEL)).body.data.reference;
      await steps(first, 2);
      assert.equal(await statusOf(first, key, reference), "arrived");
      stoppedAt = first.clock.now();
    } finally {
      await first.close();
    }
    const second = await openTestEnv({ name: "sandbox", kvPath });
    try {
      // The restarted process's clock reads on from where the first stopped.
      second.clock.advanceBy(stoppedAt - second.clock.now());
      await steps(second, 3);
      assert.equal(await statusOf(second, key, reference), "completed");
    } finally {
      await second.close();
    }
  } finally {
    await Deno.remove(kvPath).catch(() => {});
  }
});

// spec: business 4.4, appendix 1: the setting runs the trips booked while it is on; a retry of a
// booking made while it was off is the same booking, answered as it is, and starts nothing.
Deno.test("sandbox autopilot: a retry of a booking made while it was off is not taken over once it is on", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const order = { ...PARCEL, external_reference: "ORD-OFF-1" };
    const first = await book(t, b.api_key, order);
    assert.equal(first.status, 201, JSON.stringify(first.body));
    await steps(t, 2, 5);
    await t.call("PUT", "/business/sandbox/autopilot", {
      key: b.api_key,
      body: { scenario: "delivered", step_seconds: 1 },
    });
    const retry = await book(t, b.api_key, order);
    assert.equal(retry.status, 200, JSON.stringify(retry.body));
    assert.equal(retry.body.data.replayed, true);
    await steps(t, 6);
    assert.equal(await statusOf(t, b.api_key, first.body.data.reference), "pending");
    const got = await t.call("GET", "/business/sandbox/autopilot", { key: b.api_key });
    assert.deepEqual([got.body.data.moving, got.body.data.gave_up], [[], []]);
  }, { name: "sandbox" }));

// spec: business 4.4: gave_up lists the trips left for manual moves; a trip that ended (the
// business cancelled it mid-scenario) can take no more moves: its autopilot stops there.
Deno.test("sandbox autopilot: a trip the business cancels mid-scenario stops its autopilot, never listed as given up", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const trip = (await book(t, b.api_key, { ...PARCEL, sandbox_scenario: "delivered" })).body
      .data;
    await steps(t, 1, 5);
    assert.equal(await statusOf(t, b.api_key, trip.reference), "accepted");
    const cancel = await t.call("POST", `/business/trips/${trip.reference}/cancel`, {
      key: b.api_key,
      body: { reason: "changed my mind" },
    });
    assert.equal(cancel.status, 200, JSON.stringify(cancel.body));
    await steps(t, 5, 5);
    const got = await t.call("GET", "/business/sandbox/autopilot", { key: b.api_key });
    assert.deepEqual([got.body.data.moving, got.body.data.gave_up], [[], []]);
    assert.equal(await statusOf(t, b.api_key, trip.reference), "cancelled");
  }, { name: "sandbox" }));

/** The trip's status after each step, `+returning` once its return has started. */
async function stateOf(t: TestEnv, key: string, reference: string): Promise<string> {
  const r = await t.call("GET", `/business/trips/${reference}`, { key });
  const d = r.body.data;
  return `${d.status}${d.returning ? "+returning" : ""}${
    d.delivery_outcome ? `:${d.delivery_outcome}` : ""
  }`;
}

// spec: business 4.4 "Autopilot scenarios": failed_delivery (..., arrive_dropoff, fail_delivery,
// complete_return) and id_refused (..., arrive_dropoff, id_refused, complete_return; age-restricted
// orders), one step every step_seconds on the manual clock.
Deno.test("sandbox autopilot: failed_delivery and id_refused take their trips through each state to the return", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    await t.call("PUT", "/business/sandbox/autopilot", {
      key: b.api_key,
      body: { scenario: "failed_delivery", step_seconds: 2 },
    });
    const failed = (await book(t, b.api_key, PARCEL)).body.data.reference;
    const refused = (await book(t, b.api_key, {
      ...PARCEL,
      age_verification_required: true,
      sandbox_scenario: "id_refused",
    })).body.data.reference;
    const seen: Record<string, string[]> = { [failed]: [], [refused]: [] };
    for (let i = 0; i < 6; i++) {
      await steps(t, 1, 2);
      for (const ref of [failed, refused]) seen[ref]!.push(await stateOf(t, b.api_key, ref));
    }
    const states = [
      "accepted",
      "arrived",
      "active",
      "active",
      "active+returning",
      "completed:returned",
    ];
    assert.deepEqual(seen[failed], states);
    assert.deepEqual(seen[refused], states);
    const got = await t.call("GET", "/business/sandbox/autopilot", { key: b.api_key });
    assert.deepEqual([got.body.data.moving, got.body.data.gave_up], [[], []]);
  }, { name: "sandbox" }));

// spec: business 4.4: gave_up lists the trips left for manual moves; one the integrator then
// finished by hand has no moves left and leaves the list (else such trips crowd its bound).
Deno.test("sandbox autopilot: a trip given up and then finished by hand leaves gave_up", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    await idRefusedSetting(t, b.api_key);
    const trip = (await book(t, b.api_key, PARCEL)).body.data;
    await steps(t, 7, 5);
    const before = await t.call("GET", "/business/sandbox/autopilot", { key: b.api_key });
    assert.deepEqual(
      before.body.data.gave_up.map((g: { reference: string }) => g.reference),
      [trip.reference],
    );
    for (const name of ["fail_delivery", "complete_return"]) {
      const r = await t.call("POST", `/business/sandbox/trips/${trip.reference}/${name}`, {
        key: b.api_key,
        body: { reason: "taken over" },
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
    }
    await steps(t, 1, 5);
    const after = await t.call("GET", "/business/sandbox/autopilot", { key: b.api_key });
    assert.deepEqual([after.body.data.moving, after.body.data.gave_up], [[], []]);
  }, { name: "sandbox" }));
