/**
 * kill -9 during bookings on the embedded defaults (issue 36 item 6; CONTRACT "Running": a Deno KV
 * file, PGlite in DATA_DIR, the in-process bus), as `deno task start` runs for a new user: one
 * process, killed with SIGKILL while bookings on one wallet are in flight, started again on the
 * same DATA_DIR. Every booking unanswered is asked again under its Idempotency-Key until it
 * answers: exactly the bookings the wallet covers are booked, none twice, every 201 answered
 * before the kill is still there, the balance is exact to the cent, and the wallet's
 * transactions and the trips list (PGlite's read table, once the projection caught up) agree
 * with the trips. The server runs on the embedded defaults whatever the test's environment
 * names, so a run on real servers leaves the test to the embedded run (LEFT_TO_EMBEDDED_RUN).
 */
import assert from "node:assert/strict";
import { LEFT_TO_EMBEDDED_RUN, type Server } from "../helpers/server_process.ts";
import { BOOK, call } from "../helpers/cluster.ts";
import {
  type Answered,
  CrashingServer,
  type KillPoint,
  minorOf,
  polled,
} from "../helpers/crash.ts";
import { BOOKING_STALL_MS } from "../../src/business/rules/booking.ts";

/** Bookings the wallet pays for exactly; more are asked for. */
const COVERED = 16;
const ASKED = COVERED + 8;

/** One booking under its Idempotency-Key, asked again while its first request is still running. */
function book(crashing: CrashingServer, key: string, i: number) {
  return crashing.untilAnswered(
    `booking crash-${i}`,
    (server) =>
      call(server.live, "POST", "/business/book", BOOK, {
        "X-Business-API-Key": key,
        "Idempotency-Key": `crash-${i}`,
      }),
    // A claim the kill cut: completed by its stall timer (spec: business 7, appendix 1).
    (a) => a.status === 409 && a.body?.code === "request_in_progress",
  );
}

/** Claims the kill cut are completed by their stall timers, whose time is made to come. */
async function stallTimeCome(server: Server): Promise<void> {
  const advanced = await call(server.live, "POST", "/operator/clock/advance", {
    seconds: BOOKING_STALL_MS / 1000 + 1,
  });
  assert.equal(advanced.status, 200, JSON.stringify(advanced.body));
}

/** A business on the enterprise plan (no limit in the way) whose wallet covers COVERED trips. */
async function fundedShop(server: Server): Promise<{ key: string; fare: number }> {
  const made = await call(server.live, "POST", "/operator/businesses", {
    name: "Crash Shop",
    plan: "enterprise",
    currency: "BWP",
    country: "BW",
    owner_email: `crash-${crypto.randomUUID()}@example.com`,
  });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const { id, api_key: key } = made.body.data;
  const limits = await call(server.live, "PATCH", `/operator/businesses/${id}`, {
    rate_limit_per_minute: 1_000_000,
    rate_limit_per_day: 100_000_000,
  });
  assert.equal(limits.status, 200, JSON.stringify(limits.body));
  const query = new URLSearchParams({
    pickup_lat: String(BOOK.pickup_lat),
    pickup_lng: String(BOOK.pickup_lng),
    dest_lat: String(BOOK.dest_lat),
    dest_lng: String(BOOK.dest_lng),
    parcel_weight_kg: String(BOOK.parcel_weight_kg),
  });
  const estimate = await call(
    server.live,
    "GET",
    `/business/trip/fare-estimate?${query}`,
    undefined,
    { "X-Business-API-Key": key },
  );
  assert.equal(estimate.status, 200, JSON.stringify(estimate.body));
  const fare = minorOf(estimate.body.data.billing_amount);
  const funded = await call(server.live, "POST", `/operator/businesses/${id}/wallet`, {
    amount: (COVERED * fare / 100).toFixed(2),
    currency: "BWP",
    reference: "crash-funds",
  });
  assert.equal(funded.status, 201, JSON.stringify(funded.body));
  return { key, fare };
}

/** The business's trips as the trips list reads them from PGlite, every page. */
async function listedTrips(server: Server, key: string): Promise<Map<string, number>> {
  const listed = new Map<string, number>();
  let cursor: string | null = null;
  do {
    const page = await call(
      server.live,
      "GET",
      `/business/trips?per_page=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      undefined,
      { "X-Business-API-Key": key },
    );
    assert.equal(page.status, 200, JSON.stringify(page.body));
    for (const t of page.body.data) listed.set(t.reference, t.id);
    cursor = page.body.meta?.next_cursor ?? null;
  } while (cursor !== null);
  return listed;
}

/** The wallet's balance (minor units) and its transactions, read from the wallet itself. */
async function walletOf(server: Server, key: string) {
  const headers = { "X-Business-API-Key": key };
  const w = await call(server.live, "GET", "/business/wallet", undefined, headers);
  assert.equal(w.status, 200, JSON.stringify(w.body));
  const t = await call(server.live, "GET", "/business/wallet/transactions", undefined, headers);
  assert.equal(t.status, 200, JSON.stringify(t.body));
  return {
    balance: minorOf(w.body.data.balances[0].balance),
    transactions: t.body.data as { kind: string; amount: string; reference: string }[],
  };
}

/** The bookings asked across a kill at `point`, then everything checked against the trips. */
async function killedMidBooking(point: KillPoint): Promise<void> {
  // The manual clock: a claim the kill cut is completed by its stall timer, advanced to.
  const crashing = await CrashingServer.start({ CLOCK: "manual" }, stallTimeCome);
  try {
    const { made: { key, fare }, answers } = await crashing.roundsAcrossKill(
      ASKED,
      point,
      () => fundedShop(crashing.server),
      (shop, i) => book(crashing, shop.key, i),
    );
    const trips = bookedOnce(answers, fare);
    const server = crashing.server;
    await answeredBeforeKillKept(server, key, answers);
    for (const [reference, id] of trips) {
      const read = await call(server.live, "GET", `/business/trips/${reference}`, undefined, {
        "X-Business-API-Key": key,
      });
      assert.equal(read.status, 200, `${reference}: ${JSON.stringify(read.body)}`);
      assert.equal(read.body.data.id, id);
    }
    const wallet = await walletOf(server, key);
    assert.equal(wallet.balance, 0, "the balance to the cent");
    // One charge of the fare per trip booked, and nothing else but the funds.
    const charges = wallet.transactions.filter((t) => t.reference !== "crash-funds");
    assert.deepEqual(
      charges.map((t) => [t.kind, minorOf(t.amount), t.reference]).sort(),
      [...trips.keys()].map((r) => ["debit", fare, `trip:${r}`]).sort(),
    );
    // The trips list (PGlite's read table) lists every trip, once the projection caught up.
    const listed = await polled(() => listedTrips(server, key), (l) => sameTrips(l, trips));
    assert.deepEqual([...listed].sort(), [...trips].sort(), "the trips list never caught up");
  } finally {
    await crashing.close();
  }
}

function sameTrips(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): boolean {
  return a.size === b.size && [...b].every(([r, id]) => a.get(r) === id);
}

/**
 * Exactly the bookings the wallet covers are booked, each once, at the fare: their trips,
 * reference to id (Business API 2.2 `id`, unique across the restart).
 */
function bookedOnce(answers: readonly Answered[], fare: number): Map<string, number> {
  // 200: a retry's replay of a booking the killed process had made (Business API 7).
  for (const k of new Set(answers.map(({ answer: r }) => `${r.status} ${r.body?.code ?? ""}`))) {
    assert.ok(["200 ", "201 ", "422 insufficient_balance"].includes(k), `answered ${k}`);
  }
  const booked = answers.filter(({ answer: r }) => r.status === 201 || r.status === 200);
  assert.equal(booked.length, COVERED, "exactly the bookings the balance covers");
  const trips = new Map<string, number>(
    booked.map(({ answer: r }) => [r.body.data.reference, r.body.data.id]),
  );
  assert.equal(trips.size, COVERED, "no booking answered twice");
  assert.equal(new Set(trips.values()).size, COVERED, `trip ids unique: ${[...trips.values()]}`);
  for (const { answer: r } of booked) assert.equal(minorOf(r.body.data.billing_amount), fare);
  return trips;
}

Deno.test({
  name:
    "crash on the embedded defaults: SIGKILL while bookings are under way, started again on the same DATA_DIR, loses and doubles nothing",
  ignore: LEFT_TO_EMBEDDED_RUN,
  fn: () => killedMidBooking("under_way"),
});

Deno.test({
  name:
    "crash on the embedded defaults: SIGKILL as the first booking is answered, started again on the same DATA_DIR, loses and doubles nothing",
  ignore: LEFT_TO_EMBEDDED_RUN,
  fn: () => killedMidBooking("first_answer"),
});

/**
 * Every booking answered 201 by the killed process is still there: asked again under its key, it
 * answers the same trip, replayed (spec: business 7, appendix 1).
 */
async function answeredBeforeKillKept(
  server: Server,
  key: string,
  answers: readonly Answered[],
): Promise<void> {
  for (const [i, { answer: r, beforeKill }] of answers.entries()) {
    if (!beforeKill || r.status !== 201) continue;
    const replay = await call(server.live, "POST", "/business/book", BOOK, {
      "X-Business-API-Key": key,
      "Idempotency-Key": `crash-${i}`,
    });
    assert.equal(replay.status, 200, JSON.stringify(replay.body));
    assert.equal(replay.body.data.reference, r.body.data.reference);
    assert.equal(replay.body.data.id, r.body.data.id);
  }
}
