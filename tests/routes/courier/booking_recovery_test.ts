/** A booking stopped by a crash: completed by a retry or the stalled-booking sweep, its reference held or freed. */
import assert from "node:assert/strict";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import {
  chargeOnly,
  type Client,
  clientKey,
  type Courier,
  DOMESTIC,
  topUp,
} from "../../helpers/courier.ts";
import { asShipment, shipmentActor } from "../../../actors/courier/shipment/mod.ts";
import { courierClientActor } from "../../../actors/courier/courier_client.ts";
import { claimId, referenceClaimActor } from "../../../actors/courier/reference_claim.ts";
import { commandKind, holdAsk } from "../../helpers/faults.ts";
import {
  STOPPED_AFTER_CLAIM_MS,
  STOPPED_AFTER_EXPIRY_MS,
} from "../../../src/courier/flows/booking/mod.ts";
import { completeStalledBookings } from "../../../src/courier/reactors/stalled_bookings.ts";
import { waybillOf } from "../../../src/courier/rules/waybill.ts";
import { STALLED_BOOKING_MS, STALLED_BOOKINGS_PER_SWEEP } from "../../../src/limits.ts";
import { account, book, prices, ready } from "./booking_fixtures.ts";

/**
 * Prices for the client, then the booking's first commit alone (its charge, keeping its request
 * as the booking flow does), as if the process stopped right after it.
 */
async function chargedBooking(t: TestEnv, courier: Courier, client: Client) {
  const offer = await prices(t, client);
  const waybill = waybillOf(courier.business.id, offer.prices_reference);
  await chargeOnly(t, courier.business.id, client.id, waybill, {
    prices_reference: offer.prices_reference,
    dangerous_goods_confirmed: true,
    by: `client:${client.id}`,
  });
  return { offer, waybill };
}

Deno.test("book: a retry completes a booking charged before a crash, even once its prices expired", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, "500.00");
    const offer = await prices(t, client);
    const waybill = waybillOf(courier.business.id, offer.prices_reference);
    // The booking's first commit, as if the process stopped right after it.
    await chargeOnly(t, courier.business.id, client.id, waybill);
    t.clock.advanceBy(30 * 60_000 + 1);
    const other = await book(t, client, offer.prices_reference, "economy");
    assert.equal(other.status, 409, "only the option charged is booked");
    assert.equal(other.body.code, "reference_conflict");
    const retry = await book(t, client, offer.prices_reference);
    assert.equal(retry.status, 201, JSON.stringify(retry.body));
    assert.equal(retry.body.data.waybill, waybill);
    const again = await book(t, client, offer.prices_reference);
    assert.equal(again.status, 200);
    assert.equal(again.body.data.already_booked, true);
    assert.equal((await account(t, client)).balance, 411.08, "charged once");
    // Prices that expired uncharged still book nothing.
    const late = await prices(t, client);
    t.clock.advanceBy(30 * 60_000 + 1);
    assert.equal((await book(t, client, late.prices_reference)).body.code, "prices_expired");
    assert.equal((await account(t, client)).balance, 411.08);
  }));

Deno.test("book: a booking charged before a crash and never sent again is completed by the sweep", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, "500.00");
    // The booking's first commit, keeping its request as the booking flow does; then the process
    // stopped, and the client never sends the request again.
    const { offer, waybill } = await chargedBooking(t, courier, client);
    await t.settle();
    const read = () =>
      t.call("GET", `/client/shipments/${waybill}`, { headers: clientKey(client) });
    assert.equal(
      await completeStalledBookings(t.env, t.clock.now()),
      0,
      "a retry may be on its way",
    );
    assert.equal((await read()).status, 404);
    // Past its prices' expiry too: the charge stands for the booking.
    t.clock.advanceBy(STALLED_BOOKING_MS + 30 * 60_000);
    assert.equal(await completeStalledBookings(t.env, t.clock.now()), 1);
    const made = await read();
    assert.equal(made.status, 200, JSON.stringify(made.body));
    assert.equal(made.body.data.dangerous_goods_confirmed, true);
    assert.equal(made.body.data.pricing.total, 88.92);
    assert.equal(made.body.data.pricing.prices_reference, offer.prices_reference);
    await t.settle();
    assert.equal(await completeStalledBookings(t.env, t.clock.now()), 0, "completed once");
    // The client's late retry finds it booked, and the account was charged once.
    const retry = await book(t, client, offer.prices_reference);
    assert.equal(retry.status, 200, JSON.stringify(retry.body));
    assert.equal(retry.body.data.already_booked, true);
    assert.equal(retry.body.data.waybill, waybill);
    assert.equal((await account(t, client)).balance, 411.08);
  }));

Deno.test("book: the sweep leaves a charge that kept no request to the client's retry", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, "500.00");
    const offer = await prices(t, client);
    const waybill = waybillOf(courier.business.id, offer.prices_reference);
    await chargeOnly(t, courier.business.id, client.id, waybill);
    await t.settle();
    t.clock.advanceBy(STALLED_BOOKING_MS + 1);
    assert.equal(await completeStalledBookings(t.env, t.clock.now()), 0);
    const retry = await book(t, client, offer.prices_reference);
    assert.equal(retry.status, 201, JSON.stringify(retry.body));
    assert.equal((await account(t, client)).balance, 411.08);
  }));

Deno.test("book: the sweep leaves bookings that were made whole", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, "500.00");
    const offer = await prices(t, client);
    assert.equal((await book(t, client, offer.prices_reference)).status, 201);
    await t.settle();
    t.clock.advanceBy(STALLED_BOOKING_MS + 1);
    assert.equal(await completeStalledBookings(t.env, t.clock.now()), 0);
    assert.equal((await account(t, client)).balance, 411.08);
  }));

Deno.test("book: charges the sweep cannot complete never hold up the stalled bookings after them", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, "10000.00");
    // A sweep's worth of charges kept before their request was recorded (left to the client's
    // retry), older than a booking the sweep can complete.
    for (let i = 0; i < STALLED_BOOKINGS_PER_SWEEP; i++) {
      await chargeOnly(t, courier.business.id, client.id, `WBLEGACY${String(i).padStart(4, "0")}`);
    }
    t.clock.advanceBy(1_000);
    const { waybill } = await chargedBooking(t, courier, client);
    await t.settle();
    t.clock.advanceBy(STALLED_BOOKING_MS + 1);
    // Nothing is ever lost: whatever stays unfinished, each sweep goes on past it, so the client
    // who paid gets its shipment within a few sweeps, not a month later.
    let completed = 0;
    for (let sweep = 0; sweep < 3 && completed === 0; sweep++) {
      completed += await completeStalledBookings(t.env, t.clock.now());
    }
    assert.equal(completed, 1);
    const made = await t.env.runtime.read(shipmentActor, courier.business.id, waybill, {
      kind: "get",
    });
    assert.ok(made.ok, "the paid booking has its shipment");
  }));

Deno.test("book: a booking the sweep completes keeps the time and terms it was charged at", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t, { settlement_mode: "external" });
    // 13:55 in Gaborone, five minutes before the services' 14:00 cut-off.
    t.clock.advanceBy(3 * 3_600_000 + 55 * 60_000);
    const offer = await prices(t, client);
    const express = offer.options.find((o: { code: string }) => o.code === "express");
    assert.equal(express.collection_on, "2026-11-02");
    const waybill = waybillOf(courier.business.id, offer.prices_reference);
    const chargedAt = t.clock.now();
    await t.env.runtime.ask(courierClientActor, courier.business.id, client.id, {
      kind: "charge_booking",
      waybill,
      amount_minor: 8_892,
      currency: "BWP",
      service_level: "express",
      booking: {
        prices_reference: offer.prices_reference,
        dangerous_goods_confirmed: false,
        by: `client:${client.id}`,
      },
      by: `client:${client.id}`,
    }, { idempotencyKey: `charge:${waybill}`, permanent: true });
    await t.settle();
    // Meanwhile the courier moves the client to credit (nothing external is a balance).
    const moved = await t.call("PATCH", `/business/courier/clients/${client.id}`, {
      key: courier.business.api_key,
      body: { settlement_mode: "credit", credit_limit: "1000.00" },
    });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    // The sweep runs past the cut-off; the booking was made (charged) before it.
    t.clock.advanceBy(STALLED_BOOKING_MS + 1);
    assert.equal(await completeStalledBookings(t.env, t.clock.now()), 1);
    const made = await t.env.runtime.read(shipmentActor, courier.business.id, waybill, {
      kind: "get",
    });
    assert.ok(made.ok);
    const s = asShipment(made.reply);
    // spec: courier 2.2 rule 3, 2.3: the frozen snapshot is the one paid for, at its commit point.
    assert.equal(s.booked_at, chargedAt);
    assert.equal(s.pricing.promise.collection_on, express.collection_on);
    assert.equal(s.pricing.promise.latest_delivery, express.latest_delivery);
    assert.equal(s.pricing.settlement_mode, "external");
  }));

Deno.test("book: a booking checked before the cut-off and charged just after it keeps the dates shown", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, "500.00");
    // A millisecond before the services' 14:00 cut-off in Gaborone.
    t.clock.advanceBy(4 * 3_600_000 - 1);
    const offer = await prices(t, client);
    const express = offer.options.find((o: { code: string }) => o.code === "express");
    assert.equal(express.collection_on, "2026-11-02");
    // The cut-off passes between the booking's check of the dates and its charge.
    const runtime = t.env.runtime;
    const ask = runtime.ask.bind(runtime);
    runtime.ask = ((...args: Parameters<typeof ask>) => {
      const command = args[3] as { kind?: string };
      if (command.kind === "charge_booking") t.clock.advanceBy(2);
      return ask(...args);
    }) as typeof runtime.ask;
    const r = await book(t, client, offer.prices_reference);
    assert.equal(r.status, 201, JSON.stringify(r.body));
    // spec: courier 2.2 rule 3: only what was shown can be booked, and the dates were shown.
    assert.equal(r.body.data.collection_on, express.collection_on);
    assert.equal(r.body.data.earliest_delivery, express.earliest_delivery);
    assert.equal(r.body.data.latest_delivery, express.latest_delivery);
    const made = await t.env.runtime.read(shipmentActor, courier.business.id, r.body.data.waybill, {
      kind: "get",
    });
    assert.ok(made.ok);
    assert.equal(asShipment(made.reply).pricing.promise.collection_on, express.collection_on);
  }));

Deno.test("book: a reference claimed by a booking that stopped before its charge is free once its prices expired", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t, { unique_external_reference: true });
    await topUp(t, courier, client, "500.00");
    const body = { ...DOMESTIC, client_order_reference: "ORD-CRASH" };
    const offer = await prices(t, client, body);
    const waybill = waybillOf(courier.business.id, offer.prices_reference);
    // Booked a second before its prices expire, the booking's first commit, as if the process
    // stopped right after it: the reference is claimed, nothing is charged, no shipment exists.
    t.clock.advanceBy(30 * 60_000 - 1_000);
    const claimed = await t.env.runtime.ask(
      referenceClaimActor,
      courier.business.id,
      claimId(client.id, "ORD-CRASH"),
      { kind: "claim", waybill, reference: offer.prices_reference },
    );
    assert.ok(claimed.ok);
    // While its prices hold, the booking may still complete: the reference stays with it.
    const early = await book(t, client, (await prices(t, client, body)).prices_reference);
    assert.equal(early.status, 409, JSON.stringify(early.body));
    assert.equal(early.body.code, "duplicate_order");
    t.clock.advanceBy(1_001);
    // Just expired, it may be on its way to its charge: the reference stays with it a moment.
    const just = await book(t, client, (await prices(t, client, body)).prices_reference);
    assert.equal(just.body.code, "duplicate_order", JSON.stringify(just.body));
    t.clock.advanceBy(STOPPED_AFTER_EXPIRY_MS);
    // The stopped booking can never be charged now: it no longer holds the reference for ever.
    const retry = await book(t, client, offer.prices_reference);
    assert.equal(retry.body.code, "prices_expired");
    const next = await book(t, client, (await prices(t, client, body)).prices_reference);
    assert.equal(next.status, 201, JSON.stringify(next.body));
    assert.equal((await account(t, client)).balance, 411.08, "charged once");
    const again = await book(t, client, (await prices(t, client, body)).prices_reference);
    assert.equal(again.status, 409);
    assert.equal(again.body.waybill, next.body.data.waybill);
  }));

Deno.test("book: a booking stalled before its charge until long past its prices' expiry never charges once another booking took its reference over", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t, { unique_external_reference: true });
    await topUp(t, courier, client, "500.00");
    const body = { ...DOMESTIC, client_order_reference: "ORD-STALL" };
    const offer = await prices(t, client, body);
    // The booking claimed the reference in time, then stalled before its charge (a GC pause, a
    // slow store) for far longer than STOPPED_AFTER_EXPIRY_MS after its prices expired.
    const charge = holdAsk(t.env.runtime, commandKind("charge_booking"));
    const first = book(t, client, offer.prices_reference);
    await charge.reached;
    t.clock.advanceBy(30 * 60_000 + STOPPED_AFTER_EXPIRY_MS + 10 * 60_000);
    const next = await book(t, client, (await prices(t, client, body)).prices_reference);
    assert.equal(next.status, 201, JSON.stringify(next.body));
    // spec: courier 4.2: one shipment per external reference: the stalled booking, waking, is
    // refused and charges nothing.
    charge.open();
    const late = await first;
    assert.equal(late.status, 422, JSON.stringify(late.body));
    assert.equal(late.body.code, "prices_expired");
    assert.equal((await account(t, client)).balance, 411.08, "charged once");
    const stalled = waybillOf(courier.business.id, offer.prices_reference);
    const made = await t.env.runtime.read(shipmentActor, courier.business.id, stalled, {
      kind: "get",
    });
    assert.equal(made.ok, false, "no shipment for the stalled booking");
    assert.equal((await book(t, client, offer.prices_reference)).body.code, "prices_expired");
    await t.settle();
    assert.equal(await completeStalledBookings(t.env, t.clock.now() + STALLED_BOOKING_MS), 0);
    assert.equal((await account(t, client)).balance, 411.08);
  }));

Deno.test("book: a saved quote's booking stalled after claiming its reference holds it minutes, not 7 days, and never charges once another booking took it over", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t, { unique_external_reference: true });
    await topUp(t, courier, client, "500.00");
    const body = { ...DOMESTIC, client_order_reference: "ORD-QUOTE" };
    const q = await t.call("POST", "/client/quotes", { headers: clientKey(client), body });
    assert.equal(q.status, 201, JSON.stringify(q.body));
    const quote = q.body.data.quote_reference;
    const bookQuote = () =>
      t.call("POST", `/client/quotes/${quote}/book`, {
        headers: clientKey(client),
        body: { service_level: "express" },
      });
    // The quote's booking claims the reference, then stalls (or its process stops) before its
    // charge, while the quote holds 7 days.
    const charge = holdAsk(t.env.runtime, commandKind("charge_booking"));
    const first = bookQuote();
    await charge.reached;
    t.clock.advanceBy(60_000);
    // Claimed a moment ago, it may be on its way to its charge: the reference stays with it.
    const early = await book(t, client, (await prices(t, client, body)).prices_reference);
    assert.equal(early.status, 409, JSON.stringify(early.body));
    assert.equal(early.body.code, "duplicate_order");
    assert.deepEqual(Object.keys(early.body).filter((k) => k.includes("claimed")), []);
    t.clock.advanceBy(STOPPED_AFTER_CLAIM_MS);
    // spec: courier 4.2: a reference is a duplicate only of a booking that exists.
    const next = await book(t, client, (await prices(t, client, body)).prices_reference);
    assert.equal(next.status, 201, JSON.stringify(next.body));
    charge.open();
    // spec: courier 4.2, 7: waking, or sent again, it is a duplicate of the booking that holds
    // the reference now, named by its waybill (not expired: the quote still holds).
    for (const answer of [await first, await bookQuote()]) {
      assert.equal(answer.status, 409, JSON.stringify(answer.body));
      assert.equal(answer.body.code, "duplicate_order");
      assert.equal(answer.body.waybill, next.body.data.waybill);
    }
    assert.equal((await account(t, client)).balance, 411.08, "charged once");
  }));

Deno.test("book: a reference held by a booking charged before a crash stays with it after its prices expired", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t, { unique_external_reference: true });
    await topUp(t, courier, client, "500.00");
    const body = { ...DOMESTIC, client_order_reference: "ORD-PAID" };
    const offer = await prices(t, client, body);
    const waybill = waybillOf(courier.business.id, offer.prices_reference);
    await t.env.runtime.ask(
      referenceClaimActor,
      courier.business.id,
      claimId(client.id, "ORD-PAID"),
      {
        kind: "claim",
        waybill,
        reference: offer.prices_reference,
      },
    );
    await chargeOnly(t, courier.business.id, client.id, waybill);
    t.clock.advanceBy(30 * 60_000 + 1);
    const other = await book(t, client, (await prices(t, client, body)).prices_reference);
    assert.equal(other.status, 409, JSON.stringify(other.body));
    assert.equal(other.body.code, "duplicate_order");
    const retry = await book(t, client, offer.prices_reference);
    assert.equal(retry.status, 201, JSON.stringify(retry.body));
    assert.equal((await account(t, client)).balance, 411.08, "charged once");
  }));
