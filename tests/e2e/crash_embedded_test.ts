/**
 * kill -9 during bookings on the embedded defaults (issue 36 item 6; CONTRACT "Running": a Deno KV
 * file, PGlite in DATA_DIR, the in-process bus), as `deno task start` runs for a new user: one
 * process, killed with SIGKILL while bookings on one wallet are in flight, started again on the
 * same DATA_DIR. Every booking unanswered is asked again under its Idempotency-Key until it
 * answers: exactly the bookings the wallet covers are booked, none twice, every 201 answered
 * before the kill is still there, the balance is exact to the cent, and the wallet's
 * transactions and the trips list (PGlite's read table, once the projection caught up) agree
 * with the trips. Runs on the embedded defaults whether or not the test's environment names
 * real servers.
 */
import assert from "node:assert/strict";
import { type Server, startServer } from "../helpers/server_process.ts";
import { type Answer, BOOK, call, OPERATOR } from "../helpers/cluster.ts";
import { BOOKING_STALL_MS } from "../../src/business/rules/booking.ts";

/** Bookings the wallet pays for exactly; more are asked for. */
const COVERED = 16;
const ASKED = COVERED + 8;
/** How long a retry, a restart or the projection may take on a machine shared with others. */
const SETTLE_MS_MAX = 60_000;
/** A pause between two polls of the server (never a wait for time to pass: the clock is manual). */
const POLL_MS = 50;

function minorOf(amount: string | number): number {
  return Math.round(Number(amount) * 100);
}

function pause(): Promise<void> {
  return new Promise((r) => setTimeout(r, POLL_MS));
}

/** The server standing now, which the kill and the restart change. */
interface Standing {
  server: Server;
  /** Resolves once the restarted server is serving (a retry waits for it). */
  restarted: Promise<void>;
}

/**
 * One booking under its Idempotency-Key, asked again while unanswered (the connection lost with
 * the process, the server not yet started again, or 409 request_in_progress while a claim cut by
 * the kill is completed by its stall timer).
 */
async function book(
  standing: Standing,
  key: string,
  idempotencyKey: string,
): Promise<{ answer: Answer; by: Server }> {
  const deadline = Date.now() + SETTLE_MS_MAX;
  let last = "";
  while (Date.now() < deadline) {
    const by = standing.server;
    try {
      const a = await call(by.live, "POST", "/business/book", BOOK, {
        "X-Business-API-Key": key,
        "Idempotency-Key": idempotencyKey,
      });
      if (!(a.status === 409 && a.body?.code === "request_in_progress")) return { answer: a, by };
      last = `${a.status} ${JSON.stringify(a.body)}`;
    } catch (e) {
      last = String(e); // the process is gone: asked again once it is back
      await standing.restarted;
      continue;
    }
    await pause();
  }
  assert.fail(`booking ${idempotencyKey} never answered: ${last}`);
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

/** The trips list once it lists exactly `booked` (reference to id), within SETTLE_MS_MAX. */
async function listedOnceCaughtUp(
  server: Server,
  key: string,
  booked: ReadonlyMap<string, number>,
): Promise<void> {
  const deadline = Date.now() + SETTLE_MS_MAX;
  let listed = new Map<string, number>();
  while (Date.now() < deadline) {
    listed = await listedTrips(server, key);
    if (listed.size === booked.size && [...booked].every(([r, id]) => listed.get(r) === id)) {
      return;
    }
    await pause();
  }
  assert.deepEqual(
    [...listed].sort(),
    [...booked].sort(),
    "the trips list (PGlite) never caught up with the trips booked",
  );
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

/** An answer, and whether the process that answered it is the one killed. */
interface Answered {
  readonly answer: Answer;
  readonly beforeKill: boolean;
}

/**
 * When the process is killed: `under_way`, once half the bookings are under way in the server
 * (claimed, charged or being created; at the latest as the first is answered); `first_answer`,
 * the moment the first is answered (the others being created or answered).
 */
type KillPoint = "under_way" | "first_answer";

/**
 * ASKED bookings at once, the process killed with SIGKILL at `point` and started again on the
 * same DATA_DIR; every unanswered one asked again until it answers.
 */
async function burstAcrossKill(
  standing: Standing,
  key: string,
  again: () => Promise<Server>,
  point: KillPoint,
): Promise<Answered[]> {
  const restart = Promise.withResolvers<void>();
  standing.restarted = restart.promise;
  const first = standing.server;
  let killing: Promise<void> | undefined;
  const kill = () =>
    killing ??= killAndRestart(standing, again).then(restart.resolve, restart.reject);
  const watching = (async () => {
    while (point === "under_way" && killing === undefined) {
      if (await underWay(first) >= ASKED / 2) kill();
    }
  })();
  const answers = await Promise.all(Array.from({ length: ASKED }, async (_, i) => {
    const r = await book(standing, key, `crash-${i}`);
    // Killed before anything else runs here: no other answer is read first.
    kill();
    return r;
  }));
  await watching;
  await killing;
  const afterRestart = answers.filter((r) => r.by !== first).length;
  assert.ok(afterRestart > 0, "every booking was answered before the kill");
  return answers.map((r) => ({ answer: r.answer, beforeKill: r.by === first }));
}

/** The requests the server is answering, besides the scrape asking (0 once it is gone). */
async function underWay(server: Server): Promise<number> {
  const r = await fetch(`${server.live}/api/metrics`, { headers: OPERATOR }).catch(() => null);
  const text = await r?.text().catch(() => "") ?? "";
  const line = text.split("\n").find((l) => l.startsWith("http_requests_in_flight "));
  return line === undefined ? 0 : Number(line.split(" ")[1]) - 1;
}

/** SIGKILL now, then the server started again on its DATA_DIR, the stalled claims' time come. */
async function killAndRestart(standing: Standing, again: () => Promise<Server>): Promise<void> {
  const dead = standing.server;
  dead.child.kill("SIGKILL");
  await dead.child.status;
  standing.server = await again();
  // Claims the kill cut are completed by their stall timers (spec: business appendix 1).
  const advanced = await call(standing.server.live, "POST", "/operator/clock/advance", {
    seconds: BOOKING_STALL_MS / 1000 + 1,
  });
  assert.equal(advanced.status, 200, JSON.stringify(advanced.body));
}

/** The bookings asked across a kill at `point`, then everything checked against the trips. */
async function killedMidBooking(point: KillPoint): Promise<void> {
  const dataDir = await Deno.makeTempDir({ prefix: "crash_embedded_" });
  // The manual clock: a claim the kill cut is completed by its stall timer, advanced to. The
  // sandbox is off: one environment is what is killed, and it starts twice as fast.
  const options = { embedded: true, env: { CLOCK: "manual", SANDBOX_PORT: "0" } };
  const servers: Server[] = [await startServer(dataDir, options)];
  const again = async () => {
    servers.push(await startServer(dataDir, options));
    return servers.at(-1)!;
  };
  try {
    // The embedded query side (src/main.ts): PGlite's data directory under DATA_DIR.
    assert.ok((await Deno.stat(`${dataDir}/live/pg`)).isDirectory, "PGlite is not in DATA_DIR");
    const standing: Standing = { server: servers[0]!, restarted: Promise.resolve() };
    const { key, fare } = await fundedShop(standing.server);
    const answers = await burstAcrossKill(standing, key, again, point);
    const trips = bookedOnce(answers, fare);
    const server = standing.server;
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
    await listedOnceCaughtUp(server, key, trips);
  } finally {
    for (const s of servers) await s.stop().catch(() => {});
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
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

Deno.test("crash on the embedded defaults: SIGKILL while bookings are under way, started again on the same DATA_DIR, loses and doubles nothing", () =>
  killedMidBooking("under_way"));

Deno.test("crash on the embedded defaults: SIGKILL as the first booking is answered, started again on the same DATA_DIR, loses and doubles nothing", () =>
  killedMidBooking("first_answer"));

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
