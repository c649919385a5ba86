/**
 * Counters held across instances (issue 43 item 4): two instances of one deployment (one KV
 * file, one bus, one query side: the real Postgres when DATABASE_URL is set) share failed
 * sign-ins, addresses' calls and plan limits; the counters themselves, on two connection pools of
 * one Postgres, are exact under concurrency; rows that count nothing any more are swept.
 */
import assert from "node:assert/strict";
import { sql } from "kysely";
import { type DatabaseHandle, openDatabase } from "../../src/db/db.ts";
import { dropSchema } from "../../src/db/migrate.ts";
import { LoginThrottle } from "../../src/http/login_throttle.ts";
import { RateLimiter } from "../../src/http/rate_limit.ts";
import { SharedLoginThrottle, sweepLoginThrottles } from "../../src/http/shared_login_throttle.ts";
import { SharedRateCounter, sweepRateCounters } from "../../src/http/shared_rate_limit.ts";
import { LOGIN_FAILURE_WINDOW_MS } from "../../src/limits.ts";
import { createLogger } from "../../src/observe/log.ts";
import { ManualClock } from "../../src/runtime/clock.ts";
import type { TestEnv } from "../helpers/test_env.ts";
import { uniqueSchema } from "../db/helpers.ts";
import { claimSchema } from "../helpers/schema_pool.ts";
import { withTwoInstances } from "../helpers/two_instances.ts";

const url = Deno.env.get("DATABASE_URL");
const quiet = createLogger("silent", { write: () => {} });

/**
 * A migrated schema of its own: one from the pool on Postgres (schema_pool.ts), else a new one;
 * `done` hands it back or drops it.
 */
async function ownSchema(): Promise<{ schema: string; done(db: DatabaseHandle): Promise<void> }> {
  const pooled = url ? await claimSchema(url) : null;
  const schema = pooled?.schema ?? uniqueSchema();
  return {
    schema,
    async done(h) {
      try {
        if (pooled) await pooled.release();
        else await dropSchema(h.db, schema);
      } finally {
        await h.close();
      }
    },
  };
}

function signIn(t: TestEnv, email: string, password: string) {
  return t.call("POST", "/business/login", { body: { email, password } });
}

Deno.test("shared counters: two instances count failed sign-ins, guesses sent at once, addresses' calls and a plan's calls together", () =>
  withTwoInstances(async (a, b) => {
    const biz = await a.createBusiness();
    const { email, password } = biz.owner;
    // spec: courier 5 (and the portal's sign-in): 5 failures free, then waits; spread over
    // two instances they are counted together.
    for (let i = 0; i < 5; i++) {
      const r = await signIn(i % 2 === 0 ? a : b, email, "not-the-password");
      assert.equal(r.status, 401, `failure ${i + 1}: ${JSON.stringify(r.body)}`);
    }
    for (const t of [b, a]) {
      const waiting = await signIn(t, email, password);
      assert.equal(waiting.status, 429);
      assert.equal(waiting.body.code, "rate_limited");
      assert.equal(waiting.headers.get("Retry-After"), "30");
    }
    a.clock.advanceBy(30_000);
    b.clock.advanceBy(30_000);
    assert.equal((await signIn(b, email, password)).status, 200);

    // Calls without a known credential are counted per address by both instances together.
    const tight = { perMinute: 3, perDay: 100 };
    const taken = [];
    for (const t of [a, b, a, b]) {
      taken.push(await t.env.addressCounter.take("ip:192.0.2.7", tight));
    }
    assert.deepEqual(taken.map((d) => d.allowed), [true, true, true, false]);

    // Guesses at another account's last free sign-in, sent at once to both: one is checked.
    const other = await b.createBusiness();
    const guess = (t: TestEnv) => signIn(t, other.owner.email, "not-the-password");
    for (let i = 0; i < 4; i++) await guess(i % 2 ? a : b);
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => guess(i % 2 ? a : b)));
    const statuses = answers.map((r) => r.status).sort();
    assert.deepEqual(statuses, [401, ...Array(9).fill(429)]);

    // spec: business 8: Starter's 30 a minute are 30 over both instances, whatever arrives at once.
    const starter = await b.createBusiness({ plan: "starter" });
    // Each instance has read the business once: the 60 race on the counts, not on the key.
    for (const t of [a, b]) await t.call("GET", "/business/profile", { key: starter.api_key });
    const calls = await Promise.all(Array.from(
      { length: 60 },
      (_, i) => (i % 2 ? a : b).call("GET", "/business/profile", { key: starter.api_key }),
    ));
    assert.equal(calls.filter((r) => r.status === 200).length, 28, "30 a minute, 2 spent before");
    assert.ok(calls.every((r) => r.status === 200 || r.body.code === "rate_limited"));
  }));

/** Two counters of each kind on one database, through two connection pools (two instances). */
async function twoPools(clock: ManualClock): Promise<{
  handles: DatabaseHandle[];
  counters: SharedRateCounter[];
  throttles: SharedLoginThrottle[];
  close(): Promise<void>;
}> {
  const { schema, done } = await ownSchema();
  const handles = [
    await openDatabase({ url: url!, schema }),
    await openDatabase({ url: url!, schema }),
  ];
  return {
    handles,
    counters: handles.map((h) =>
      new SharedRateCounter({ db: h.db, clock, fallback: new RateLimiter(clock), log: quiet })
    ),
    throttles: handles.map((h) =>
      new SharedLoginThrottle({ db: h.db, clock, fallback: new LoginThrottle(clock), log: quiet })
    ),
    async close() {
      await handles[1]!.close();
      await done(handles[0]!);
    },
  };
}

Deno.test({
  name:
    "shared counters (Postgres): 2 × 300 takes at once through two pools against 300 a minute let exactly 300 through",
  ignore: url === undefined,
  async fn() {
    const clock = new ManualClock(Date.parse("2026-11-02T08:00:00Z"));
    const pools = await twoPools(clock);
    try {
      const limits = { perMinute: 300, perDay: 10_000 };
      const decided = await Promise.all(
        Array.from({ length: 600 }, (_, i) => pools.counters[i % 2]!.take("biz_hot", limits)),
      );
      const through = decided.filter((d) => d.allowed);
      assert.equal(through.length, 300);
      // Each request let through was told its own room left: 299 down to 0, once each.
      const remaining = through.map((d) => d.remaining).sort((x, y) => x - y);
      assert.deepEqual(remaining, Array.from({ length: 300 }, (_, i) => i));
      const { rows } = await sql<{ minute_count: number }>`
        select minute_count from rate_counters where key = 'biz_hot'`.execute(pools.handles[0]!.db);
      assert.deepEqual(rows.map((r) => Number(r.minute_count)), [300]);
      // Sign-ins: 20 attempts at once on one account with one free failure left admit one.
      for (let i = 0; i < 4; i++) await pools.throttles[i % 2]!.fail("account:staff:x", 5);
      const keys = [{ key: "account:staff:x", free: 5 }];
      const waits = await Promise.all(
        Array.from({ length: 20 }, (_, i) => pools.throttles[i % 2]!.begin(keys)),
      );
      assert.equal(waits.filter((w) => w === 0).length, 1);
    } finally {
      await pools.close();
    }
  },
});

Deno.test("shared counters: rows that count nothing any more are swept, the others kept", async () => {
  const clock = new ManualClock(Date.parse("2026-11-02T23:59:00Z"));
  const { schema, done } = await ownSchema();
  const h = await openDatabase({ ...(url ? { url } : {}), schema });
  try {
    const counter = new SharedRateCounter({
      db: h.db,
      clock,
      fallback: new RateLimiter(clock),
      log: quiet,
    });
    const throttle = new SharedLoginThrottle({
      db: h.db,
      clock,
      fallback: new LoginThrottle(clock),
      log: quiet,
    });
    const limits = { perMinute: 5, perDay: 10 };
    await counter.take("yesterday", limits);
    await throttle.fail("address:old", 20);
    clock.advanceBy(LOGIN_FAILURE_WINDOW_MS + 60_000);
    await counter.take("today", limits);
    await throttle.fail("address:new", 20);
    assert.equal(await sweepRateCounters(h.db, clock.now()), 1);
    assert.equal(await sweepLoginThrottles(h.db, clock.now()), 1);
    const keys = async (table: "rate_counters" | "login_throttles") =>
      (await h.db.selectFrom(table).select("key").execute()).map((r) => r.key);
    assert.deepEqual(await keys("rate_counters"), ["today"]);
    assert.deepEqual(await keys("login_throttles"), ["address:new"]);
    // A new day counts afresh for the swept key.
    assert.equal((await counter.take("yesterday", limits)).remaining, 4);
  } finally {
    await done(h);
  }
});
