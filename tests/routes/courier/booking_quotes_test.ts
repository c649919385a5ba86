/** Saved quotes: held 7 days, listed, paged and booked like prices. */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { clientKey, DOMESTIC, topUp } from "../../helpers/courier.ts";
import { account, book, prices, quote, ready } from "./booking_fixtures.ts";

Deno.test("quotes: held 7 days, listed, and booked like prices", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, "500.00");
    const q = await t.call("POST", "/client/quotes", {
      headers: clientKey(client),
      body: DOMESTIC,
    });
    assert.equal(q.status, 201);
    const reference = q.body.data.quote_reference;
    assert.match(reference, /^qt_/);
    assert.equal(Date.parse(q.body.data.valid_until) - t.clock.now(), 7 * 86_400_000);
    await t.settle();
    const list = await t.call("GET", "/client/quotes", { headers: clientKey(client) });
    assert.deepEqual(list.body.data.map((x: { quote_reference: string }) => x.quote_reference), [
      reference,
    ]);
    t.clock.advanceBy(6 * 86_400_000);
    const booked = await t.call("POST", `/client/quotes/${reference}/book`, {
      headers: clientKey(client),
      body: { service_level: "economy" },
    });
    assert.equal(booked.status, 201, JSON.stringify(booked.body));
    const late = await t.call("POST", "/client/quotes", {
      headers: clientKey(client),
      body: DOMESTIC,
    });
    t.clock.advanceBy(7 * 86_400_000 + 1);
    const expired = await t.call("POST", `/client/quotes/${late.body.data.quote_reference}/book`, {
      headers: clientKey(client),
      body: { service_level: "economy" },
    });
    assert.equal(expired.body.code, "prices_expired");
  }));

Deno.test("quotes: a quote booked on day 6 keeps the version it was priced on after a new one came into force; on day 8 it is expired", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, "500.00");
    const early = await t.call("POST", "/client/quotes", {
      headers: clientKey(client),
      body: DOMESTIC,
    });
    const late = await t.call("POST", "/client/quotes", {
      headers: clientKey(client),
      body: DOMESTIC,
    });
    const v2 = await t.call("POST", `/business/courier/rate-cards/${courier.rateCardId}/versions`, {
      key: courier.business.api_key,
      body: { per_kg: 20, effective_from: new Date(t.clock.now() + 86_400_000).toISOString() },
    });
    assert.equal(v2.status, 201, JSON.stringify(v2.body));
    t.clock.advanceBy(6 * 86_400_000);
    assert.equal(
      (await prices(t, client)).options.find((o: { code: string }) => o.code === "express")
        .lines[0].amount,
      80,
      "version 2 is in force",
    );
    const booked = await t.call("POST", `/client/quotes/${early.body.data.quote_reference}/book`, {
      headers: clientKey(client),
      body: { service_level: "express" },
    });
    assert.equal(booked.status, 201, JSON.stringify(booked.body));
    assert.equal(booked.body.data.total, 88.92, "the quoted price, on version 1");
    t.clock.advanceBy(2 * 86_400_000);
    const read = await t.call("GET", `/client/shipments/${booked.body.data.waybill}`, {
      headers: clientKey(client),
    });
    assert.equal(read.body.data.pricing.rate_card_version, 1);
    assert.equal(read.body.data.pricing.total, 88.92);
    assert.deepEqual(
      read.body.data.pricing.lines.map((l: { code: string; amount: number }) => [l.code, l.amount]),
      [["transport", 65], ["service_level", 13], ["tax", 10.92]],
    );
    const expired = await t.call("POST", `/client/quotes/${late.body.data.quote_reference}/book`, {
      headers: clientKey(client),
      body: { service_level: "express" },
    });
    assert.equal(expired.status, 422, JSON.stringify(expired.body));
    assert.equal(expired.body.code, "prices_expired");
    assert.equal((await account(t, client)).balance, 411.08);
  }));

Deno.test("quotes: the list pages newest first with limit and cursor, never skipping or repeating one", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t);
    const made: string[] = [];
    // Two made in the same millisecond, so the order must not rest on the time alone.
    for (const step of [0, 1, 0, 1, 1]) {
      t.clock.advanceBy(step);
      made.push(await quote(t, client));
    }
    await t.settle();
    const seen: { quote_reference: string; created_at: string }[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 5; page++) {
      const query: string = cursor ? `?limit=2&cursor=${cursor}` : "?limit=2";
      const r = await t.call("GET", `/client/quotes${query}`, { headers: clientKey(client) });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.ok(r.body.data.length <= 2);
      seen.push(...r.body.data);
      cursor = r.body.meta.next_cursor;
      if (!cursor) break;
    }
    assert.equal(cursor, null, "the last page says so");
    assert.deepEqual(seen.map((q) => q.quote_reference).sort(), [...made].sort(), "each once");
    const times = seen.map((q) => Date.parse(q.created_at));
    assert.deepEqual(times, [...times].sort((a, b) => b - a), "newest first");
    const bad = await t.call("GET", "/client/quotes?cursor=nonsense", {
      headers: clientKey(client),
    });
    assert.equal(bad.status, 422);
    assert.equal(bad.body.errors[0].path, "cursor");
  }));

Deno.test("quotes: the list shows each quote's prices and the waybill it was booked as", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, "500.00");
    const reference = await quote(t, client);
    await t.settle();
    const before = await t.call("GET", "/client/quotes", { headers: clientKey(client) });
    const [listed] = before.body.data;
    assert.equal(listed.quote_reference, reference);
    assert.deepEqual(listed.options, [
      { code: "express", total: 88.92, currency: "BWP" },
      { code: "economy", total: 74.1, currency: "BWP" },
    ]);
    assert.equal(listed.booking, null);
    const booked = await t.call("POST", `/client/quotes/${reference}/book`, {
      headers: clientKey(client),
      body: { service_level: "express" },
    });
    assert.equal(booked.status, 201, JSON.stringify(booked.body));
    await t.settle();
    const after = await t.call("GET", "/client/quotes", { headers: clientKey(client) });
    assert.deepEqual(after.body.data[0].booking, { waybill: booked.body.data.waybill });
  }));

Deno.test("quotes: the list gives each quote's status: open up to its valid_until, booked, or expired after it", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, "500.00");
    const toBook = await quote(t, client);
    const bookedLate = await quote(t, client);
    const unbooked = await quote(t, client);
    const statuses = async () => {
      await t.settle();
      const r = await t.call("GET", "/client/quotes", { headers: clientKey(client) });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return Object.fromEntries(
        r.body.data.map((q: { quote_reference: string; status: string; booking: unknown }) => [
          q.quote_reference,
          [q.status, q.booking],
        ]),
      );
    };
    const bookQuote = (reference: string) =>
      t.call("POST", `/client/quotes/${reference}/book`, {
        headers: clientKey(client),
        body: { service_level: "express" },
      });
    const first = await bookQuote(toBook);
    assert.equal(first.status, 201, JSON.stringify(first.body));
    const waybill = { waybill: first.body.data.waybill };
    assert.deepEqual(await statuses(), {
      [toBook]: ["booked", waybill],
      [bookedLate]: ["open", null],
      [unbooked]: ["open", null],
    });
    // At valid_until a quote is still bookable, so still open (courier 8: held 7 days).
    t.clock.advanceBy(7 * 86_400_000);
    assert.equal((await statuses())[unbooked][0], "open");
    const last = await bookQuote(bookedLate);
    assert.equal(last.status, 201, JSON.stringify(last.body));
    t.clock.advanceBy(1);
    assert.equal((await bookQuote(unbooked)).body.code, "prices_expired");
    assert.deepEqual(await statuses(), {
      [toBook]: ["booked", waybill],
      [bookedLate]: ["booked", { waybill: last.body.data.waybill }],
      [unbooked]: ["expired", null],
    });
  }));

Deno.test("quotes: booking a saved quote takes a quote's reference only; held prices answer 404", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, "500.00");
    const offer = await prices(t, client);
    const r = await t.call("POST", `/client/quotes/${offer.prices_reference}/book`, {
      headers: clientKey(client),
      body: { service_level: "express" },
    });
    assert.equal(r.status, 404, JSON.stringify(r.body));
    assert.equal(r.body.code, "not_found");
    assert.equal((await account(t, client)).balance, 500, "nothing charged");
    assert.equal((await book(t, client, offer.prices_reference)).status, 201, "still bookable");
  }));

Deno.test("quotes: a quote is bookable up to its valid_until, exactly 7 days, and not a millisecond after", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, "500.00");
    const onTime = await quote(t, client);
    const late = await quote(t, client);
    t.clock.advanceBy(7 * 86_400_000);
    const at = await t.call("POST", `/client/quotes/${onTime}/book`, {
      headers: clientKey(client),
      body: { service_level: "express" },
    });
    assert.equal(at.status, 201, JSON.stringify(at.body));
    t.clock.advanceBy(1);
    const after = await t.call("POST", `/client/quotes/${late}/book`, {
      headers: clientKey(client),
      body: { service_level: "express" },
    });
    assert.equal(after.status, 422);
    assert.equal(after.body.code, "prices_expired");
    assert.match(after.body.message, /expired/);
    assert.equal((await account(t, client)).balance, 411.08, "the expired one charged nothing");
    const twice = await t.call("POST", `/client/quotes/${onTime}/book`, {
      headers: clientKey(client),
      body: { service_level: "express" },
    });
    assert.equal(twice.status, 200, "booked in time, answered as booked after expiry");
    assert.equal(twice.body.data.already_booked, true);
  }));

Deno.test("book: a quote booked days later collects when it can; held prices past the cut-off have expired", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, "500.00");
    const promiseOf = async (waybill: string) =>
      (await t.call("GET", `/client/shipments/${waybill}`, { headers: clientKey(client) })).body
        .data.pricing.promise;
    // Monday 2 November 10:00 in Gaborone (UTC+2), before the 14:00 cut-off: collected today.
    const q = await t.call("POST", "/client/quotes", {
      headers: clientKey(client),
      body: DOMESTIC,
    });
    const shown = q.body.data.options.find((o: { code: string }) => o.code === "express");
    assert.equal(shown.collection_on, "2026-11-02");
    // spec: courier 2.8: booked on Thursday, the quote cannot be collected on Monday.
    t.clock.advanceBy(3 * 86_400_000);
    const booked = await t.call("POST", `/client/quotes/${q.body.data.quote_reference}/book`, {
      headers: clientKey(client),
      body: { service_level: "express" },
    });
    assert.equal(booked.status, 201, JSON.stringify(booked.body));
    assert.deepEqual(await promiseOf(booked.body.data.waybill), {
      collection_on: "2026-11-05",
      earliest_delivery: "2026-11-06",
      latest_delivery: "2026-11-09",
    });
    // Prices at 13:59 on Thursday showed collection on Thursday; at 14:01 that promise is gone:
    // only what was shown can be booked (2.2 rule 3), so they have expired, and nothing is charged.
    t.clock.advanceBy(3 * 3_600_000 + 59 * 60_000);
    const offer = await prices(t, client);
    assert.equal(
      offer.options.find((o: { code: string }) => o.code === "express").collection_on,
      "2026-11-05",
    );
    const balance = async () =>
      (await t.call("GET", "/client/account", { headers: clientKey(client) })).body.data.balance;
    const before = await balance();
    assert.ok(before > 0);
    t.clock.advanceBy(2 * 60_000);
    const late = await book(t, client, offer.prices_reference);
    assert.equal(late.status, 422, JSON.stringify(late.body));
    assert.equal(late.body.code, "prices_expired");
    assert.match(late.body.message, /cut-off.*2026-11-05.*2026-11-06/);
    assert.equal(await balance(), before, "nothing charged");
    // Prices asked again show Friday, and are booked as shown; a retry answers the same.
    const fresh = await prices(t, client);
    const latePromise = {
      collection_on: "2026-11-06",
      earliest_delivery: "2026-11-09",
      latest_delivery: "2026-11-10",
    };
    const shownLate = fresh.options.find((o: { code: string }) => o.code === "express");
    assert.equal(shownLate.collection_on, latePromise.collection_on);
    const made = await book(t, client, fresh.prices_reference);
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.deepEqual(await promiseOf(made.body.data.waybill), latePromise);
    const { collection_on, earliest_delivery, latest_delivery } = made.body.data;
    assert.deepEqual({ collection_on, earliest_delivery, latest_delivery }, latePromise);
    const again = await book(t, client, fresh.prices_reference);
    assert.equal(again.body.data.already_booked, true);
    assert.equal(again.body.data.collection_on, latePromise.collection_on);
    // Booked before the cut-off, the promise is what the prices showed.
    const onTime = await prices(t, client);
    const shownOnTime = onTime.options.find((o: { code: string }) => o.code === "express");
    const early = await book(t, client, onTime.prices_reference);
    const promise = await promiseOf(early.body.data.waybill);
    assert.deepEqual(promise, {
      collection_on: shownOnTime.collection_on,
      earliest_delivery: shownOnTime.earliest_delivery,
      latest_delivery: shownOnTime.latest_delivery,
    });
  }));
