/**
 * A booking that stopped before its charge while holding its external reference, once another
 * booking took the reference over (courier 4.1, 4.2, 7; src/courier/flows/booking/claim.ts,
 * fence.ts, rebook.ts): it answers as its retry would, the booking that holds the reference now;
 * a saved quote that still holds can be booked again under a new waybill. And a request whose
 * identity another attempt of it took over (flows/booking/request.ts): the call waking after
 * answers the request's one booking, already booked.
 */
import assert from "node:assert/strict";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import {
  type Client,
  clientKey,
  type Courier,
  DOMESTIC,
  newClient,
  newCourier,
  topUp,
} from "../../helpers/courier.ts";
import { commandKind, holdAsk } from "../../helpers/faults.ts";
import {
  STOPPED_AFTER_CLAIM_MS,
  STOPPED_AFTER_EXPIRY_MS,
} from "../../../src/courier/flows/booking/mod.ts";
import { waybillOf } from "../../../src/courier/rules/waybill.ts";
import { claimId, referenceClaimActor } from "../../../actors/courier/reference_claim.ts";
import { priceOfferActor } from "../../../actors/courier/price_offer.ts";

/** Express of DOMESTIC, once (see booking_prices_test.ts for its lines). */
const EXPRESS = 88.92;

async function ready(t: TestEnv): Promise<[Courier, Client]> {
  const courier = await newCourier(t);
  const client = await newClient(t, courier, { unique_external_reference: true });
  await topUp(t, courier, client, "500.00");
  return [courier, client];
}

function book(t: TestEnv, client: Client, path: string, body: Record<string, unknown> = {}) {
  return t.call("POST", path, {
    headers: clientKey(client),
    body: { service_level: "express", dangerous_goods_confirmed: true, ...body },
  });
}

async function bookPrices(t: TestEnv, client: Client, body: Record<string, unknown>) {
  const r = await t.call("POST", "/client/prices", { headers: clientKey(client), body });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return await book(t, client, "/client/book", { prices_reference: r.body.data.prices_reference });
}

async function balance(t: TestEnv, client: Client): Promise<number> {
  return (await t.call("GET", "/client/account", { headers: clientKey(client) })).body.data.balance;
}

Deno.test("book: held prices whose stalled booking was taken over answer the booking that holds the reference now, waking or retried", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t);
    const body = { ...DOMESTIC, client_order_reference: "ORD-HELD" };
    const r = await t.call("POST", "/client/prices", { headers: clientKey(client), body });
    const prices_reference = r.body.data.prices_reference;
    // The booking claims the reference, then stalls before its charge; its prices still hold.
    const charge = holdAsk(t.env.runtime, commandKind("charge_booking"));
    const first = book(t, client, "/client/book", { prices_reference });
    await charge.reached;
    t.clock.advanceBy(STOPPED_AFTER_CLAIM_MS + 1_000);
    const other = await bookPrices(t, client, body);
    assert.equal(other.status, 201, JSON.stringify(other.body));
    charge.open();
    // spec: courier 4.2, 7: the same booking, waking or sent again, is a duplicate of the
    // booking that holds the reference now, named by its waybill.
    for (
      const answer of [await first, await book(t, client, "/client/book", { prices_reference })]
    ) {
      assert.equal(answer.status, 409, JSON.stringify(answer.body));
      assert.equal(answer.body.code, "duplicate_order");
      assert.equal(answer.body.waybill, other.body.data.waybill);
    }
    assert.equal(await balance(t, client), Number((500 - EXPRESS).toFixed(2)), "charged once");
  }));

/**
 * A saved quote whose booking claimed its reference and stalled before its charge (`first`,
 * held until `open`); another booking took the reference over (withdrawing the quote's charge)
 * and was refused at its own charge, so the reference is free again.
 */
async function withdrawnQuote(t: TestEnv, client: Client) {
  const body = { ...DOMESTIC, client_order_reference: "ORD-AGAIN" };
  const q = await t.call("POST", "/client/quotes", { headers: clientKey(client), body });
  assert.equal(q.status, 201, JSON.stringify(q.body));
  const quote: string = q.body.data.quote_reference;
  const path = `/client/quotes/${quote}/book`;
  const charge = holdAsk(t.env.runtime, commandKind("charge_booking"));
  const first = book(t, client, path);
  await charge.reached;
  t.clock.advanceBy(STOPPED_AFTER_CLAIM_MS + 1_000);
  const parcels = [{ weight_kg: 300, length_cm: 30, width_cm: 20, height_cm: 10 }];
  const other = await bookPrices(t, client, { ...body, parcels });
  assert.equal(other.status, 422, JSON.stringify(other.body));
  assert.equal(other.body.code, "insufficient_balance");
  return { quote, path, first, open: charge.open };
}

/** The quote listed booked as `waybill`, the one shipment, charged once. */
async function bookedOnceAs(t: TestEnv, client: Client, quote: string, waybill: string) {
  assert.equal(await balance(t, client), Number((500 - EXPRESS).toFixed(2)), "charged once");
  await t.settle();
  const listed = await t.call("GET", "/client/quotes", { headers: clientKey(client) });
  assert.deepEqual(
    listed.body.data.map((d: { quote_reference: string; status: string; booking: unknown }) => [
      d.quote_reference,
      d.status,
      d.booking,
    ]),
    [[quote, "booked", { waybill }]],
  );
  const shipments = await t.call("GET", "/client/shipments", { headers: clientKey(client) });
  assert.deepEqual(shipments.body.data.map((s: { waybill: string }) => s.waybill), [waybill]);
}

Deno.test("quotes: a saved quote whose booking was withdrawn is booked again under a new waybill while it holds", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const { quote, path, first, open } = await withdrawnQuote(t, client);
    open();
    // spec: courier 4.1, 2.2: the quote holds 7 days; its withdrawn waybill does not end it.
    const late = await first;
    assert.equal(late.status, 201, JSON.stringify(late.body));
    const waybill = late.body.data.waybill;
    assert.notEqual(waybill, waybillOf(courier.business.id, quote));
    // The shipment names the quote the client saved, not the copy it was booked under.
    assert.equal(late.body.data.prices_reference, quote);
    const again = await book(t, client, path);
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.data.already_booked, true);
    assert.equal(again.body.data.waybill, waybill);
    await bookedOnceAs(t, client, quote, waybill);
  }));

Deno.test("quotes: a withdrawn quote booked again by a retry is the answer of its stalled booking waking after", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const { quote, path, first, open } = await withdrawnQuote(t, client);
    const retry = await book(t, client, path);
    assert.equal(retry.status, 201, JSON.stringify(retry.body));
    const waybill = retry.body.data.waybill;
    assert.notEqual(waybill, waybillOf(courier.business.id, quote));
    open();
    // The quote's own booking under its new waybill, not a duplicate of it.
    const late = await first;
    assert.equal(late.status, 200, JSON.stringify(late.body));
    assert.equal(late.body.data.already_booked, true);
    assert.equal(late.body.data.waybill, waybill);
    await bookedOnceAs(t, client, quote, waybill);
  }));

Deno.test("book: a stopped booking's claim over a reference booked before the flag is taken over for that booking, and answers name it", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "500.00");
    const tenant = courier.business.id;
    const ordered = { ...DOMESTIC, client_order_reference: "ORD-EARLY" };
    const early = await bookPrices(t, client, ordered);
    assert.equal(early.status, 201, JSON.stringify(early.body));
    const set = await t.call("PATCH", `/business/courier/clients/${client.id}`, {
      key: courier.business.api_key,
      body: { unique_external_reference: true },
    });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    // A booking that read the shipments before the early one reached them claimed the reference
    // for itself, then stopped before its charge.
    const r = await t.call("POST", "/client/prices", { headers: clientKey(client), body: ordered });
    const stopped = r.body.data.prices_reference;
    const claimed = await t.env.runtime.ask(
      referenceClaimActor,
      tenant,
      claimId(client.id, "ORD-EARLY"),
      { kind: "claim", waybill: waybillOf(tenant, stopped), reference: stopped },
    );
    assert.ok(claimed.ok);
    t.clock.advanceBy(STOPPED_AFTER_CLAIM_MS + 1_000);
    await t.settle();
    // spec: courier 4.2, 7: the reference is the early booking's: every later booking, and the
    // stopped one sent again, is its duplicate, never one of a waybill that will not exist.
    const later = await bookPrices(t, client, ordered);
    const retried = await book(t, client, "/client/book", { prices_reference: stopped });
    for (const answer of [later, retried]) {
      assert.equal(answer.status, 409, JSON.stringify(answer.body));
      assert.equal(answer.body.code, "duplicate_order");
      assert.equal(answer.body.waybill, early.body.data.waybill);
    }
    assert.equal(await balance(t, client), Number((500 - EXPRESS).toFixed(2)), "charged once");
  }));

const HOLD_MS = 30 * 60_000;

function post(t: TestEnv, client: Client, body: Record<string, unknown>) {
  return t.call("POST", "/client/shipments", { headers: clientKey(client), body });
}

/**
 * The first call of `body`: held before making its first prices while they expire (refused, it
 * prices again), then held at `step` with its second prices while the clock moves to `to`, where
 * a retry of the request books; then let go. Answers the waybill the retry booked.
 */
async function stalledSecondAttempt(
  t: TestEnv,
  client: Client,
  body: Record<string, unknown>,
  step: (type: string, command: unknown) => boolean,
  to: number,
): Promise<string> {
  const make = holdAsk(t.env.runtime, commandKind("make", priceOfferActor.type));
  const first = post(t, client, body);
  await make.reached;
  t.clock.advanceBy(HOLD_MS + 1_000);
  const held = holdAsk(t.env.runtime, step);
  make.open();
  await held.reached;
  t.clock.advanceBy(to - t.clock.now());
  const retry = await post(t, client, body);
  assert.equal(retry.status, 201, JSON.stringify(retry.body));
  held.open();
  const late = await first;
  // spec: courier 4.1: the woken call answers the request's one booking, already booked.
  assert.equal(late.status, 200, JSON.stringify(late.body));
  assert.equal(late.body.data.already_booked, true);
  assert.equal(late.body.data.waybill, retry.body.data.waybill);
  return retry.body.data.waybill;
}

/** spec: courier 7: another request of the reference is a duplicate order of `waybill`. */
async function refusedAsDuplicate(t: TestEnv, client: Client, order: string, waybill: string) {
  const ordered = { ...DOMESTIC, client_order_reference: order };
  for (
    const other of [
      { ...ordered, service_level: "economy" }, // the same identity with another request
      { ...ordered, service_level: "express", idempotency_key: `other-${order}` }, // its own key
    ]
  ) {
    const answer = await post(t, client, other);
    assert.equal(answer.status, 409, JSON.stringify(answer.body));
    assert.equal(answer.body.code, "duplicate_order");
    assert.equal(answer.body.waybill, waybill);
  }
}

async function shipments(t: TestEnv, client: Client): Promise<string[]> {
  await t.settle();
  const r = await t.call("GET", "/client/shipments?limit=100", { headers: clientKey(client) });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data.map((s: { waybill: string }) => s.waybill).sort();
}

Deno.test("booking request: a call stalled on its second prices while a retry took its identity over answers the retry's booking", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const claim = commandKind("claim", referenceClaimActor.type);
    const charge = commandKind("charge_booking");
    // The cut-off (14:00 in Gaborone, 12:00 UTC) overtakes the second prices, held at their
    // claim: the retry's booking holds the reference when the call claims it.
    const one = { ...DOMESTIC, service_level: "express", client_order_reference: "ORD-MOVED-1" };
    const cut = Date.parse("2026-11-02T12:01:00Z");
    const a = await stalledSecondAttempt(t, client, one, claim, cut);
    await refusedAsDuplicate(t, client, "ORD-MOVED-1", a);
    // The cut-off overtakes them within their hold, held before their charge: the retry took the
    // claim over, and the charge is answered the withdrawal (the claim is the retry's booking's).
    t.clock.advanceBy(Date.parse("2026-11-03T11:20:00Z") - t.clock.now());
    const two = { ...one, client_order_reference: "ORD-MOVED-2" };
    const b = await stalledSecondAttempt(t, client, two, charge, cut + 24 * 3_600_000);
    await refusedAsDuplicate(t, client, "ORD-MOVED-2", b);
    assert.deepEqual(await shipments(t, client), [a, b].sort());
    assert.equal(await balance(t, client), Number((500 - 2 * EXPRESS).toFixed(2)), "once each");

    // An idempotency key, no claim: their hold passes before their charge, withdrawn by the retry
    // (the call answered prices_expired before).
    const plain = await newClient(t, courier);
    await topUp(t, courier, plain, "500.00");
    const three = { ...DOMESTIC, service_level: "express", idempotency_key: "moved-3" };
    const past = t.clock.now() + 2 * HOLD_MS + STOPPED_AFTER_EXPIRY_MS + 60_000;
    const c = await stalledSecondAttempt(t, plain, three, charge, past);
    assert.deepEqual(await shipments(t, plain), [c]);
    assert.equal(await balance(t, plain), Number((500 - EXPRESS).toFixed(2)), "charged once");
  }));
