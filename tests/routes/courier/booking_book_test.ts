/** Booking held prices (courier 4.6): waybills, balances, duplicates, frozen pricing. */
import assert from "node:assert/strict";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import {
  type Client,
  clientKey,
  DOMESTIC,
  newClient,
  newCourier,
  topUp,
} from "../../helpers/courier.ts";
import { waybillOf } from "../../../src/courier/rules/waybill.ts";
import { account, book, prices, ready } from "./booking_fixtures.ts";

Deno.test("book: 201 with waybill and tracking URL; the same request again books nothing", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, "500.00");
    const offer = await prices(t, client);
    const first = await book(t, client, offer.prices_reference);
    assert.equal(first.status, 201, JSON.stringify(first.body));
    const { waybill, tracking_url } = first.body.data;
    assert.match(waybill, /^WB[A-Z0-9]{12,}$/);
    assert.ok(tracking_url.split("/").at(-1).length >= 20);
    assert.equal(first.body.data.already_booked, false);
    const again = await book(t, client, offer.prices_reference);
    assert.equal(again.status, 200);
    assert.equal(again.body.data.already_booked, true);
    assert.equal(again.body.data.waybill, waybill);
    assert.equal(again.body.data.tracking_url, tracking_url);
    assert.equal((await account(t, client)).balance, 411.08); // 500 - 88.92, once
    const other = await book(t, client, offer.prices_reference, "economy");
    assert.equal(other.status, 409, "one offer books one shipment");
    // Sent again with another dangerous goods answer, it is not the same request: answered as
    // already booked, the caller would believe the shipment carries the answer it sent.
    const answered = await t.call("POST", "/client/book", {
      headers: clientKey(client),
      body: {
        prices_reference: offer.prices_reference,
        service_level: "express",
        dangerous_goods_confirmed: false,
      },
    });
    assert.equal(answered.status, 409, JSON.stringify(answered.body));
    assert.equal(answered.body.code, "reference_conflict");
    assert.match(answered.body.message, /dangerous_goods_confirmed true/);
    assert.equal((await account(t, client)).balance, 411.08);
  }));

Deno.test("book: service_level is read trimmed, as POST /client/shipments and bulk rows read it", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, "500.00");
    const offer = await prices(t, client);
    const first = await book(t, client, offer.prices_reference, " express ");
    assert.equal(first.status, 201, JSON.stringify(first.body));
    const again = await book(t, client, offer.prices_reference, "express");
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.data.waybill, first.body.data.waybill);
    assert.equal((await account(t, client)).balance, 411.08); // charged once
  }));

Deno.test("book: expired prices answer 422 prices_expired; the operator's hold applies", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, "500.00");
    const offer = await prices(t, client);
    t.clock.advanceBy(30 * 60_000 + 1);
    const late = await book(t, client, offer.prices_reference);
    assert.equal(late.status, 422);
    assert.equal(late.body.code, "prices_expired");
    assert.equal((await account(t, client)).balance, 500);
    await t.call("PUT", "/operator/settings", { operator: true, body: { price_hold_minutes: 45 } });
    const longer = await prices(t, client);
    assert.equal(Date.parse(longer.valid_until) - t.clock.now(), 45 * 60_000);
    t.clock.advanceBy(44 * 60_000);
    assert.equal((await book(t, client, longer.prices_reference)).status, 201);
  }));

Deno.test("book: held prices book at exactly valid_until and not a millisecond after", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, "500.00");
    const onTime = await prices(t, client);
    const late = await prices(t, client);
    // spec: courier 2.2 rule 2, 8: held for the operator's minutes (default 30), to the ms.
    t.clock.advanceBy(Date.parse(onTime.valid_until) - t.clock.now());
    assert.equal(t.clock.now(), Date.parse(late.valid_until));
    const at = await book(t, client, onTime.prices_reference);
    assert.equal(at.status, 201, JSON.stringify(at.body));
    t.clock.advanceBy(1);
    const after = await book(t, client, late.prices_reference);
    assert.equal(after.status, 422, JSON.stringify(after.body));
    assert.equal(after.body.code, "prices_expired");
    assert.equal((await account(t, client)).balance, 411.08, "the expired one charged nothing");
  }));

Deno.test("book: held prices priced shortly before the cut-off are held until it, not past it: valid_until is the last instant collection_on stays true, and booking after it is prices_expired", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, "500.00");
    // Monday 13:50 in Gaborone (11:50Z); both service levels' cut-off is 14:00 (12:00Z).
    t.clock.advanceBy(Date.parse("2026-11-02T11:50:00Z") - t.clock.now());
    const onTime = await prices(t, client);
    const late = await prices(t, client);
    // spec: courier 2.2 rule 2, 2.8: the operator's 30 minutes would end at 12:20Z, after the
    // cut-off moved collection to Tuesday; the hold ends where the dates shown stop being true.
    assert.equal(onTime.valid_until, "2026-11-02T11:59:59.999Z");
    for (const o of onTime.options) assert.equal(o.collection_on, "2026-11-02");
    t.clock.advanceBy(Date.parse(onTime.valid_until) - t.clock.now());
    const at = await book(t, client, onTime.prices_reference);
    assert.equal(at.status, 201, JSON.stringify(at.body));
    assert.equal(at.body.data.collection_on, "2026-11-02");
    t.clock.advanceBy(1);
    const after = await book(t, client, late.prices_reference);
    assert.equal(after.status, 422, JSON.stringify(after.body));
    assert.equal(after.body.code, "prices_expired");
    assert.equal((await account(t, client)).balance, 411.08, "the expired one charged nothing");
    // Priced after the cut-off (collected Tuesday), the operator's hold ends first.
    const next = await prices(t, client);
    assert.equal(Date.parse(next.valid_until) - t.clock.now(), 30 * 60_000);
    assert.equal(next.options[0].collection_on, "2026-11-03");
  }));

Deno.test("book: only what was shown can be booked", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, "500.00");
    const offer = await prices(t, client);
    const r = await book(t, client, offer.prices_reference, "overnight");
    assert.equal(r.status, 422);
    assert.match(r.body.message, /overnight/);
    const unknown = await book(t, client, "prc_doesnotexist");
    assert.equal(unknown.status, 404);
  }));

async function concurrentBookings(t: TestEnv, client: Client): Promise<number[]> {
  const offers = [];
  for (let i = 0; i < 100; i++) offers.push(await prices(t, client));
  const answers = await Promise.all(offers.map((o) => book(t, client, o.prices_reference)));
  return answers.map((a) => a.status);
}

Deno.test("book: 100 simultaneous prepaid bookings against a balance covering 20 book exactly 20", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, String((88.92 * 20).toFixed(2)));
    const statuses = await concurrentBookings(t, client);
    assert.equal(statuses.filter((s) => s === 201).length, 20);
    assert.equal(statuses.filter((s) => s === 422).length, 80);
    const a = await account(t, client);
    assert.equal(a.balance, 0);
    assert.equal(a.available, 0);
    // Exactly the 20 booked exist: a refused booking leaves no shipment behind.
    await t.settle();
    const listed = await t.call("GET", "/client/shipments?limit=200", {
      headers: clientKey(client),
    });
    assert.equal(listed.body.data.length, 20, JSON.stringify(listed.body.meta));
  }));

Deno.test("book: 100 simultaneous credit bookings against a limit covering 20 book exactly 20", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t, {
      settlement_mode: "credit",
      credit_limit: (88.92 * 20).toFixed(2),
    });
    const statuses = await concurrentBookings(t, client);
    assert.equal(statuses.filter((s) => s === 201).length, 20);
    const a = await account(t, client);
    assert.equal(a.credit_used, 1778.4);
    assert.equal(a.available, 0);
  }));

Deno.test("book: a prepaid account that cannot cover the price is refused and charged nothing", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, "50.00");
    const offer = await prices(t, client);
    const r = await book(t, client, offer.prices_reference);
    assert.equal(r.status, 422);
    assert.equal(r.body.code, "insufficient_balance");
    assert.match(r.body.message, /available 50\.00 BWP, needed 88\.92 BWP/);
    assert.equal((await account(t, client)).balance, 50);
    // The refused offer can still be booked once the money is there.
    await topUp(t, courier, client, "100.00");
    assert.equal((await book(t, client, offer.prices_reference)).status, 201);
  }));

Deno.test("book: external settlement books without a receivable", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t, { settlement_mode: "external" });
    const offer = await prices(t, client);
    assert.equal(offer.account.available, null);
    assert.equal((await book(t, client, offer.prices_reference)).status, 201);
    const a = await account(t, client);
    assert.equal(a.credit_used, null, "no credit line");
    assert.equal(a.balance, 0);
  }));

Deno.test("book: with unique_external_reference a repeated reference answers 409 duplicate_order", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t, { unique_external_reference: true });
    await topUp(t, courier, client, "50.00");
    const body = { ...DOMESTIC, client_order_reference: "ORD-1001" };
    // A refused booking leaves the reference free.
    const poor = await book(t, client, (await prices(t, client, body)).prices_reference);
    assert.equal(poor.status, 422);
    await topUp(t, courier, client, "500.00");
    const first = await book(t, client, (await prices(t, client, body)).prices_reference);
    assert.equal(first.status, 201);
    const second = await book(t, client, (await prices(t, client, body)).prices_reference);
    assert.equal(second.status, 409);
    assert.equal(second.body.code, "duplicate_order");
    const other = await book(
      t,
      client,
      (await prices(t, client, { ...DOMESTIC, client_order_reference: "ORD-1002" }))
        .prices_reference,
    );
    assert.equal(other.status, 201);
  }));

Deno.test("book: once unique_external_reference is set, a reference booked before it is a duplicate_order", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, "500.00");
    const ordered = { ...DOMESTIC, client_order_reference: "ORD-7" };
    const billed = { ...DOMESTIC, external_billing_reference: "INV-9" };
    const firstOffer = (await prices(t, client, ordered)).prices_reference;
    const first = await book(t, client, firstOffer);
    assert.equal(first.status, 201);
    const byBilling = await book(t, client, (await prices(t, client, billed)).prices_reference);
    assert.equal(byBilling.status, 201);
    const set = await t.call("PATCH", `/business/courier/clients/${client.id}`, {
      key: courier.business.api_key,
      body: { unique_external_reference: true },
    });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    await t.settle();
    // spec: courier 4.2: a second booking with the same external reference, however late the
    // flag was set, answers 409 naming the booking that holds the reference.
    for (const body of [ordered, ordered, billed]) {
      const again = await book(t, client, (await prices(t, client, body)).prices_reference);
      assert.equal(again.status, 409, JSON.stringify(again.body));
      assert.equal(again.body.code, "duplicate_order");
      const holder = body === billed ? byBilling : first;
      assert.equal(again.body.waybill, holder.body.data.waybill);
    }
    // The same booking sent again is still the booking it made, not a duplicate of itself.
    const retried = await book(t, client, firstOffer);
    assert.equal(retried.status, 200, JSON.stringify(retried.body));
    assert.equal(retried.body.data.already_booked, true);
    // Another client's reference is its own: the same order number books there.
    const other = await newClient(t, courier, { unique_external_reference: true });
    await topUp(t, courier, other, "500.00");
    const theirs = await book(t, other, (await prices(t, other, ordered)).prices_reference);
    assert.equal(theirs.status, 201);
    // Nothing was charged for the refused bookings: two bookings of 88.92 each.
    assert.equal((await account(t, client)).balance, 322.16);
  }));

Deno.test("book: the shipment keeps its frozen pricing after a new rate-card version", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, "500.00");
    const booked = await book(t, client, (await prices(t, client)).prices_reference);
    const waybill = booked.body.data.waybill;
    t.clock.advanceBy(1000); // a version starts after the one before (courier 4.2)
    const v2 = await t.call("POST", `/business/courier/rate-cards/${courier.rateCardId}/versions`, {
      key: courier.business.api_key,
      body: { per_kg: 20, effective_from: new Date(t.clock.now()).toISOString() },
    });
    assert.equal(v2.status, 201, JSON.stringify(v2.body));
    t.clock.advanceBy(1000);
    const fresh = await prices(t, client);
    assert.equal(
      fresh.options.find((o: { code: string }) => o.code === "express").lines[0].amount,
      80,
    );
    const read = await t.call("GET", `/client/shipments/${waybill}`, {
      headers: clientKey(client),
    });
    assert.equal(read.status, 200);
    assert.equal(read.body.data.pricing.rate_card_version, 1);
    assert.equal(read.body.data.pricing.lines[0].amount, 65);
    assert.equal(read.body.data.pricing.total, 88.92);
    assert.equal(read.body.data.dangerous_goods_confirmed, true);
    assert.equal(read.body.data.service_terms.code, "express");
    assert.equal(read.body.data.service_terms.transit_days, 1);
  }));

Deno.test("book: a client sees only its own shipments and offers", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const other = await newClient(t, courier);
    await topUp(t, courier, client, "500.00");
    const offer = await prices(t, client);
    const booked = await book(t, client, offer.prices_reference);
    const waybill = booked.body.data.waybill;
    const peek = await t.call("GET", `/client/shipments/${waybill}`, { headers: clientKey(other) });
    assert.equal(peek.status, 404);
    const steal = await book(t, other, offer.prices_reference);
    assert.equal(steal.status, 404);
    // Another courier's client cannot see it either.
    const elsewhere = await newCourier(t);
    const stranger = await newClient(t, elsewhere);
    assert.equal(
      (await t.call("GET", `/client/shipments/${waybill}`, { headers: clientKey(stranger) }))
        .status,
      404,
    );
  }));

Deno.test("book: each offer's waybill is the next number of the service's sequence, the same on every retry", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, "500.00");
    const waybills: string[] = [];
    for (let i = 0; i < 3; i++) {
      const offer = await prices(t, client);
      assert.match(offer.prices_reference, /^prc_W[2-9A-HJ-NP-Z]{13}$/);
      const first = await book(t, client, offer.prices_reference);
      assert.equal(first.status, 201, JSON.stringify(first.body));
      const again = await book(t, client, offer.prices_reference);
      assert.equal(again.body.data.waybill, first.body.data.waybill);
      assert.equal(first.body.data.waybill, waybillOf(courier.business.id, offer.prices_reference));
      waybills.push(first.body.data.waybill);
    }
    assert.ok(waybills.every((w) => /^WB[2-9A-HJ-NP-Z]{13}$/.test(w)));
    assert.deepEqual([...waybills].sort(), waybills, "in the order the offers were made");
    assert.equal(new Set(waybills).size, 3);
  }));

Deno.test("book: once unique_external_reference is set, each earlier booking sent again is already booked, not a duplicate of the first", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, "500.00");
    const ordered = { ...DOMESTIC, client_order_reference: "ORD-TWICE" };
    // Without the flag a reference may repeat: two bookings carry it.
    const firstOffer = (await prices(t, client, ordered)).prices_reference;
    const secondOffer = (await prices(t, client, ordered)).prices_reference;
    const first = await book(t, client, firstOffer);
    const second = await book(t, client, secondOffer);
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.equal(second.status, 201, JSON.stringify(second.body));
    const set = await t.call("PATCH", `/business/courier/clients/${client.id}`, {
      key: courier.business.api_key,
      body: { unique_external_reference: true },
    });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    await t.settle();
    // spec: courier 4.1, 7: the same request again answers 200 already_booked and books nothing,
    // whichever of the two it was, and however often it is sent.
    const replays: [string, typeof first][] = [
      [secondOffer, second],
      [firstOffer, first],
      [secondOffer, second],
    ];
    for (const [offer, made] of replays) {
      const again = await book(t, client, offer);
      assert.equal(again.status, 200, JSON.stringify(again.body));
      assert.equal(again.body.data.already_booked, true);
      assert.equal(again.body.data.waybill, made.body.data.waybill);
    }
    // A new booking with the reference is still a duplicate order, of the first booking.
    const third = await book(t, client, (await prices(t, client, ordered)).prices_reference);
    assert.equal(third.status, 409, JSON.stringify(third.body));
    assert.equal(third.body.code, "duplicate_order");
    assert.equal(third.body.waybill, first.body.data.waybill);
    assert.equal((await account(t, client)).balance, 322.16, "two bookings charged, once each");
  }));

Deno.test("book: the shipment shows the pricing inputs it froze: declared value and liability cover, as priced", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t, { liability_cover_pct: 2 });
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "500.00");
    const covered = await prices(t, client, {
      ...DOMESTIC,
      declared_value: "1250.50",
      liability_cover: true,
      external_billing_reference: "COVER-1",
    });
    const express = covered.options.find((o: { code: string }) => o.code === "express");
    // 2 % of 1,250.50 = 25.01: the line the shipment's inputs must explain.
    assert.deepEqual(
      express.lines.find((l: { code: string }) => l.code === "liability_cover").amount,
      25.01,
    );
    const booked = await book(t, client, covered.prices_reference);
    assert.equal(booked.status, 201, JSON.stringify(booked.body));
    const plain = await book(t, client, (await prices(t, client)).prices_reference);
    assert.equal(plain.status, 201, JSON.stringify(plain.body));
    await t.settle();
    // spec: courier 2.3: the frozen pricing snapshot keeps its inputs; 2.1 declared_value and
    // liability_cover are inputs as much as the parcels are.
    const read = async (waybill: string) =>
      (await t.call("GET", `/client/shipments/${waybill}`, { headers: clientKey(client) })).body
        .data;
    const mine = await read(booked.body.data.waybill);
    assert.equal(mine.declared_value, 1250.5);
    assert.equal(mine.liability_cover, true);
    const other = await read(plain.body.data.waybill);
    assert.equal(other.declared_value, null);
    assert.equal(other.liability_cover, false);
    const found = await t.call("GET", "/business/courier/shipments?q=COVER-1", {
      key: courier.business.api_key,
    });
    assert.equal(found.status, 200, JSON.stringify(found.body));
    assert.equal(found.body.data[0].declared_value, 1250.5);
    assert.equal(found.body.data[0].liability_cover, true);
  }));
