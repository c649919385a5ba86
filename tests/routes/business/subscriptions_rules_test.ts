/**
 * Business API 4.2 recurring deliveries over HTTP, the rule's edges: a start in the past is
 * refused as a past scheduled_at is (3.1, 7), a repeated cancel answers as a trip's does, and
 * occurrences still owed a booking are never forgotten nor booked twice.
 */
import assert from "node:assert/strict";
import { advance } from "../../helpers/receiver.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import { fundedBusiness } from "./trips_fixtures.ts";
import { advanceAndBook, HOUR, subscribe, WEEKLY } from "./subscription_fixtures.ts";
import { startSubscriptionOccurrences } from "../../../src/business/reactors/subscription_occurrences.ts";
import { tripNumbersOf } from "../../../src/business/flows/trip_numbers.ts";
import { bookOccurrence } from "../../../src/business/flows/subscriptions.ts";

// spec: business 3.1, 7: a past time is refused with 422; today (the zone's date) is not past.
Deno.test("subscriptions: a starts_on before today in the subscription's zone, or past two years ahead, is 422 and creates nothing; today is taken", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    // The clock is Monday 2026-11-02 10:00 in Gaborone: Sunday the 1st is past.
    const past = await subscribe(t, b.api_key, { ...WEEKLY, starts_on: "2026-11-01" });
    assert.deepEqual([past.status, past.body.code, past.body.errors], [422, "validation_failed", [{
      path: "starts_on",
      message: "must not be before today in Africa/Gaborone: 2026-11-01",
    }]], JSON.stringify(past.body));
    // Already the 2nd in Gaborone, still the 1st in Honolulu: the zone named decides.
    const named = await subscribe(t, b.api_key, {
      ...WEEKLY,
      timezone: "Pacific/Honolulu",
      starts_on: "2026-11-01",
    });
    assert.equal(named.status, 201, JSON.stringify(named.body));
    // More than two years ahead: refused (9999-12-31 read its first occurrence `+010000-01-03`).
    for (const far of ["2028-11-02", "9999-12-31"]) {
      const r = await subscribe(t, b.api_key, { ...WEEKLY, starts_on: far });
      assert.deepEqual([r.status, r.body.errors?.[0]?.message], [
        422,
        `at most 730 days ahead (2028-11-01): ${far}`,
      ], JSON.stringify(r.body));
    }
    const ahead = await subscribe(t, b.api_key, { ...WEEKLY, starts_on: "2028-11-01" });
    assert.equal(ahead.status, 201, JSON.stringify(ahead.body));
    const today = await subscribe(t, b.api_key, { ...WEEKLY, starts_on: "2026-11-02" });
    assert.deepEqual([today.status, today.body.data?.next_occurrence?.date], [201, "2026-11-03"]);
    await t.settle();
    const list = await t.call("GET", "/business/subscriptions", { key: b.api_key });
    assert.deepEqual(
      list.body.data.map((x: { starts_on: string }) => x.starts_on).sort(),
      ["2026-11-01", "2026-11-02", "2028-11-01"],
      "the refused ones were not created",
    );
  }));

// spec: business 3.1, 7: a second cancel of a cancelled trip answers 200 already_cancelled: a
// client retrying a cancel whose answer it lost is told it is done, not refused.
Deno.test("subscriptions: a second cancel answers 200 with already_cancelled and changes nothing; pause and resume of a cancelled one stay 409", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const s = (await subscribe(t, b.api_key)).body.data;
    const act = (action: string) =>
      t.call("POST", `/business/subscriptions/${s.id}/${action}`, { key: b.api_key });
    const first = await act("cancel");
    assert.deepEqual([first.status, first.body.data.status, first.body.data.already_cancelled], [
      200,
      "cancelled",
      undefined,
    ]);
    await advance(t, 60);
    const again = await act("cancel");
    assert.deepEqual(
      [again.status, again.body.data?.status, again.body.data?.already_cancelled],
      [200, "cancelled", true],
      JSON.stringify(again.body),
    );
    assert.equal(again.body.data.updated_at, first.body.data.updated_at, "nothing changed");
    for (const action of ["pause", "resume"]) {
      const r = await act(action);
      assert.deepEqual([r.status, r.body.code], [409, "invalid_transition"], action);
    }
  }));

// spec: business 4.2 (OpenAPI: a day missed while the service was down is booked on its
// return, once): the subscription keeps its last 30 occurrences, but never forgets one whose
// booking is still owed, or the booking finds no record and the day is never delivered.
Deno.test("subscriptions: more than 30 days falling due before any is booked (a crash) are each booked once, none dropped", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t, "100000.00");
    const daily = { ...WEEKLY, days_of_week: [1, 2, 3, 4, 5, 6, 7] };
    const s = (await subscribe(t, b.api_key, daily)).body.data;
    // The handler is gone (a crash): every occurrence due stays in the outbox.
    await t.env.reactors["subscription_occurrences"]!.close();
    // 2026-11-03 to 2026-12-04: 32 days fall due.
    await advanceAndBook(t, 32 * 24 * HOUR);
    const handler = startSubscriptionOccurrences({ ...t.env, numbers: tripNumbersOf(t.env) });
    try {
      await t.env.runtime.sweepOutboxes();
      await t.env.runtime.outboxesIdle();
      await t.settle();
      const trips = (await t.call("GET", "/business/trips?per_page=100", { key: b.api_key }))
        .body.data;
      assert.equal(trips.length, 32, "one trip a day that fell due");
      const got = (await t.call("GET", `/business/subscriptions/${s.id}`, { key: b.api_key }))
        .body.data;
      assert.deepEqual(
        [got.occurrences.length, got.occurrences.at(-1).date, got.next_occurrence.date],
        [30, "2026-12-04", "2026-12-05"],
      );
      assert.ok(got.occurrences.every((o: { status: string }) => o.status === "booked"));
    } finally {
      await handler.close();
    }
  }));

// spec: business appendix 2: the occurrence's derived key makes every attempt the same booking,
// however many run at once (the handler and a sweep, or two instances).
Deno.test("subscriptions: an occurrence booked by two handlers at once, then again, is one trip", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const s = (await subscribe(t, b.api_key)).body.data;
    await t.env.reactors["subscription_occurrences"]!.close();
    await advanceAndBook(t, 23 * HOUR);
    const deps = { ...t.env, numbers: tripNumbersOf(t.env) };
    const item = {
      business_id: b.id,
      subscription_id: s.id,
      date: "2026-11-03",
      pickup_at: Date.parse("2026-11-03T09:30:00+02:00"),
    };
    const both = await Promise.allSettled([bookOccurrence(deps, item), bookOccurrence(deps, item)]);
    assert.ok(both.some((r) => r.status === "fulfilled"), JSON.stringify(both));
    // The one that met the first still booking is not done: the sweep's retry answers the trip.
    await bookOccurrence(deps, item);
    await bookOccurrence(deps, item);
    await t.settle();
    const trips = (await t.call("GET", "/business/trips", { key: b.api_key })).body.data;
    assert.equal(trips.length, 1, "one trip");
    const got = (await t.call("GET", `/business/subscriptions/${s.id}`, { key: b.api_key }))
      .body.data.occurrences;
    assert.deepEqual(
      got.map((o: { status: string; trip_reference: string }) => [o.status, o.trip_reference]),
      [["booked", trips[0].reference]],
    );
    const debits = (await t.call("GET", "/business/wallet/transactions", { key: b.api_key }))
      .body.data.filter((x: { kind: string }) => x.kind === "debit");
    assert.equal(debits.length, 1, "charged once");
  }));

// spec: business 2.3 "in the business's time zone" (an IANA name, OpenAPI): a zone sent in
// another case is the same zone, kept and answered by its canonical name.
Deno.test("subscriptions: a timezone sent in another case is kept by its canonical IANA name", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const r = await subscribe(t, b.api_key, { ...WEEKLY, timezone: "africa/gaborone" });
    assert.deepEqual(
      [r.status, r.body.data?.timezone],
      [201, "Africa/Gaborone"],
      JSON.stringify(r.body),
    );
    const upper = await subscribe(t, b.api_key, { ...WEEKLY, timezone: "PACIFIC/HONOLULU" });
    assert.deepEqual([upper.status, upper.body.data?.timezone], [201, "Pacific/Honolulu"]);
    const read = await t.call("GET", `/business/subscriptions/${r.body.data.id}`, {
      key: b.api_key,
    });
    assert.equal(read.body.data.timezone, "Africa/Gaborone");
  }));

// spec: business 3.1, 7 (a past scheduled_at is refused; within 10 minutes is now) with 4.2's
// OpenAPI: a day missed while the service was down is booked on its return, as now, once; never
// sent with its pickup time, which is past and would be refused, so the day never delivered.
Deno.test("subscriptions: days missed while the service was down are booked on its return as now, once, not refused as past", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const s = (await subscribe(t, b.api_key, { ...WEEKLY, external_reference: "ORD-9" })).body
      .data;
    await t.env.reactors["subscription_occurrences"]!.close();
    // Down for a week: Tuesday 3rd and Thursday 5th fall due, unbooked.
    await advanceAndBook(t, 7 * 24 * HOUR);
    const handler = startSubscriptionOccurrences({ ...t.env, numbers: tripNumbersOf(t.env) });
    try {
      await t.env.runtime.sweepOutboxes();
      await t.env.runtime.outboxesIdle();
      await t.env.runtime.sweepOutboxes();
      await t.env.runtime.outboxesIdle();
      const got = (await t.call("GET", `/business/subscriptions/${s.id}`, { key: b.api_key }))
        .body.data.occurrences;
      assert.deepEqual(
        got.map((o: { date: string; status: string }) => [o.date, o.status]),
        [["2026-11-03", "booked"], ["2026-11-05", "booked"]],
        JSON.stringify(got),
      );
      await t.settle();
      const trips = (await t.call("GET", "/business/trips", { key: b.api_key })).body.data;
      assert.deepEqual(
        trips.map((x: { external_reference: string; status: string; scheduled_at: unknown }) => [
          x.external_reference,
          x.status,
          x.scheduled_at,
        ]).sort(),
        [["ORD-9-2026-11-03", "pending", null], ["ORD-9-2026-11-05", "pending", null]],
      );
    } finally {
      await handler.close();
    }
  }));

// spec: business 4.2 names the actions (pause, resume, cancel), 7: a 404 is a resource absent,
// with a code and a message (CONTRACT: not_found). Another action is no such resource: 404, as
// for another business's subscription, and it changes nothing.
Deno.test("subscriptions: an unknown action answers 404 not_found with a message and changes nothing", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const s = (await subscribe(t, b.api_key)).body.data;
    for (const action of ["explode", "PAUSE", "pause "]) {
      const r = await t.call(
        "POST",
        `/business/subscriptions/${s.id}/${encodeURIComponent(action)}`,
        {
          key: b.api_key,
        },
      );
      assert.deepEqual([r.status, r.body.success, r.body.code], [404, false, "not_found"], action);
      assert.ok(typeof r.body.message === "string" && r.body.message.length > 0, action);
    }
    const read = await t.call("GET", `/business/subscriptions/${s.id}`, { key: b.api_key });
    assert.deepEqual([read.body.data.status, read.body.data.updated_at], ["active", s.updated_at]);
  }));
