/**
 * A batch (Business API 2.3, 4.2) taken by a pool driver still on another business's trip: its
 * first stop waits queued behind that trip (3.1 queued), and so does every other stop, so none of
 * the batch's tracking links (2.4) nor its business's board shows where the driver is until the
 * batch starts with its first stop; from then, only positions observed since. The first stop
 * cancelled or given back while queued, the driver's hold passes to the next stop, which leads.
 */
import assert from "node:assert/strict";
import { poolDriverActor } from "../../../actors/business/pool_driver.ts";
import { tripActor } from "../../../actors/business/trip/mod.ts";
import { PLATFORM_TENANT } from "../../../actors/platform/platform_settings.ts";
import { dispatcherOf } from "../../../src/business/reactors/dispatcher.ts";
import { BATCH_START_OUTBOX } from "../../../src/business/rules/driver_holding.ts";
import { failAsks } from "../../helpers/faults.ts";
import { until } from "../../helpers/receiver.ts";
import { type CreatedPoolDriver, onlineDriverAt } from "../../helpers/pool_drivers.ts";
import type { CreatedBusiness, TestEnv } from "../../helpers/test_env.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import { postBatch, quiet, stop } from "./batch_fixtures.ts";
import {
  A_DOOR,
  acceptWaiting,
  boardDriver,
  deliverBy,
  driverPoints,
  report,
  tokenOf,
  trackingView,
} from "./tracking_fixtures.ts";
import { book, fundedBusiness, PARCEL } from "./trips_fixtures.ts";
import { outboxRetryDue } from "../../helpers/outbox_retry.ts";

/** A driver on business A's trip who took business B's batch, its first stop queued. */
interface BatchBehindAnother {
  readonly driver: CreatedPoolDriver;
  /** A's trip under way. */
  readonly a: string;
  readonly b: CreatedBusiness;
  /** B's stops in the driving order, the first first. */
  readonly refs: readonly string[];
}

async function batchBehindAnother(t: TestEnv): Promise<BatchBehindAnother> {
  const driver = await onlineDriverAt(t, PARCEL.pickup_lat, PARCEL.pickup_lng);
  const a = await fundedBusiness(t);
  const ta = await book(t, a.api_key, { ...PARCEL, ...A_DOOR });
  assert.equal(ta.status, 201, JSON.stringify(ta.body));
  assert.equal((await acceptWaiting(t, driver.token)).status, "accepted");
  const b = await fundedBusiness(t);
  const r = await postBatch(t, b.api_key, {
    segment: "parcel",
    stops: [stop("Mpho", "s", 0, 3), stop("Neo", "m", 0, 1), stop("Kabo", "s", 0, 2)],
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  const refs = r.body.data.stops.map((s: { trip_reference: string }) => s.trip_reference);
  const first = await acceptWaiting(t, driver.token);
  assert.deepEqual([first.reference, first.status], [refs[0], "queued"]);
  return { driver, a: ta.body.data.reference, b, refs };
}

/** The stops' statuses, read from their trips. */
async function statuses(t: TestEnv, q: BatchBehindAnother): Promise<string[]> {
  const trips = await Promise.all(
    q.refs.map((ref) => t.env.runtime.read(tripActor, q.b.id, ref, { kind: "get" })),
  );
  return trips.map((r) => r.ok && r.reply.phase === "booked" ? r.reply.trip.status : "none");
}

/** Every stop started (accepted). */
const started = async (t: TestEnv, q: BatchBehindAnother) =>
  (await statuses(t, q)).every((s) => s === "accepted");

/** Each stop's tracking token (the last segment of its tracking_url). */
async function tokensOf(t: TestEnv, q: BatchBehindAnother): Promise<string[]> {
  const tokens: string[] = [];
  for (const ref of q.refs) {
    const r = await t.call("GET", `/business/trips/${ref}`, { key: q.b.api_key });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    tokens.push(tokenOf(r.body.data.tracking_url));
  }
  return tokens;
}

/** What every stop's tracking view gives of where the driver is or was, stop by stop. */
async function seen(t: TestEnv, tokens: readonly string[]): Promise<[number, number][][]> {
  return await Promise.all(tokens.map(async (k) => driverPoints(await trackingView(t, k))));
}

/** The driver heard at A's customer's door 5 seconds ago. */
async function atADoor(t: TestEnv, q: BatchBehindAnother) {
  t.clock.advanceBy(10_000);
  await report(t, q.driver.token, A_DOOR.dest_lat, A_DOOR.dest_lng);
  await t.env.pump();
  t.clock.advanceBy(5_000);
}

const ON_B = [[-24.63, 25.92], [-24.64, 25.91]] as const;

/** Two positions on B's batch, 5 seconds apart, kept. */
async function onB(t: TestEnv, q: BatchBehindAnother) {
  for (const [lat, lng] of ON_B) {
    t.clock.advanceBy(5_000);
    await report(t, q.driver.token, lat, lng);
  }
  await t.env.pump();
  await t.settle();
}

Deno.test("batches queued: a batch taken by a driver on another business's trip shows the driver on none of its stops, nor on its board, until it starts", () =>
  withTestEnv(async (t) => {
    const q = await batchBehindAnother(t);
    await quiet(t);
    const tokens = await tokensOf(t, q);
    await atADoor(t, q);
    // spec: business 3.1 queued: where the driver is belongs to A's trip.
    assert.deepEqual(await seen(t, tokens), [[], [], []], "no stop shows A's customer's door");
    assert.equal((await boardDriver(t, q.b.api_key, q.driver.id))?.position, null);
    assert.deepEqual(await statuses(t, q), ["queued", "queued", "queued"]);

    await deliverBy(t, q.driver, q.a);
    await until(t, () => started(t, q), "the batch's start");
    // Started, nothing heard since: the newest position is still the one at A's customer's door.
    assert.deepEqual(await seen(t, tokens), [[], [], []]);
    assert.equal((await boardDriver(t, q.b.api_key, q.driver.id))?.position, null);

    await onB(t, q);
    const since = [...ON_B, ON_B[1]];
    assert.deepEqual(await seen(t, tokens), [since, since, since]);
    const on = await boardDriver(t, q.b.api_key, q.driver.id);
    assert.deepEqual([on.position.lat, on.position.lng], ON_B[1]);
  }));

/** The dispatcher giving a batch's stop to the first stop's driver (no offer answered). */
const givingAStop = (type: string, c: unknown) =>
  type === tripActor.type && (c as { kind: string }).kind === "accept" &&
  (c as { offer_id?: string }).offer_id === undefined;

Deno.test("batches queued: a crash between the first stop's start and the other stops' is completed by the outbox's sweep", () =>
  withTestEnv(async (t) => {
    const q = await batchBehindAnother(t);
    await quiet(t);
    // The batch's start fails, as a process dying after the first stop's start leaves it.
    let failing = true;
    const down = t.env.runtime.handleOutbox(BATCH_START_OUTBOX, () => {
      return failing ? Promise.reject(new Error("crash")) : Promise.resolve();
    });
    await deliverBy(t, q.driver, q.a);
    await until(t, async () => (await statuses(t, q))[0] === "accepted", "the first stop's start");
    await quiet(t);
    assert.deepEqual(await statuses(t, q), ["accepted", "queued", "queued"], "cut before the rest");
    failing = false;
    down();
    outboxRetryDue(t.clock);
    await t.env.runtime.sweepOutboxes();
    await t.env.runtime.outboxesIdle();
    assert.ok(await started(t, q));
  }));

Deno.test("batches queued: stops a crash left without their driver are given queued by the sweep, and start with the first stop", () =>
  withTestEnv(async (t) => {
    // The dispatcher dies giving each of the batch's other stops.
    const restarted = failAsks(t.env.runtime, givingAStop);
    const q = await batchBehindAnother(t);
    await quiet(t);
    assert.deepEqual(await statuses(t, q), ["queued", "pending", "pending"]);
    restarted();
    // spec: business 4.2: the restart's sweep gives them to the first stop's driver, queued as it.
    assert.equal(await dispatcherOf(t.env).sweep(t.env.db), 2);
    await quiet(t);
    assert.deepEqual(await statuses(t, q), ["queued", "queued", "queued"]);
    await deliverBy(t, q.driver, q.a);
    await until(t, () => started(t, q), "the batch's start");
  }));

Deno.test("batches queued: stops given only once the first stop started start at once, with no position from before their start", () =>
  withTestEnv(async (t) => {
    const restarted = failAsks(t.env.runtime, givingAStop);
    const q = await batchBehindAnother(t);
    await quiet(t);
    const tokens = await tokensOf(t, q);
    await atADoor(t, q);
    await deliverBy(t, q.driver, q.a);
    await until(t, async () => (await statuses(t, q))[0] === "accepted", "the first stop's start");
    await quiet(t);
    assert.deepEqual(await statuses(t, q), ["accepted", "pending", "pending"]);
    restarted();
    // Given queued, as the first stop was, and started at once (their own start outbox item).
    assert.equal(await dispatcherOf(t.env).sweep(t.env.db), 2);
    await until(t, () => started(t, q), "the stops' start");
    assert.deepEqual(await seen(t, tokens), [[], [], []], "A's customer's door is not theirs");
    await onB(t, q);
    const since = [...ON_B, ON_B[1]];
    assert.deepEqual(await seen(t, tokens), [since, since, since]);
  }));

/** The trips the driver holds: under way, and queued behind it (references, B's without key). */
async function holding(t: TestEnv, q: BatchBehindAnother): Promise<(string | null)[]> {
  const r = await t.env.runtime.read(poolDriverActor, PLATFORM_TENANT, q.driver.id, {
    kind: "get",
  });
  assert.ok(r.ok);
  const ref = (k: string | null) => k === null ? null : k.slice(k.indexOf(":") + 1);
  return [ref(r.reply.current), ref(r.reply.queued)];
}

async function cancelStop(t: TestEnv, q: BatchBehindAnother, ref: string) {
  const r = await t.call("POST", `/business/trips/${ref}/cancel`, { key: q.b.api_key, body: {} });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.data.status, "cancelled");
}

/**
 * The driver gives the stop back: a batch's stop is never put back for another driver (3.2: one
 * driver carries the batch), it ends cancelled by the driver (3.1).
 */
async function giveBack(t: TestEnv, q: BatchBehindAnother, ref: string) {
  const r = await t.call("POST", `/driver/trips/${ref}/cancel_by_driver`, {
    bearer: q.driver.token,
    body: { idempotency_key: `back-${ref}`, reason: "parcel not ready" },
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.data.status, "cancelled");
}

/** After A is delivered, the stops left with the driver start, the next stop leading. */
async function nextLeads(t: TestEnv, q: BatchBehindAnother, first: string) {
  assert.deepEqual(await statuses(t, q), [first, "queued", "queued"]);
  // spec: business 2.3, 3.1 queued: the driver's hold passed to the next stop, still queued.
  assert.deepEqual(await holding(t, q), [q.a, q.refs[1]]);
  await deliverBy(t, q.driver, q.a);
  await until(t, async () => {
    const [, ...rest] = await statuses(t, q);
    return rest.every((s) => s === "accepted");
  }, "the next stop's start, and the last's with it");
  assert.deepEqual(await holding(t, q), [q.refs[1], null]);
}

Deno.test("batches queued: the first stop cancelled by the business while queued passes the driver's hold to the next stop, and the rest start when the trip under way ends", () =>
  withTestEnv(async (t) => {
    const q = await batchBehindAnother(t);
    await quiet(t);
    await cancelStop(t, q, q.refs[0]!);
    await quiet(t);
    await nextLeads(t, q, "cancelled");
    assert.deepEqual((await statuses(t, q))[0], "cancelled");
  }));

Deno.test("batches queued: the first stop given back by the driver while queued ends cancelled by the driver, and the driver's other stops start when the trip under way ends", () =>
  withTestEnv(async (t) => {
    const q = await batchBehindAnother(t);
    await quiet(t);
    await giveBack(t, q, q.refs[0]!);
    await quiet(t);
    await nextLeads(t, q, "cancelled");
  }));

Deno.test("batches queued: every stop cancelled while queued leaves nothing queued nor held", () =>
  withTestEnv(async (t) => {
    const q = await batchBehindAnother(t);
    await quiet(t);
    for (const ref of q.refs) await cancelStop(t, q, ref);
    await quiet(t);
    assert.deepEqual(await statuses(t, q), ["cancelled", "cancelled", "cancelled"]);
    assert.deepEqual(await holding(t, q), [q.a, null]);
    await deliverBy(t, q.driver, q.a);
    await quiet(t);
    assert.deepEqual(await holding(t, q), [null, null]);
  }));

/** The driver's hold on a trip passed on (the hold outbox's step). */
const passing = (type: string, c: unknown) =>
  type === poolDriverActor.type && (c as { kind: string }).kind === "pass";

Deno.test("batches queued: a crash between the first stop's cancellation and the hold's passing is completed by the outbox's sweep", () =>
  withTestEnv(async (t) => {
    const q = await batchBehindAnother(t);
    await quiet(t);
    const restarted = failAsks(t.env.runtime, passing);
    await cancelStop(t, q, q.refs[0]!);
    await quiet(t);
    // Cut before the hold passed: the driver holds the cancelled stop, nothing released.
    assert.deepEqual(await holding(t, q), [q.a, q.refs[0]]);
    restarted();
    outboxRetryDue(t.clock);
    await t.env.runtime.sweepOutboxes();
    await t.env.runtime.outboxesIdle();
    await nextLeads(t, q, "cancelled");
  }));

Deno.test("batches queued: the first stop cancelled once moved up, before its start, passes the trip under way to the next stop, which starts at once", () =>
  withTestEnv(async (t) => {
    const q = await batchBehindAnother(t);
    await quiet(t);
    // The first stop's start is cut (a crash after A's release moved it up).
    const restarted = failAsks(
      t.env.runtime,
      (type, c) => type === tripActor.type && (c as { kind: string }).kind === "start",
    );
    await deliverBy(t, q.driver, q.a);
    await quiet(t);
    assert.deepEqual(await holding(t, q), [q.refs[0], null]);
    assert.deepEqual(await statuses(t, q), ["queued", "queued", "queued"]);
    await cancelStop(t, q, q.refs[0]!);
    restarted();
    outboxRetryDue(t.clock);
    await t.env.runtime.sweepOutboxes();
    await until(t, async () => {
      const [, ...rest] = await statuses(t, q);
      return rest.every((s) => s === "accepted");
    }, "the next stop's start");
    assert.deepEqual(await holding(t, q), [q.refs[1], null]);
  }));
