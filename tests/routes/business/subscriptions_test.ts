/**
 * Business API 4.2 recurring deliveries over HTTP: create (Idempotency-Key replay and conflict,
 * answered before a changed setting is checked again; 422s that create nothing), the list, pause,
 * resume and cancel (409 on a bad transition), another business's 404, the partner scope's 403,
 * and occurrences booked by the real runtime's timers on the manual clock: each day once, a week's
 * jump books each missed day once, a refused wallet is reported and not retried.
 */
import assert from "node:assert/strict";
import { advance } from "../../helpers/receiver.ts";
import { busyAsks, commandKind, flakyRuntime } from "../../helpers/faults.ts";
import { walletActor } from "../../../actors/platform/wallet.ts";
import type { TestEnv } from "../../helpers/test_env.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import { fundedBusiness, PARCEL, TEST_FLAGS } from "./trips_fixtures.ts";
import { bookTrip } from "../../../src/business/flows/book.ts";
import { tripNumbersOf } from "../../../src/business/flows/trip_numbers.ts";
import { occurrenceKey } from "../../../src/business/rules/subscription.ts";
import { startSubscriptionOccurrences } from "../../../src/business/reactors/subscription_occurrences.ts";
import { outboxRetryDue } from "../../helpers/outbox_retry.ts";
import { sha256Hex } from "../../../src/domain/secrets.ts";
import { advanceAndBook, HOUR, subscribe, WEEKLY } from "./subscription_fixtures.ts";

Deno.test("subscriptions: create, replay by Idempotency-Key, conflict, read and list", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const headers = { "Idempotency-Key": "weekly-1" };
    const created = await subscribe(t, b.api_key, WEEKLY, headers);
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const s = created.body.data;
    // The clock starts on Monday 2026-11-02 at 10:00 in Gaborone.
    assert.deepEqual(
      [s.status, s.segment, s.days_of_week, s.timezone, s.starts_on, s.next_occurrence],
      ["active", "parcel", [2, 4], "Africa/Gaborone", "2026-11-02", {
        date: "2026-11-03",
        pickup_at: "2026-11-03T09:30:00+02:00",
      }],
    );
    assert.equal(s.delivery.dest_address, PARCEL.dest_address);
    const again = await subscribe(t, b.api_key, WEEKLY, headers);
    assert.deepEqual([again.status, again.body.data.id, again.body.data.replayed], [
      200,
      s.id,
      true,
    ]);
    const other = await subscribe(t, b.api_key, { ...WEEKLY, pickup_time: "10:00" }, headers);
    assert.deepEqual([other.status, other.body.code], [409, "reference_conflict"]);
    await advance(t, 60);
    const second = await subscribe(t, b.api_key, {
      ...WEEKLY,
      segment: "cargo",
      days_of_week: [6],
    });
    assert.equal(second.status, 201);
    assert.notEqual(second.body.data.id, s.id, "without a key every POST is a new subscription");

    const one = await t.call("GET", `/business/subscriptions/${s.id}`, { key: b.api_key });
    assert.deepEqual([one.status, one.body.data.id], [200, s.id]);
    await t.settle();
    const list = await t.call("GET", "/business/subscriptions", { key: b.api_key });
    assert.deepEqual(list.body.data.map((x: { id: string }) => x.id), [second.body.data.id, s.id]);
    await t.call("POST", `/business/subscriptions/${s.id}/pause`, { key: b.api_key });
    await t.settle();
    const paused = await t.call("GET", "/business/subscriptions?status=paused", {
      key: b.api_key,
    });
    assert.deepEqual(paused.body.data.map((x: { id: string }) => x.id), [s.id]);
  }));

// spec: business appendix 1, 2: a body external_reference wins over the header.
Deno.test("subscriptions: a retry with the same external_reference (no key, or another key) replays the first subscription; other details 409", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const body = { ...WEEKLY, external_reference: "WEEKLY-ORD-1" };
    const first = await subscribe(t, b.api_key, body);
    assert.equal(first.status, 201, JSON.stringify(first.body));
    const id = first.body.data.id;
    const again = await subscribe(t, b.api_key, body);
    assert.deepEqual([again.status, again.body.data?.id, again.body.data?.replayed], [
      200,
      id,
      true,
    ], JSON.stringify(again.body));
    const keyed = await subscribe(t, b.api_key, body, { "Idempotency-Key": "retry-2" });
    assert.deepEqual([keyed.status, keyed.body.data?.id, keyed.body.data?.replayed], [
      200,
      id,
      true,
    ], JSON.stringify(keyed.body));
    const other = await subscribe(t, b.api_key, { ...body, pickup_time: "10:00" });
    assert.deepEqual([other.status, other.body.code], [409, "reference_conflict"]);
    // Another business's same reference is its own subscription.
    const c = await fundedBusiness(t);
    const theirs = await subscribe(t, c.api_key, body);
    assert.equal(theirs.status, 201);
    await t.settle();
    const list = await t.call("GET", "/business/subscriptions", { key: b.api_key });
    assert.deepEqual(list.body.data.map((x: { id: string }) => x.id), [id], "one subscription");
  }));

/**
 * Runs `f` with the subscription named `from` stored as `to`: a subscription the code before the
 * body's reference named it (business appendix 2) was named by its Idempotency-Key alone.
 */
async function storedAs<T>(t: TestEnv, from: string, to: string, f: () => Promise<T>) {
  const runtime = t.env.runtime;
  const ask = runtime.ask, read = runtime.read;
  const renamed = (args: unknown[]) => {
    const [def, tenant, id, command, ...rest] = args as [{ type: string }, string, string, {
      kind: string;
      subscription?: { id: string };
    }];
    if (def.type !== "business_subscription" || id !== from) return args;
    const named = command.kind === "create"
      ? { ...command, subscription: { ...command.subscription!, id: to } }
      : command;
    return [def, tenant, to, named, ...rest];
  };
  runtime.ask =
    ((...args: unknown[]) =>
      (ask as (...a: unknown[]) => unknown).apply(runtime, renamed(args))) as typeof ask;
  runtime.read =
    ((...args: unknown[]) =>
      (read as (...a: unknown[]) => unknown).apply(runtime, renamed(args))) as typeof read;
  try {
    return await f();
  } finally {
    runtime.ask = ask;
    runtime.read = read;
  }
}

Deno.test("subscriptions: a subscription created before the body's external_reference named it (by its Idempotency-Key) is replayed by a retry of the same request, not created again", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const body = { ...WEEKLY, external_reference: "WEEKLY-OLD-1" };
    const headers = { "Idempotency-Key": "old-key-1" };
    const named = (seed: string) => `sub_${sha256Hex(`${b.id}\n${seed}`).slice(0, 24)}`;
    const byKey = named("subscription\nold-key-1");
    const first = await storedAs(
      t,
      named("subscription_reference\nWEEKLY-OLD-1"),
      byKey,
      () => subscribe(t, b.api_key, body, headers),
    );
    assert.deepEqual([first.status, first.body.data?.id], [201, byKey], JSON.stringify(first.body));
    // spec: business appendix 1, 2: the same request again (across the upgrade) books nothing new.
    const again = await subscribe(t, b.api_key, body, headers);
    assert.deepEqual([again.status, again.body.data?.id, again.body.data?.replayed], [
      200,
      byKey,
      true,
    ], JSON.stringify(again.body));
    await t.settle();
    const list = await t.call("GET", "/business/subscriptions", { key: b.api_key });
    assert.deepEqual(list.body.data.map((x: { id: string }) => x.id), [byKey], "one subscription");
  }));

Deno.test("subscriptions: bad fields answer 422 naming each and create nothing", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const bad = await subscribe(t, b.api_key, {
      ...WEEKLY,
      days_of_week: [0, 8],
      pickup_time: "25:00",
      timezone: "Mars/Olympus",
      dest_lat: undefined,
    });
    assert.equal(bad.status, 422);
    assert.equal(bad.body.code, "validation_failed");
    const paths = bad.body.errors.map((e: { path: string }) => e.path).sort();
    assert.deepEqual(paths, [
      "days_of_week.0",
      "days_of_week.1",
      "dest_lat",
      "pickup_time",
      "timezone",
    ]);
    const none = await subscribe(t, b.api_key, { ...WEEKLY, days_of_week: [] });
    assert.equal(none.status, 422);
    // A country with several zones: the subscription must name one.
    const us = await t.createBusiness({ country: "US" });
    await t.call("POST", `/operator/businesses/${us.id}/wallet`, {
      operator: true,
      body: { amount: "100.00", currency: "BWP", reference: "fund-us" },
    });
    const unnamed = await subscribe(t, us.api_key);
    assert.deepEqual([unnamed.status, unnamed.body.errors], [422, [{
      path: "timezone",
      message: "required: the business's country has no single time zone: US",
    }]]);
    const named = await subscribe(t, us.api_key, { ...WEEKLY, timezone: "America/Chicago" });
    assert.deepEqual([named.status, named.body.data.timezone], [201, "America/Chicago"]);
    const far = await subscribe(t, b.api_key, { ...WEEKLY, pickup_lat: 60, pickup_lng: 10 });
    assert.deepEqual([far.status, far.body.code], [422, "outside_service_area"]);
    await t.settle();
    const list = await t.call("GET", "/business/subscriptions", { key: b.api_key });
    assert.deepEqual(list.body.data, [], "nothing refused was created");
  }));

// spec: business 7, 9.3: live refuses test flags and test markers, as POST /business/book does.
Deno.test("subscriptions: live refuses test flags (422 test_mode_moved_to_sandbox) and test markers (422 test_booking_refused, operations alerted), nothing created; the sandbox ignores them", async () => {
  await withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    for (const [flags, headers] of TEST_FLAGS) {
      const r = await subscribe(t, b.api_key, { ...WEEKLY, ...flags }, headers);
      const what = JSON.stringify([flags, headers]);
      assert.deepEqual([r.status, r.body.code], [422, "test_mode_moved_to_sandbox"], what);
    }
    const marked = await subscribe(t, b.api_key, { ...WEEKLY, passenger_name: "__TEST Neo" });
    assert.deepEqual([marked.status, marked.body.code], [422, "test_booking_refused"]);
    assert.match(marked.body.message, /passenger_name starts with __TEST/);
    await t.settle();
    const alerts = await t.env.db.selectFrom("alerts").select(["kind", "owner"])
      .where("tenant", "=", b.id).execute();
    assert.deepEqual(alerts, [{ kind: "test_booking_refused", owner: "operations" }]);
    const list = await t.call("GET", "/business/subscriptions", { key: b.api_key });
    assert.deepEqual(list.body.data, [], "nothing created");
  });
  await withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const body = { ...WEEKLY, passenger_name: "__TEST Neo", test: true, dry_run: true };
    const r = await subscribe(t, b.api_key, body, { "X-Service-Test": "true" });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.data.delivery.passenger_name, "__TEST Neo");
    assert.ok(!("test" in r.body.data.delivery), "the flags are not kept");
  }, { name: "sandbox" });
});

Deno.test("subscriptions: pause, resume and cancel; a bad transition is 409; another business gets 404; a partner key 403", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const s = (await subscribe(t, b.api_key)).body.data;
    const act = (action: string, key = b.api_key) =>
      t.call("POST", `/business/subscriptions/${s.id}/${action}`, { key });
    const resumeActive = await act("resume");
    assert.deepEqual([resumeActive.status, resumeActive.body.code], [409, "invalid_transition"]);
    const paused = await act("pause");
    assert.deepEqual([paused.status, paused.body.data.status, paused.body.data.next_occurrence], [
      200,
      "paused",
      null,
    ]);
    assert.equal((await act("pause")).status, 409);
    // Paused over Tuesday: nothing is booked; resumed, Thursday is next.
    await advanceAndBook(t, 30 * HOUR);
    const resumed = await act("resume");
    assert.deepEqual(
      [
        resumed.body.data.status,
        resumed.body.data.next_occurrence.date,
        resumed.body.data.occurrences,
      ],
      ["active", "2026-11-05", []],
    );
    assert.equal((await act("cancel")).body.data.status, "cancelled");
    // A second cancel answers already_cancelled (subscriptions_rules_test.ts).
    for (const action of ["pause", "resume"]) {
      const r = await act(action);
      assert.deepEqual([r.status, r.body.code], [409, "invalid_transition"], action);
    }

    const other = await fundedBusiness(t);
    const read = await t.call("GET", `/business/subscriptions/${s.id}`, { key: other.api_key });
    assert.deepEqual([read.status, read.body.code], [404, "not_found"]);
    assert.equal((await act("pause", other.api_key)).status, 404);

    const partner = await t.call("POST", `/operator/businesses/${b.id}/partner-keys`, {
      operator: true,
      body: { partner: "Shopfront", scopes: ["deliveries"] },
    });
    const key = partner.body.data.key;
    const denied = await subscribe(t, key);
    assert.deepEqual([denied.status, denied.body.code], [403, "scope_denied"]);
    const list = await t.call("GET", "/business/subscriptions", { key });
    assert.equal(list.status, 403);
  }));

Deno.test("subscriptions: each due day books one scheduled trip; a week's jump books each missed day once", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const s = (await subscribe(t, b.api_key, { ...WEEKLY, external_reference: "ORD-7" })).body.data;
    // Tuesday 08:30 local: an hour before pickup, the trip is booked as scheduled.
    await advanceAndBook(t, 22 * HOUR + 30 * 60);
    const after = (await t.call("GET", `/business/subscriptions/${s.id}`, { key: b.api_key }))
      .body.data;
    assert.deepEqual(
      after.occurrences.map((o: { date: string; status: string }) => [o.date, o.status]),
      [
        ["2026-11-03", "booked"],
      ],
    );
    const trip = (await t.call("GET", `/business/trips/${after.occurrences[0].trip_reference}`, {
      key: b.api_key,
    })).body.data;
    assert.deepEqual([trip.status, trip.scheduled_at, trip.external_reference], [
      "scheduled",
      "2026-11-03T07:30:00.000Z",
      "ORD-7-2026-11-03",
    ]);
    // A week's jump: Thursday 5th and Tuesday 10th, each once; Thursday 12th still ahead.
    await advanceAndBook(t, 7 * 24 * HOUR);
    const week = (await t.call("GET", `/business/subscriptions/${s.id}`, { key: b.api_key }))
      .body.data;
    const dates = week.occurrences.map((o: { date: string }) => o.date);
    assert.deepEqual(dates, ["2026-11-03", "2026-11-05", "2026-11-10"]);
    assert.ok(week.occurrences.every((o: { status: string }) => o.status === "booked"));
    assert.equal(week.next_occurrence.date, "2026-11-12");
    await t.settle();
    const trips = (await t.call("GET", "/business/trips", { key: b.api_key })).body.data;
    assert.deepEqual(
      trips.map((x: { external_reference: string }) => x.external_reference).sort(),
      ["ORD-7-2026-11-03", "ORD-7-2026-11-05", "ORD-7-2026-11-10"],
    );
  }));

Deno.test("subscriptions: an occurrence the wallet refuses is reported, not retried", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t, "0");
    const s = (await subscribe(t, b.api_key)).body.data;
    await advanceAndBook(t, 23 * HOUR);
    await advanceAndBook(t, 60);
    const got = (await t.call("GET", `/business/subscriptions/${s.id}`, { key: b.api_key }))
      .body.data;
    assert.equal(got.occurrences.length, 1);
    assert.deepEqual([got.occurrences[0].status, got.occurrences[0].refusal.code], [
      "refused",
      "insufficient_balance",
    ]);
    assert.equal(await t.env.runtime.sweepOutboxes(), 0, "nothing left to retry");
    assert.equal(got.status, "active", "the next days are still booked");
  }));

Deno.test("subscriptions: an occurrence met by a busy wallet is tried again and booked, not reported refused", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const s = (await subscribe(t, b.api_key)).body.data;
    // The wallet's mailbox is full when the occurrence is charged: not now, not refused.
    const refused = busyAsks(t.env.runtime, commandKind("debit", walletActor.type), 1);
    await advanceAndBook(t, 23 * HOUR);
    assert.equal(refused(), 1);
    outboxRetryDue(t.clock);
    await t.env.runtime.sweepOutboxes();
    await t.env.runtime.outboxesIdle();
    const got = (await t.call("GET", `/business/subscriptions/${s.id}`, { key: b.api_key }))
      .body.data;
    assert.deepEqual(got.occurrences.map((o: { status: string }) => o.status), ["booked"]);
  }));

Deno.test("subscriptions: a crash between the timer and the booking is completed once by the sweep", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const s = (await subscribe(t, b.api_key)).body.data;
    // The handler is gone (a crash): the due occurrence stays in the outbox.
    await t.env.reactors["subscription_occurrences"]!.close();
    await advanceAndBook(t, 23 * HOUR);
    const due = (await t.call("GET", `/business/subscriptions/${s.id}`, { key: b.api_key }))
      .body.data.occurrences;
    assert.deepEqual(due.map((o: { status: string }) => o.status), ["booking"]);
    // The first attempt had booked the trip before the crash, and recorded nothing.
    const booking = { ...t.env, numbers: tripNumbersOf(t.env) };
    const first = await bookTrip(booking, b.id, {
      request: { ...PARCEL, type: "parcel", pickup: place("pickup"), dest: place("dest") },
      body: { subscription: s.id, date: "2026-11-03" },
      idempotencyKey: occurrenceKey(s.id, "2026-11-03"),
      by: "system",
    });
    const handler = startSubscriptionOccurrences(booking);
    try {
      await t.env.runtime.sweepOutboxes();
      await t.env.runtime.outboxesIdle();
      const got = (await t.call("GET", `/business/subscriptions/${s.id}`, { key: b.api_key }))
        .body.data.occurrences;
      assert.deepEqual(
        got.map((o: { status: string; trip_reference: string }) => [
          o.status,
          o.trip_reference,
        ]),
        [["booked", first.trip.reference]],
      );
      await t.settle();
      const trips = (await t.call("GET", "/business/trips", { key: b.api_key })).body.data;
      assert.equal(trips.length, 1, "the retry answered the first trip");
    } finally {
      await handler.close();
    }
  }));

Deno.test("subscriptions: an occurrence whose subscription read is answered busy is tried again and booked, not dropped", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const s = (await subscribe(t, b.api_key)).body.data;
    // The handler's read of the subscription meets a full mailbox once: not now, not done.
    await t.env.reactors["subscription_occurrences"]!.close();
    const flaky = flakyRuntime(t.env.runtime, {
      fails: (type, command) =>
        type === "business_subscription" && (command as { kind: string }).kind === "get",
      refuse: true,
    });
    const handler = startSubscriptionOccurrences({
      ...t.env,
      runtime: flaky.runtime,
      numbers: tripNumbersOf(t.env),
    });
    try {
      await advanceAndBook(t, 23 * HOUR);
      assert.equal(flaky.failed(), 1);
      outboxRetryDue(t.clock);
      await t.env.runtime.sweepOutboxes();
      await t.env.runtime.outboxesIdle();
      const got = (await t.call("GET", `/business/subscriptions/${s.id}`, { key: b.api_key }))
        .body.data;
      assert.deepEqual(got.occurrences.map((o: { status: string }) => o.status), ["booked"]);
    } finally {
      await handler.close();
    }
  }));

function place(which: "pickup" | "dest") {
  return {
    address: PARCEL[`${which}_address`],
    lat: PARCEL[`${which}_lat`],
    lng: PARCEL[`${which}_lng`],
  };
}

Deno.test("subscriptions: a keyed retry after the account stopped allowing upgrades replays the first subscription", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const heavy = { ...WEEKLY, vehicle_type_id: 2, parcel_weight_kg: 400 };
    const headers = { "Idempotency-Key": "weekly-heavy-1" };
    const first = await subscribe(t, b.api_key, heavy, headers);
    assert.equal(first.status, 201, JSON.stringify(first.body));
    const patched = await t.call("PATCH", `/operator/businesses/${b.id}`, {
      operator: true,
      body: { vehicle_upgrade_policy: "refuse" },
    });
    assert.equal(patched.status, 200);
    // spec: business appendix 2: the first result, whatever the settings say now.
    const retry = await subscribe(t, b.api_key, heavy, headers);
    assert.deepEqual([retry.status, retry.body.data?.id, retry.body.data?.replayed], [
      200,
      first.body.data.id,
      true,
    ], JSON.stringify(retry.body));
    // Other details under the held key are its conflict, whatever else is wrong with them now.
    const other = await subscribe(t, b.api_key, { ...heavy, pickup_time: "10:00" }, headers);
    assert.deepEqual([other.status, other.body.code], [409, "reference_conflict"]);
    // A new subscription is checked as ever.
    const fresh = await subscribe(t, b.api_key, heavy, { "Idempotency-Key": "weekly-heavy-2" });
    assert.deepEqual([fresh.status, fresh.body.code], [422, "vehicle_upgrade_refused"]);
  }));
