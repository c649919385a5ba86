/**
 * The client's one-call booking under retries, crashes and requests at once (courier 4.1, 4.6):
 * one shipment, charged once, whatever the order of the attempts.
 */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { chargeOnly, DOMESTIC, topUp } from "../../helpers/courier.ts";
import { ShipmentRequest } from "../../../routes/courier/answers/booking.ts";
import {
  fingerprintOf,
  STOPPED_AFTER_CLAIM_MS,
  STOPPED_AFTER_EXPIRY_MS,
} from "../../../src/courier/flows/booking/mod.ts";
import { waybillOf } from "../../../src/courier/rules/waybill.ts";
import { bookingRequestActor, bookingRequestId } from "../../../actors/courier/booking_request.ts";
import { priceOfferActor } from "../../../actors/courier/price_offer.ts";
import { commandKind, holdAsk, whileFlaky } from "../../helpers/faults.ts";
import { balance, EXPRESS, list, post, ready, ROW } from "./client_shipments_fixtures.ts";

Deno.test("client shipments: five identical requests at once book one shipment, charged once", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t, "1000");
    const answers = await Promise.all(
      Array.from(
        { length: 5 },
        () => post(t, client, "/client/shipments", { ...ROW, idempotency_key: "same-5" }),
      ),
    );
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 200, 200, 200, 201]);
    assert.equal(new Set(answers.map((a) => a.body.data.waybill)).size, 1);
    assert.equal(await balance(t, client), Number((1000 - EXPRESS).toFixed(2)));
  }));

Deno.test("client shipments: a retry after a crash resumes its offer, or prices again once expired", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t, "1000");
    const runtime = t.env.runtime;
    const tenant = courier.business.id;
    /** The request bound to `reference` as if the process stopped right after. */
    const crashed = async (key: string, reference: string, body: Record<string, unknown>) => {
      const r = await runtime.ask(bookingRequestActor, tenant, bookingRequestId(client.id, key), {
        kind: "begin",
        reference,
        fingerprint: await fingerprintOf(ShipmentRequest.parse(body)),
      });
      assert.ok(r.ok);
    };
    // Stopped before the offer was made: the retry makes it and books it.
    const one = { ...ROW, idempotency_key: "crash-1" };
    await crashed("key:crash-1", "prc_crashed1", one);
    const r1 = await post(t, client, "/client/shipments", one);
    assert.equal(r1.status, 201, JSON.stringify(r1.body));
    assert.equal(r1.body.data.waybill, await waybillOf(tenant, "prc_crashed1"));

    // Stopped after the offer was made: past its hold, the retry prices afresh.
    const priced = await post(t, client, "/client/prices", DOMESTIC);
    const held = await runtime.ask(priceOfferActor, tenant, priced.body.data.prices_reference, {
      kind: "get",
    });
    assert.ok(held.ok && held.reply);
    for (const ref of ["prc_crashed2", "prc_crashed3"]) {
      const made = await runtime.ask(priceOfferActor, tenant, ref, {
        kind: "make",
        offer: { ...held.reply, reference: ref },
      });
      assert.ok(made.ok);
    }
    const two = { ...ROW, idempotency_key: "crash-2" };
    await crashed("key:crash-2", "prc_crashed2", two);
    await crashed("key:crash-3", "prc_crashed3", { ...ROW, idempotency_key: "crash-3" });
    t.clock.advanceBy(31 * 60_000);
    const r2 = await post(t, client, "/client/shipments", two);
    assert.equal(r2.status, 201, JSON.stringify(r2.body));
    assert.notEqual(r2.body.data.prices_reference, "prc_crashed2");
    const again = await post(t, client, "/client/shipments", two);
    assert.equal(again.status, 200);
    assert.equal(again.body.data.waybill, r2.body.data.waybill);
    // Another request under a key whose expired offer booked nothing takes the key over.
    const three = { ...ROW, idempotency_key: "crash-3", contents: "Bandages" };
    const r3 = await post(t, client, "/client/shipments", three);
    assert.equal(r3.status, 201, JSON.stringify(r3.body));
    assert.equal(await balance(t, client), Number((1000 - 3 * EXPRESS).toFixed(2)));
  }));

Deno.test("client shipments: a refused one-shot booking charges nothing and frees its key", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t, "50");
    const key = { "Idempotency-Key": "k-1" };
    const poor = await post(t, client, "/client/shipments", ROW, key);
    assert.equal(poor.status, 422);
    assert.equal(poor.body.code, "insufficient_balance");
    const unknown = await post(t, client, "/client/shipments", { ...ROW, service_level: "x" }, key);
    assert.equal(unknown.status, 422);
    assert.equal(unknown.body.code, "validation_failed");
    assert.match(unknown.body.message, /service_level/);
    const missing = await post(t, client, "/client/shipments", DOMESTIC, key);
    assert.equal(missing.status, 422);
    assert.deepEqual(missing.body.errors.map((e: { path: string }) => e.path), ["service_level"]);
    assert.equal(await balance(t, client), 50);
    // After a top-up (and past the first prices' hold) the same key books.
    t.clock.advanceBy(31 * 60_000);
    await topUp(t, courier, client, "100");
    const booked = await post(t, client, "/client/shipments", ROW, key);
    assert.equal(booked.status, 201, JSON.stringify(booked.body));
    assert.equal(await balance(t, client), Number((150 - EXPRESS).toFixed(2)));
  }));

Deno.test("client shipments: a key whose booking was charged before a crash is not taken over by another request", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t, "1000");
    const tenant = courier.business.id;
    const first = { ...ROW, idempotency_key: "paid-1" };
    // The request stopped right after its charge: bound, priced and charged, no shipment.
    const priced = await post(t, client, "/client/prices", DOMESTIC);
    const reference = priced.body.data.prices_reference;
    const waybill = waybillOf(tenant, reference);
    const bound = await t.env.runtime.ask(
      bookingRequestActor,
      tenant,
      bookingRequestId(client.id, "key:paid-1"),
      { kind: "begin", reference, fingerprint: await fingerprintOf(ShipmentRequest.parse(first)) },
    );
    assert.ok(bound.ok);
    await chargeOnly(t, tenant, client.id, waybill);
    t.clock.advanceBy(31 * 60_000);
    // Another request under the key does not free it: the charge stands for the first one.
    const other = await post(t, client, "/client/shipments", { ...first, contents: "Bandages" });
    assert.equal(other.status, 409, JSON.stringify(other.body));
    // The first request sent again completes its booking, charged once.
    const retry = await post(t, client, "/client/shipments", first);
    assert.equal(retry.status, 201, JSON.stringify(retry.body));
    assert.equal(retry.body.data.waybill, waybill);
    assert.equal(await balance(t, client), Number((1000 - EXPRESS).toFixed(2)));
  }));

Deno.test("client shipments: a request sent again while its first attempt is charging as its prices expire books once", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t, "1000");
    const runtime = t.env.runtime;
    const ask = runtime.ask.bind(runtime);
    /** The next charge waits until `open` is called (a store slow to take it, a busy account). */
    let held: { reached: () => void; gate: Promise<void> } | null = null;
    runtime.ask = (async (...args: Parameters<typeof ask>) => {
      const command = args[3] as { kind?: string };
      const hold = held;
      if (command.kind === "charge_booking" && hold) {
        held = null;
        hold.reached();
        await hold.gate;
      }
      return await ask(...args);
    }) as typeof runtime.ask;
    const slowCharge = async (body: Record<string, unknown>, expire: () => void) => {
      let reached!: () => void, open!: () => void;
      const atCharge = new Promise<void>((r) => (reached = r));
      held = { reached, gate: new Promise<void>((r) => (open = r)) };
      const first = post(t, client, "/client/shipments", body);
      await atCharge;
      // The first attempt checked its prices; they expire before its charge is taken.
      expire();
      const twin = await post(t, client, "/client/shipments", body);
      open();
      return { first: await first, twin };
    };
    // spec: courier 4.1: the same request again books nothing new. The first attempt may still
    // charge the prices it checked: the twin is told to retry, never priced and booked again.
    const one = { ...ROW, idempotency_key: "slow-1" };
    const hold = await slowCharge(one, () => t.clock.advanceBy(30 * 60_000 + 1));
    assert.equal(hold.first.status, 201, JSON.stringify(hold.first.body));
    assert.equal(hold.twin.status, 409, JSON.stringify(hold.twin.body));
    assert.equal(hold.twin.body.code, "request_in_progress");
    const again = await post(t, client, "/client/shipments", one);
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.data.waybill, hold.first.body.data.waybill);
    assert.equal(await balance(t, client), Number((1000 - EXPRESS).toFixed(2)));

    // The same when the cut-off overtakes the prices (13:59:59 in Gaborone, then 14:00).
    t.clock.advanceBy(Date.parse("2026-11-03T11:59:59Z") - t.clock.now());
    const two = { ...ROW, idempotency_key: "slow-2" };
    const cut = await slowCharge(two, () => t.clock.advanceBy(1_001));
    assert.equal(cut.first.status, 201, JSON.stringify(cut.first.body));
    assert.equal(cut.twin.status, 409, JSON.stringify(cut.twin.body));
    assert.equal(cut.twin.body.code, "request_in_progress");
    t.clock.advanceBy(STOPPED_AFTER_EXPIRY_MS + 1);
    const after = await post(t, client, "/client/shipments", two);
    assert.equal(after.status, 200, JSON.stringify(after.body));
    assert.equal(after.body.data.waybill, cut.first.body.data.waybill);
    assert.equal(await balance(t, client), Number((1000 - 2 * EXPRESS).toFixed(2)));

    // A first attempt that stopped for good before its charge is priced again by the retry, once
    // the cut-off overtook its prices that long ago (not only once their hold has passed).
    t.clock.advanceBy(Date.parse("2026-11-04T11:59:59Z") - t.clock.now());
    const three = { ...ROW, idempotency_key: "stopped-3" };
    const failed = await whileFlaky(t.env, {
      fails: (_type, command) => (command as { kind?: string }).kind === "charge_booking",
    }, async () => {
      assert.equal((await post(t, client, "/client/shipments", three)).status, 500);
    });
    assert.equal(failed, 1);
    t.clock.advanceBy(1_000 + STOPPED_AFTER_EXPIRY_MS + 1);
    const retried = await post(t, client, "/client/shipments", three);
    assert.equal(retried.status, 201, JSON.stringify(retried.body));
    assert.equal(retried.body.data.collection_on, "2026-11-05", "priced again after the cut-off");
    assert.equal(await balance(t, client), Number((1000 - 3 * EXPRESS).toFixed(2)));
  }));

Deno.test("client shipments: a first attempt stalled before its charge until long past its prices' expiry never charges once its retry priced again", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t, "1000");
    const body = { ...ROW, idempotency_key: "stall-1" };
    // The first attempt checked its prices in time, then stalled before its charge (a GC pause,
    // a slow store) for far longer than STOPPED_AFTER_EXPIRY_MS after they expired.
    const charge = holdAsk(t.env.runtime, commandKind("charge_booking"));
    const first = post(t, client, "/client/shipments", body);
    await charge.reached;
    t.clock.advanceBy(30 * 60_000 + STOPPED_AFTER_EXPIRY_MS + 10 * 60_000);
    const retry = await post(t, client, "/client/shipments", body);
    assert.equal(retry.status, 201, JSON.stringify(retry.body));
    // spec: courier 4.1: the same request again books nothing new: the first attempt, waking,
    // finds its charge withdrawn and answers the one booking the request made.
    charge.open();
    const late = await first;
    assert.equal(late.status, 200, JSON.stringify(late.body));
    assert.equal(late.body.data.already_booked, true);
    assert.equal(late.body.data.waybill, retry.body.data.waybill);
    assert.equal(await balance(t, client), Number((1000 - EXPRESS).toFixed(2)), "charged once");
    assert.deepEqual((await list(t, client)).data.map((s) => s.waybill), [retry.body.data.waybill]);
  }));

Deno.test("client shipments: a first attempt stalled before its reference claim, whose retry priced again and booked, wakes to that booking, not a duplicate of it", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t, "1000", { unique_external_reference: true });
    const body = { ...ROW, client_order_reference: "ORD-STALL-3", idempotency_key: "stall-3" };
    // The first attempt checked its prices in time, then stalled before claiming its reference.
    const claim = holdAsk(t.env.runtime, commandKind("claim"));
    const first = post(t, client, "/client/shipments", body);
    await claim.reached;
    t.clock.advanceBy(30 * 60_000 + STOPPED_AFTER_EXPIRY_MS + 10 * 60_000);
    const retry = await post(t, client, "/client/shipments", body);
    assert.equal(retry.status, 201, JSON.stringify(retry.body));
    // spec: courier 4.1: the same request again books nothing new and answers its booking: the
    // reference its retry claimed is this request's own, not a duplicate order.
    claim.open();
    const late = await first;
    assert.equal(late.status, 200, JSON.stringify(late.body));
    assert.equal(late.body.data.already_booked, true);
    assert.equal(late.body.data.waybill, retry.body.data.waybill);
    assert.equal(await balance(t, client), Number((1000 - EXPRESS).toFixed(2)), "charged once");
    assert.equal((await list(t, client)).data.length, 1);
  }));

Deno.test("client shipments: a first attempt whose prices expired while a retry books them does not free the key for a second booking", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t, "1000");
    const runtime = t.env.runtime;
    const body = { ...ROW, idempotency_key: "stall-4" };
    // The first attempt bound its key, then stalled before making its offer.
    const make = holdAsk(runtime, commandKind("make", priceOfferActor.type));
    const first = post(t, client, "/client/shipments", body);
    await make.reached;
    // Its retry made the offer, checked it in time, and stalled before its charge.
    const charge = holdAsk(runtime, commandKind("charge_booking"));
    const retried = post(t, client, "/client/shipments", body);
    await charge.reached;
    t.clock.advanceBy(30 * 60_000 + 60_000);
    // The first attempt wakes to expired prices: priced again, it must not book a second time
    // while its retry may still charge the first prices.
    make.open();
    const woke = await first;
    charge.open();
    const retry = await retried;
    // spec: courier 4.1: one booking and one charge per idempotency key.
    const booked = [woke, retry].filter((a) => a.status === 200 || a.status === 201);
    assert.ok(booked.length > 0, JSON.stringify([woke.body, retry.body]));
    for (const a of booked) assert.equal(a.body.data.waybill, booked[0]!.body.data.waybill);
    assert.equal((await list(t, client)).data.length, 1, "one shipment");
    assert.equal(await balance(t, client), Number((1000 - EXPRESS).toFixed(2)), "charged once");
  }));

Deno.test("client shipments: a first attempt that charges just before its retry withdraws it is the booking the retry answers", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t, "1000");
    const runtime = t.env.runtime;
    const body = { ...ROW, idempotency_key: "stall-2" };
    const charge = holdAsk(runtime, commandKind("charge_booking"));
    const first = post(t, client, "/client/shipments", body);
    await charge.reached;
    t.clock.advanceBy(30 * 60_000 + STOPPED_AFTER_EXPIRY_MS + 10 * 60_000);
    // The retry found no charge and goes to withdraw it; the first attempt charges in between.
    const withdraw = holdAsk(runtime, commandKind("withdraw_booking"));
    const retried = post(t, client, "/client/shipments", body);
    const raced = await Promise.race([
      withdraw.reached.then(() => "withdrawing"),
      retried.then(() => "answered"),
    ]);
    charge.open();
    const booked = await first;
    withdraw.open();
    const retry = await retried;
    assert.equal(raced, "withdrawing", JSON.stringify(retry.body));
    assert.equal(booked.status, 201, JSON.stringify(booked.body));
    assert.equal(retry.status, 200, JSON.stringify(retry.body));
    assert.equal(retry.body.data.already_booked, true);
    assert.equal(retry.body.data.waybill, booked.body.data.waybill);
    assert.equal(await balance(t, client), Number((1000 - EXPRESS).toFixed(2)), "charged once");
    assert.equal((await list(t, client)).data.length, 1);
  }));

Deno.test("client shipments: a retry whose prices had their charge withdrawn while they still held is priced again at once: the reference's booking is its answer, not request_in_progress", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t, "1000", { unique_external_reference: true });
    const runtime = t.env.runtime;
    const body = { ...ROW, client_order_reference: "ORD-FENCED", idempotency_key: "fenced-1" };
    // The first attempt claims the reference, then stalls before its charge.
    const first = holdAsk(runtime, commandKind("charge_booking"));
    const stalled = post(t, client, "/client/shipments", body);
    await first.reached;
    t.clock.advanceBy(STOPPED_AFTER_CLAIM_MS + 1_000);
    // A retry resumes the same prices (they hold 30 minutes), passes the claim it holds, and
    // stalls before its charge too.
    const second = holdAsk(runtime, commandKind("charge_booking"));
    const retried = post(t, client, "/client/shipments", body);
    await second.reached;
    // Another request of the reference takes the claim over (held past STOPPED_AFTER_CLAIM_MS):
    // the prices' charge is withdrawn, and it books.
    const other = await post(t, client, "/client/shipments", { ...body, idempotency_key: "x" });
    assert.equal(other.status, 201, JSON.stringify(other.body));
    // spec: courier 4.1, 4.2: the retry's charge is answered the withdrawal, so those prices can
    // never be booked, whatever the clock says: priced again at once, the request answers what a
    // fresh booking answers (the reference is the other's), not request_in_progress until the
    // prices expire.
    second.open();
    const retry = await retried;
    assert.equal(retry.status, 409, JSON.stringify(retry.body));
    assert.equal(retry.body.code, "duplicate_order");
    assert.equal(retry.body.waybill, other.body.data.waybill);
    first.open();
    const late = await stalled;
    assert.equal(late.status, 409, JSON.stringify(late.body));
    assert.equal(late.body.code, "duplicate_order");
    const again = await post(t, client, "/client/shipments", body);
    assert.equal(again.body.code, "duplicate_order", JSON.stringify(again.body));
    assert.equal(again.body.waybill, other.body.data.waybill);
    assert.equal(await balance(t, client), Number((1000 - EXPRESS).toFixed(2)), "charged once");
    assert.deepEqual((await list(t, client)).data.map((s) => s.waybill), [other.body.data.waybill]);
  }));

Deno.test("client shipments: prices withdrawn by an attempt that stopped before freeing its key are priced again at once by the next attempt, without a claim", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t, "1000");
    const runtime = t.env.runtime;
    const body = { ...ROW, idempotency_key: "fenced-2" };
    // The first attempt binds the key and stalls before making its offer; a retry makes it,
    // checks it in time and stalls before its charge.
    const make = holdAsk(runtime, commandKind("make", priceOfferActor.type));
    const first = post(t, client, "/client/shipments", body);
    await make.reached;
    const charge = holdAsk(runtime, commandKind("charge_booking"));
    const retried = post(t, client, "/client/shipments", body);
    await charge.reached;
    // Just past the hold: within STOPPED_AFTER_EXPIRY_MS, a booking may still look on its way.
    t.clock.advanceBy(30 * 60_000 + 1_000);
    // The first attempt wakes to expired prices and withdraws their charge, then stops (its
    // process ends) before freeing the key.
    const release = holdAsk(
      runtime,
      (type, command) =>
        type === bookingRequestActor.type && (command as { kind?: string }).kind === "release",
    );
    make.open();
    await release.reached;
    // spec: courier 4.1, 4.6: the retry's charge is answered the withdrawal: those prices can
    // never be booked, so the request is priced again at once and booked, not left in progress.
    charge.open();
    const retry = await retried;
    assert.equal(retry.status, 201, JSON.stringify(retry.body));
    release.open();
    const woke = await first;
    assert.equal(woke.status, 200, JSON.stringify(woke.body));
    assert.equal(woke.body.data.waybill, retry.body.data.waybill);
    assert.equal(await balance(t, client), Number((1000 - EXPRESS).toFixed(2)), "charged once");
    assert.equal((await list(t, client)).data.length, 1);
  }));

Deno.test("client shipments: a key whose request stopped before its offer was made is given to another request once it has stalled", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t, "1000");
    const tenant = courier.business.id;
    const runtime = t.env.runtime;
    const first = { ...ROW, idempotency_key: "lost-1" };
    // The request stopped right after binding its key: no offer, no charge, no shipment.
    const bound = await runtime.ask(
      bookingRequestActor,
      tenant,
      bookingRequestId(client.id, "key:lost-1"),
      {
        kind: "begin",
        reference: "prc_lost1",
        fingerprint: await fingerprintOf(ShipmentRequest.parse(first)),
      },
    );
    assert.ok(bound.ok);
    const other = { ...first, contents: "Bandages" };
    // Still within a request's time: it may be making its offer now.
    const early = await post(t, client, "/client/shipments", other);
    assert.equal(early.status, 409, JSON.stringify(early.body));
    assert.equal(early.body.code, "request_in_progress");
    t.clock.advanceBy(5 * 60_000);
    const taken = await post(t, client, "/client/shipments", other);
    assert.equal(taken.status, 201, JSON.stringify(taken.body));
    assert.notEqual(taken.body.data.waybill, await waybillOf(tenant, "prc_lost1"));
    // The first request, should it wake, can no longer price or book under its reference.
    const late = await post(t, client, "/client/shipments", first);
    assert.equal(late.status, 409, JSON.stringify(late.body));
    assert.equal(late.body.code, "idempotency_key_reused");
    const offer = await runtime.read(priceOfferActor, tenant, "prc_lost1", { kind: "get" });
    assert.equal(offer.ok, false);
    assert.equal(await balance(t, client), Number((1000 - EXPRESS).toFixed(2)));
  }));

Deno.test("client shipments: a request whose key another request holds answers 409 request_in_progress with Retry-After", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t, "1000");
    const first = { ...ROW, idempotency_key: "held-1" };
    // Another request holds the key and may be making its offer now.
    const bound = await t.env.runtime.ask(
      bookingRequestActor,
      courier.business.id,
      bookingRequestId(client.id, "key:held-1"),
      {
        kind: "begin",
        reference: "prc_held1",
        fingerprint: await fingerprintOf(ShipmentRequest.parse(first)),
      },
    );
    assert.ok(bound.ok);
    // spec: business 7 (where the code is defined): request_in_progress says when to retry.
    const r = await post(t, client, "/client/shipments", { ...first, contents: "Bandages" });
    assert.equal(r.status, 409, JSON.stringify(r.body));
    assert.equal(r.body.code, "request_in_progress");
    assert.equal(r.headers.get("Retry-After"), "5");
    assert.equal(await balance(t, client), 1000);
  }));

Deno.test("client shipments: a request stalled before its offer, whose key was given to another request, wakes to that request's answer, not a 404", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t, "1000");
    const first = { ...ROW, idempotency_key: "lost-2" };
    // The first request bound its key, then stalled before making its offer (a GC pause).
    const make = holdAsk(t.env.runtime, commandKind("make", priceOfferActor.type));
    const stalled = post(t, client, "/client/shipments", first);
    await make.reached;
    t.clock.advanceBy(5 * 60_000);
    const taken = await post(t, client, "/client/shipments", { ...first, contents: "Bandages" });
    assert.equal(taken.status, 201, JSON.stringify(taken.body));
    // Waking, it finds its reference voided: the key is another request's now, booked.
    make.open();
    const late = await stalled;
    assert.equal(late.status, 409, JSON.stringify(late.body));
    assert.equal(late.body.code, "idempotency_key_reused");
    assert.match(late.body.message, new RegExp(taken.body.data.waybill));
    assert.equal(await balance(t, client), Number((1000 - EXPRESS).toFixed(2)));
    assert.equal((await list(t, client)).data.length, 1);
  }));
