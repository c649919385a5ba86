import assert from "node:assert/strict";
import { tripActor } from "../../../actors/business/trip/mod.ts";
import { type CreatedBusiness, type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { busyAsks, commandKind, flakyRuntime } from "../../helpers/faults.ts";
import { refundCancelledTrip } from "../../../src/business/reactors/booking_outboxes.ts";
import { walletActor } from "../../../actors/platform/wallet.ts";
import { bookingReference } from "../../../src/business/rules/booking.ts";
import { balanceOf, book, bwp, fundedBusiness, PARCEL } from "./trips_fixtures.ts";
import { outboxRetryDue } from "../../helpers/outbox_retry.ts";

Deno.test("trips: cancel before collection refunds once; again already_cancelled; after collection 422", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const first = await book(t, b.api_key, { ...PARCEL, handover_required: true });
    const ref = first.body.data.reference;
    const c = await t.call("POST", "/business/trips/1/cancel", {
      key: b.api_key,
      body: { reason: "customer changed mind" },
    });
    assert.equal(c.status, 200, JSON.stringify(c.body));
    assert.equal(c.body.data.status, "cancelled");
    assert.equal(c.body.data.cancel_reason, "customer changed mind");
    // spec: business 2.2, 2.4: the booking's estimate while it may arrive, null once it ended.
    assert.ok(first.body.data.eta_minutes >= 5);
    assert.equal(c.body.data.eta_minutes, null);
    await t.env.runtime.outboxesIdle();
    assert.deepEqual(await balanceOf(t, b.api_key), bwp(1000));
    const again = await t.call("POST", `/business/trips/${ref}/cancel`, { key: b.api_key });
    assert.equal(again.status, 200);
    assert.equal(again.body.data.already_cancelled, true);
    await t.env.runtime.outboxesIdle();
    assert.deepEqual(await balanceOf(t, b.api_key), bwp(1000));
    const listed = await t.call("GET", "/business/wallet/transactions", { key: b.api_key });
    assert.equal(listed.status, 200);
    assert.deepEqual(
      listed.body.data.map((x: { kind: string; reference: string }) => [x.kind, x.reference]),
      [
        ["credit", listed.body.data[0].reference],
        ["debit", `trip:${ref}`],
        ["credit", `refund:${ref}`],
      ],
    );
    const after = listed.body.data[1].seq;
    const page = await t.call("GET", `/business/wallet/transactions?after=${after}`, {
      key: b.api_key,
    });
    assert.equal(page.body.data.length, 1);

    const second = await book(t, b.api_key, { ...PARCEL, handover_required: true });
    const ref2 = second.body.data.reference;
    // A reason of only spaces is none: null, never "".
    const blank = await book(t, b.api_key, PARCEL);
    const noReason = await t.call("POST", `/business/trips/${blank.body.data.reference}/cancel`, {
      key: b.api_key,
      body: { reason: "   " },
    });
    assert.equal(noReason.status, 200, JSON.stringify(noReason.body));
    assert.equal(noReason.body.data.cancel_reason, null);
    const driver = {
      id: "pdr_1",
      name: "Neo",
      phone: null,
      plate: null,
      color: null,
      vehicle_type_id: 1,
    };
    assert.ok((await t.env.runtime.ask(tripActor, b.id, ref2, { kind: "accept", driver })).ok);
    assert.ok((await t.env.runtime.ask(tripActor, b.id, ref2, { kind: "arrive" })).ok);
    const collect = { kind: "collect", force_reason: "no custody scanning" } as const;
    const early = await t.env.runtime.ask(tripActor, b.id, ref2, collect);
    assert.ok(!early.ok && early.code === "awaiting_handover");
    for (let i = 0; i < 2; i++) {
      const ready = await t.call("POST", `/business/trip/${ref2}/ready`, { key: b.api_key });
      assert.equal(ready.status, 200);
      assert.ok(ready.body.data.ready_at);
    }
    assert.ok((await t.env.runtime.ask(tripActor, b.id, ref2, collect)).ok);
    const late = await t.call("POST", "/business/trips/2/cancel", { key: b.api_key });
    assert.equal(late.status, 422);
    assert.equal(late.body.code, "not_cancellable");
  }));

Deno.test("trips: wallet.low_balance is added to the outbox once below the threshold", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const p = await t.call("PATCH", "/business/profile", {
      key: b.api_key,
      body: { low_balance_threshold: 999 },
    });
    assert.equal(p.status, 200, JSON.stringify(p.body));
    const seen: unknown[] = [];
    const release = t.env.runtime.handleOutbox("business_webhook", (i) => {
      seen.push(i.payload);
      return Promise.resolve();
    });
    try {
      assert.equal((await book(t, b.api_key, PARCEL)).status, 201);
      assert.equal((await book(t, b.api_key, PARCEL)).status, 201);
      await t.env.runtime.outboxesIdle();
      const low = seen.filter((x) => (x as { event: string }).event === "wallet.low_balance");
      assert.equal(low.length, 1);
      assert.equal((low[0] as { business_id: string }).business_id, b.id);
      const created = seen.filter((x) => (x as { event: string }).event === "trip.created");
      assert.equal(created.length, 2);
    } finally {
      release();
    }
  }));

Deno.test("trips: a credit account books within its credit limit, and no further", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t, "0");
    const set = await t.call("PATCH", `/operator/businesses/${b.id}`, {
      operator: true,
      body: { billing_type: "credit", credit_limit: 100 },
    });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.equal(set.body.data.billing_type, "credit");
    assert.equal(set.body.data.credit_limit, 100);
    const first = await book(t, b.api_key, PARCEL);
    assert.equal(first.status, 201, JSON.stringify(first.body));
    const fare = first.body.data.billing_amount;
    const w = await balanceOf(t, b.api_key);
    assert.deepEqual(w, {
      billing_type: "credit",
      credit_limit: 100,
      balances: [{ currency: "BWP", balance: -fare }],
    });
    let booked = 1;
    while ((booked + 1) * fare <= 100) {
      assert.equal((await book(t, b.api_key, PARCEL)).status, 201);
      booked++;
    }
    const over = await book(t, b.api_key, PARCEL);
    assert.equal(over.status, 422);
    assert.equal(over.body.code, "insufficient_balance");
  }));

Deno.test("trips: a refund whose trip was too busy to record it is recorded by the outbox's next handling, credited once", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const ref = (await book(t, b.api_key, PARCEL)).body.data.reference;
    // The trip's mailbox is full when the refund credited is recorded on it: not now.
    const refused = busyAsks(t.env.runtime, commandKind("refunded", tripActor.type), 1);
    const c = await t.call("POST", `/business/trips/${ref}/cancel`, { key: b.api_key });
    assert.equal(c.status, 200, JSON.stringify(c.body));
    await t.env.runtime.outboxesIdle();
    assert.equal(refused(), 1);
    outboxRetryDue(t.clock);
    await t.env.runtime.sweepOutboxes();
    await t.env.runtime.outboxesIdle();
    const read = await t.env.runtime.read(tripActor, b.id, ref, { kind: "get" });
    assert.ok(read.ok && read.reply.phase === "booked");
    // spec: business 3.1: the trip keeps the refund made for it, with its wallet transaction.
    assert.notEqual(read.reply.trip.refund?.transaction_id ?? null, null);
    assert.deepEqual(await balanceOf(t, b.api_key), bwp(1000));
  }));

Deno.test("trips: a cancelled trip's refund whose read of the trip is refused (busy) is kept for a retry, not taken as nothing to refund", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const ref = (await book(t, b.api_key, PARCEL)).body.data.reference;
    const refused = busyAsks(t.env.runtime, commandKind("refunded", tripActor.type), 1);
    const c = await t.call("POST", `/business/trips/${ref}/cancel`, { key: b.api_key });
    assert.equal(c.status, 200, JSON.stringify(c.body));
    await t.env.runtime.outboxesIdle();
    assert.equal(refused(), 1);
    // The refund's next handling meets the trip's full mailbox: not now, so the item must stay.
    const flaky = flakyRuntime(t.env.runtime, {
      fails: commandKind("get", tripActor.type),
      refuse: true,
    });
    const item = { business_id: b.id, reference: ref };
    await assert.rejects(refundCancelledTrip({ runtime: flaky.runtime }, item));
    await refundCancelledTrip(t.env, item);
    const read = await t.env.runtime.read(tripActor, b.id, ref, { kind: "get" });
    assert.ok(read.ok && read.reply.phase === "booked");
    assert.notEqual(read.reply.trip.refund?.transaction_id ?? null, null);
    assert.deepEqual(await balanceOf(t, b.api_key), bwp(1000));
  }));

/**
 * A booking whose first attempt claimed `value` as its external_reference and took its charge,
 * the trip not made yet (the request stopped, or is still on its way): its reference.
 */
async function chargedClaim(
  t: TestEnv,
  b: CreatedBusiness,
  value: string,
  over: Record<string, unknown> = {},
): Promise<string> {
  const first = await book(t, b.api_key, PARCEL);
  const read = await t.env.runtime.read(tripActor, b.id, first.body.data.reference, {
    kind: "get",
  });
  assert.ok(read.ok && read.reply.phase === "booked");
  const reference = bookingReference(t.env.referenceKey, { id: b.id, references_keyed: true }, {
    kind: "external_reference",
    value,
  }, () => "");
  const draft = { ...read.reply.trip, ...over, reference, external_reference: value };
  const claimed = await t.env.runtime.ask(tripActor, b.id, reference, {
    kind: "claim",
    claim: { draft, fingerprint: "fp", key_kind: "external_reference" },
  });
  assert.ok(claimed.ok && claimed.reply.phase === "booking");
  const charged = await t.env.runtime.ask(walletActor, b.id, b.id, {
    kind: "debit",
    amount_minor: draft.billing_amount_minor,
    currency: "BWP",
    reference: `trip:${reference}`,
    by: "api_key",
    low_balance: null,
  }, { idempotencyKey: `charge:${reference}:${claimed.reply.claimed_at}`, permanent: true });
  assert.ok(charged.ok);
  return reference;
}

/** The booking's sweep completes a claim stopped after its charge (BOOKING_STALL_MS). */
async function swept(t: TestEnv): Promise<void> {
  t.clock.advanceBy(31_000);
  await t.env.runtime.fireDueTimers();
  await t.env.runtime.outboxesIdle();
}

Deno.test("trips: cancel of a booking charged and not yet a trip answers 409 booking_in_progress with Retry-After 5, changing nothing; its retry cancels the trip", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const reference = await chargedClaim(t, b, "ORD-CX");
    const balance = await balanceOf(t, b.api_key);
    // spec: business 7: the charge may be taken and the trip appears moments later: not 404.
    const early = await t.call("POST", `/business/trips/${reference}/cancel`, { key: b.api_key });
    assert.equal(early.status, 409, JSON.stringify(early.body));
    assert.equal(early.body.code, "booking_in_progress");
    assert.equal(early.headers.get("Retry-After"), "5");
    const still = await t.env.runtime.read(tripActor, b.id, reference, { kind: "claim_state" });
    assert.ok(still.ok && still.reply.phase === "booking");
    assert.deepEqual(await balanceOf(t, b.api_key), balance);
    // The sweep completes the booking; the integrator's retry then cancels and refunds it.
    await swept(t);
    const retry = await t.call("POST", `/business/trips/${reference}/cancel`, { key: b.api_key });
    assert.equal(retry.status, 200, JSON.stringify(retry.body));
    assert.equal(retry.body.data.status, "cancelled");
    await t.env.runtime.outboxesIdle();
    const fare = retry.body.data.billing_amount;
    // Two bookings charged, this one refunded: the first's fare is all that is spent.
    assert.deepEqual(await balanceOf(t, b.api_key), bwp(1000 - fare));
  }));

Deno.test("trips: ready, rotate and revoke of a booking not yet a trip answer 409 booking_in_progress with Retry-After 5, changing nothing; their retries act on the trip", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const reference = await chargedClaim(t, b, "ORD-RX", { handover_required: true });
    const paths = [
      `/business/trip/${reference}/ready`,
      `/business/trips/${reference}/tracking-link/rotate`,
      `/business/trips/${reference}/tracking-link/revoke`,
    ];
    for (const path of paths) {
      const early = await t.call("POST", path, { key: b.api_key });
      assert.equal(early.status, 409, `${path}: ${JSON.stringify(early.body)}`);
      assert.equal(early.body.code, "booking_in_progress");
      assert.equal(early.headers.get("Retry-After"), "5");
    }
    const still = await t.env.runtime.read(tripActor, b.id, reference, { kind: "claim_state" });
    assert.ok(still.ok && still.reply.phase === "booking");
    await swept(t);
    for (const path of paths) {
      const retry = await t.call("POST", path, { key: b.api_key });
      assert.equal(retry.status, 200, `${path}: ${JSON.stringify(retry.body)}`);
    }
    const read = await t.env.runtime.read(tripActor, b.id, reference, { kind: "get" });
    assert.ok(read.ok && read.reply.phase === "booked");
    assert.notEqual(read.reply.trip.ready_at, null);
    assert.notEqual(read.reply.trip.tracking_revoked_at, null);
  }));

Deno.test("trips: ready on a cancelled trip answers 409 invalid_transition and records no ready_at", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const booked = await book(t, b.api_key, { ...PARCEL, handover_required: true });
    const ref = booked.body.data.reference;
    const c = await t.call("POST", `/business/trips/${ref}/cancel`, { key: b.api_key });
    assert.equal(c.status, 200, JSON.stringify(c.body));
    const ready = await t.call("POST", `/business/trip/${ref}/ready`, { key: b.api_key });
    assert.equal(ready.status, 409, JSON.stringify(ready.body));
    assert.equal(ready.body.code, "invalid_transition");
    const read = await t.call("GET", `/business/trips/${ref}`, { key: b.api_key });
    assert.equal(read.body.data.status, "cancelled");
    assert.equal(read.body.data.ready_at, null);
  }));
