import assert from "node:assert/strict";
import { tripActor } from "../../../actors/business/trip/mod.ts";
import { walletActor } from "../../../actors/platform/wallet.ts";
import { bookingReference } from "../../../src/business/rules/booking.ts";
import { tripNumbersOf } from "../../../src/business/flows/trip_numbers.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import { busyAsks, commandKind, flakyRuntime } from "../../helpers/faults.ts";
import { completeStalledBooking } from "../../../src/business/reactors/booking_outboxes.ts";
import { balanceOf, book, bwp, debitsOf, fundedBusiness, PARCEL } from "./trips_fixtures.ts";
import { outboxRetryDue } from "../../helpers/outbox_retry.ts";

Deno.test("book retry: an external_reference replays its trip, conflicts on other details, for good", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const body = { ...PARCEL, external_reference: "ORD-7" };
    const first = await book(t, b.api_key, body);
    assert.equal(first.status, 201);
    const again = await book(t, b.api_key, { ...body });
    assert.equal(again.status, 200);
    assert.equal(again.body.data.replayed, true);
    assert.equal(again.body.data.reference, first.body.data.reference);
    // The same booking spelled with its defaults (business 2.1) is a replay, not other details.
    const spelled = await book(t, b.api_key, {
      ...body,
      stops: [],
      handover_required: false,
      segment: "parcel",
      order_payload: { external_reference: "ORD-7" },
    });
    assert.equal(spelled.status, 200, JSON.stringify(spelled.body));
    assert.equal(spelled.body.data.reference, first.body.data.reference);
    assert.deepEqual(first.body.data.order_payload, { external_reference: "ORD-7" });
    const other = await book(t, b.api_key, { ...body, passenger_name: "Someone else" });
    assert.equal(other.status, 409);
    assert.equal(other.body.code, "external_reference_conflict");
    assert.ok(other.body.message.includes(first.body.data.reference));
    assert.deepEqual(await balanceOf(t, b.api_key), bwp(1000 - first.body.data.billing_amount));
    const ref = first.body.data.reference;
    assert.equal(
      (await t.call("POST", `/business/trips/${ref}/cancel`, { key: b.api_key })).status,
      200,
    );
    const replay = await book(t, b.api_key, body);
    assert.equal(replay.status, 200);
    assert.equal(replay.body.data.original_status, "cancelled");
    assert.equal(replay.body.data.replay_terminal, true);
  }));

Deno.test("book retry: Idempotency-Key replays, conflicts, loses to a body reference, never becomes it", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const h = { "Idempotency-Key": "attempt-1" };
    const first = await book(t, b.api_key, PARCEL, h);
    assert.equal(first.status, 201);
    assert.equal(first.body.data.external_reference, null);
    const again = await book(t, b.api_key, PARCEL, h);
    assert.equal(again.status, 200);
    assert.equal(again.body.data.replayed, true);
    const other = await book(t, b.api_key, { ...PARCEL, passenger_name: "Mpho" }, h);
    assert.equal(other.status, 409);
    assert.equal(other.body.code, "reference_conflict");
    // A body reference wins: the same key with a reference is another booking.
    const withRef = await book(t, b.api_key, { ...PARCEL, external_reference: "ORD-9" }, h);
    assert.equal(withRef.status, 201);
    assert.notEqual(withRef.body.data.reference, first.body.data.reference);
    const long = await book(t, b.api_key, PARCEL, { "Idempotency-Key": "k".repeat(65) });
    assert.equal(long.body.code, "validation_failed");
  }));

Deno.test("book retry: in progress answers 409 with Retry-After 5", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const body = { ...PARCEL, external_reference: "ORD-P" };
    const reference = bookingReference(t.env.referenceKey, { id: b.id, references_keyed: true }, {
      kind: "external_reference",
      value: "ORD-P",
    }, () => "");
    // A first attempt that claimed and has not finished.
    const first = await book(t, b.api_key, { ...body, external_reference: "ORD-Q" });
    const read = await t.env.runtime.read(tripActor, b.id, first.body.data.reference, {
      kind: "get",
    });
    assert.ok(read.ok && read.reply.phase === "booked");
    const { trip } = read.reply;
    const fingerprintOfBody =
      (await import("../../../src/business/rules/booking.ts")).fingerprintOf;
    const claimed = await t.env.runtime.ask(tripActor, b.id, reference, {
      kind: "claim",
      claim: {
        draft: { ...trip, reference, external_reference: "ORD-P" },
        fingerprint: fingerprintOfBody(body),
        key_kind: "external_reference",
      },
    });
    assert.ok(claimed.ok);
    const r = await book(t, b.api_key, body);
    assert.equal(r.status, 409);
    assert.equal(r.body.code, "booking_in_progress");
    assert.equal(r.headers.get("Retry-After"), "5");
    const keyed = await book(t, b.api_key, PARCEL, { "Idempotency-Key": "k-run" });
    assert.equal(keyed.status, 201);
  }));

Deno.test("book retry: an Idempotency-Key still running answers 409 request_in_progress with Retry-After 5", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const reference = bookingReference(
      t.env.referenceKey,
      { id: b.id, references_keyed: true },
      { kind: "idempotency_key", value: "k-busy" },
      () => "",
    );
    const first = await book(t, b.api_key, PARCEL);
    const read = await t.env.runtime.read(tripActor, b.id, first.body.data.reference, {
      kind: "get",
    });
    assert.ok(read.ok && read.reply.phase === "booked");
    const { fingerprintOf } = await import("../../../src/business/rules/booking.ts");
    // A first attempt under the key that claimed and has not finished.
    const claimed = await t.env.runtime.ask(tripActor, b.id, reference, {
      kind: "claim",
      claim: {
        draft: { ...read.reply.trip, reference, external_reference: null },
        fingerprint: fingerprintOf(PARCEL),
        key_kind: "idempotency_key",
      },
    });
    assert.ok(claimed.ok);
    const r = await book(t, b.api_key, PARCEL, { "Idempotency-Key": "k-busy" });
    assert.equal(r.status, 409, JSON.stringify(r.body));
    assert.equal(r.body.code, "request_in_progress");
    assert.equal(r.headers.get("Retry-After"), "5");
  }));

Deno.test("book retry: insufficient balance charges nothing and leaves the reference free", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t, "1.00");
    const body = { ...PARCEL, external_reference: "ORD-B" };
    const poor = await book(t, b.api_key, body);
    assert.equal(poor.status, 422);
    assert.equal(poor.body.code, "insufficient_balance");
    assert.deepEqual(await balanceOf(t, b.api_key), bwp(1));
    // A trip that was never booked leaves nothing on the query side (its claim projects none).
    await t.settle();
    const rows = await t.env.db.selectFrom("snapshots").select("id")
      .where("type", "=", tripActor.type).where("tenant", "=", b.id).execute();
    assert.deepEqual(rows, []);
    await t.call("POST", `/operator/businesses/${b.id}/wallet`, {
      operator: true,
      body: { amount: "999.00", currency: "BWP", reference: "top-up" },
    });
    const paid = await book(t, b.api_key, {
      ...body,
      passenger_name: "Other details are fine now",
    });
    assert.equal(paid.status, 201, JSON.stringify(paid.body));
  }));

Deno.test("book retry: 100 identical requests at once make one trip and one charge", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const body = { ...PARCEL, external_reference: "ORD-100" };
    const all = await Promise.all(Array.from({ length: 100 }, () => book(t, b.api_key, body)));
    const created = all.filter((r) => r.status === 201);
    assert.equal(created.length, 1);
    const refs = new Set(all.filter((r) => r.status < 300).map((r) => r.body.data.reference));
    assert.equal(refs.size, 1);
    for (const r of all) {
      assert.ok([200, 201, 409].includes(r.status), JSON.stringify(r.body));
      if (r.status === 409) assert.equal(r.body.code, "booking_in_progress");
    }
    assert.equal(await debitsOf(t, b.id), 1);
  }));

Deno.test("book retry: a booking stopped after its charge is completed by the sweep", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const first = await book(t, b.api_key, { ...PARCEL, external_reference: "ORD-S0" });
    const read = await t.env.runtime.read(tripActor, b.id, first.body.data.reference, {
      kind: "get",
    });
    assert.ok(read.ok && read.reply.phase === "booked");
    const reference = bookingReference(
      t.env.referenceKey,
      { id: b.id, references_keyed: true },
      { kind: "external_reference", value: "ORD-S" },
      () => "",
    );
    const draft = { ...read.reply.trip, reference, external_reference: "ORD-S" };
    // The request's steps up to its charge, then the process stops.
    const claimed = await t.env.runtime.ask(tripActor, b.id, reference, {
      kind: "claim",
      claim: { draft, fingerprint: "fp", key_kind: "external_reference" },
    });
    assert.ok(claimed.ok && claimed.reply.phase === "booking");
    const key = `${reference}:${claimed.reply.claimed_at}`;
    const charged = await t.env.runtime.ask(walletActor, b.id, b.id, {
      kind: "debit",
      amount_minor: draft.billing_amount_minor,
      currency: "BWP",
      reference: `trip:${reference}`,
      by: "api_key",
      low_balance: null,
    }, { idempotencyKey: `charge:${key}`, permanent: true });
    assert.ok(charged.ok);
    t.clock.advanceBy(31_000);
    await t.env.runtime.fireDueTimers();
    await t.env.runtime.outboxesIdle();
    const done = await t.call("GET", `/business/trips/${reference}`, { key: b.api_key });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.equal(done.body.data.id, 2);
    // Two bookings, two charges: the sweep did not charge again.
    assert.equal(await debitsOf(t, b.id), 2);
  }));

Deno.test("book retry: a trip too busy to be created keeps its charge, and the sweep (tried again while busy) creates it charged once", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const body = { ...PARCEL, external_reference: "ORD-BUSY" };
    // The trip's mailbox is full when its creation is asked: not now, not refused. So it is
    // still when the booking's sweep first completes it: the sweep tries again.
    const refused = busyAsks(t.env.runtime, commandKind("create", tripActor.type), 2);
    const busy = await book(t, b.api_key, body);
    assert.equal(busy.status, 503, JSON.stringify(busy.body));
    assert.equal(busy.body.code, "actor_busy");
    t.clock.advanceBy(31_000);
    await t.env.runtime.fireDueTimers();
    await t.env.runtime.outboxesIdle();
    assert.equal(refused(), 2);
    outboxRetryDue(t.clock, 2);
    await t.env.runtime.sweepOutboxes();
    await t.env.runtime.outboxesIdle();
    const replay = await book(t, b.api_key, body);
    assert.equal(replay.status, 200, JSON.stringify(replay.body));
    // spec: business 4.3: the trip that exists is paid for, once.
    assert.deepEqual(await balanceOf(t, b.api_key), bwp(1000 - replay.body.data.billing_amount));
    await t.env.runtime.outboxesIdle();
    assert.deepEqual(await balanceOf(t, b.api_key), bwp(1000 - replay.body.data.billing_amount));
  }));

Deno.test("book retry: a retry after scheduled_at passed replays the booked trip (external_reference, Idempotency-Key)", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const at = new Date(t.clock.now() + 5 * 60_000).toISOString();
    const byRef = { ...PARCEL, external_reference: "ORD-SCHED-1", scheduled_at: at };
    const byKey = { ...PARCEL, passenger_name: "Mpho", scheduled_at: at };
    const h = { "Idempotency-Key": "sched-attempt-1" };
    const firstByRef = await book(t, b.api_key, byRef);
    const firstByKey = await book(t, b.api_key, byKey, h);
    assert.equal(firstByRef.status, 201, JSON.stringify(firstByRef.body));
    assert.equal(firstByKey.status, 201, JSON.stringify(firstByKey.body));
    t.clock.advanceBy(6 * 60_000);
    // spec: business 7, appendix 2: the first result, not a 422 for a time now past.
    const replays = [
      { first: firstByRef, retry: await book(t, b.api_key, byRef) },
      { first: firstByKey, retry: await book(t, b.api_key, byKey, h) },
    ];
    for (const { first, retry } of replays) {
      assert.equal(retry.status, 200, JSON.stringify(retry.body));
      assert.equal(retry.body.data.replayed, true);
      assert.equal(retry.body.data.reference, first.body.data.reference);
    }
    assert.equal(await debitsOf(t, b.id), 2);
    // Other details under a held key are its conflict, whatever else is wrong with them now.
    const other = await book(t, b.api_key, { ...byKey, passenger_name: "Neo" }, h);
    assert.equal(other.status, 409, JSON.stringify(other.body));
    assert.equal(other.body.code, "reference_conflict");
    // A new booking is checked as ever: the same time is in the past for it.
    const late = await book(t, b.api_key, { ...byRef, external_reference: "ORD-SCHED-2" });
    assert.equal(late.status, 422);
    assert.equal(late.body.errors[0].path, "scheduled_at");
    assert.equal(await debitsOf(t, b.id), 2);
  }));

Deno.test("book retry: a retry after the account stopped allowing upgrades replays the upgraded trip", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const heavy = { ...PARCEL, vehicle_type_id: 2, parcel_weight_kg: 400 };
    const body = { ...heavy, external_reference: "ORD-UP-1" };
    const first = await book(t, b.api_key, body);
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.equal(first.body.data.vehicle_upgraded, true);
    const patched = await t.call("PATCH", `/operator/businesses/${b.id}`, {
      operator: true,
      body: { vehicle_upgrade_policy: "refuse" },
    });
    assert.equal(patched.status, 200);
    // spec: business appendix 2: the first result, whatever the settings say now.
    const retry = await book(t, b.api_key, body);
    assert.equal(retry.status, 200, JSON.stringify(retry.body));
    assert.equal(retry.body.data.replayed, true);
    assert.equal(retry.body.data.reference, first.body.data.reference);
    const fresh = await book(t, b.api_key, { ...heavy, external_reference: "ORD-UP-2" });
    assert.equal(fresh.body.code, "vehicle_upgrade_refused");
    assert.equal(await debitsOf(t, b.id), 1);
  }));

Deno.test("book retry: a refused charge whose claim was too busy to release is not told nothing booked; what the sweep books, the retry finds", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t, "0");
    const body = { ...PARCEL, external_reference: "ORD-POOR" };
    // The charge is refused (nothing in the wallet) and the claim's release meets a full mailbox:
    // the claim stands, so "nothing booked" (422) would be untrue once the sweep books it.
    const refused = busyAsks(t.env.runtime, commandKind("release", tripActor.type), 1);
    const busy = await book(t, b.api_key, body);
    assert.equal(refused(), 1);
    assert.equal(busy.status, 503, JSON.stringify(busy.body));
    assert.equal(busy.body.code, "actor_busy");
    // Money arrives, and the booking's sweep completes the claim that stood.
    const funded = await t.call("POST", `/operator/businesses/${b.id}/wallet`, {
      operator: true,
      body: { amount: "1000.00", currency: "BWP", reference: "fund-later" },
    });
    assert.equal(funded.status, 201);
    t.clock.advanceBy(31_000);
    await t.env.runtime.fireDueTimers();
    await t.env.runtime.outboxesIdle();
    await t.env.runtime.sweepOutboxes();
    await t.env.runtime.outboxesIdle();
    // The retry is answered with the trip that exists, paid once.
    const retry = await book(t, b.api_key, body);
    assert.ok(retry.status === 200 || retry.status === 201, JSON.stringify(retry.body));
    assert.deepEqual(await balanceOf(t, b.api_key), bwp(1000 - retry.body.data.billing_amount));
    assert.equal(await debitsOf(t, b.id), 1);
  }));

Deno.test("book retry: a stalled booking whose claim read is refused (busy) is kept for a retry, not taken as nothing to complete", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    // The trip's mailbox is full when its creation is asked: the claim stays, charged.
    busyAsks(t.env.runtime, commandKind("create", tripActor.type), 1);
    const body = { ...PARCEL, external_reference: "ORD-READ" };
    const busy = await book(t, b.api_key, body);
    assert.equal(busy.status, 503, JSON.stringify(busy.body));
    const reference = bookingReference(
      t.env.referenceKey,
      { id: b.id, references_keyed: true },
      { kind: "external_reference", value: "ORD-READ" },
      () => "",
    );
    const flaky = flakyRuntime(t.env.runtime, {
      fails: commandKind("claim_state", tripActor.type),
      refuse: true,
    });
    const item = { business_id: b.id, reference };
    const deps = { ...t.env, runtime: flaky.runtime, numbers: tripNumbersOf(t.env) };
    await assert.rejects(completeStalledBooking(deps, item));
    // The outbox's own handling completes it, charged once.
    t.clock.advanceBy(31_000);
    await t.env.runtime.fireDueTimers();
    await t.env.runtime.outboxesIdle();
    const done = await t.env.runtime.read(tripActor, b.id, reference, { kind: "get" });
    assert.ok(done.ok && done.reply.phase === "booked", JSON.stringify(done));
    assert.equal(await debitsOf(t, b.id), 1);
  }));
