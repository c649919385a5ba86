/**
 * Plan limits across instances (Business API 8): two instances of one deployment (one KV file,
 * one bus, one query side) count a business's requests together; the counter itself on a query
 * side of its own (its windows, clock skew, a failing database).
 */
import assert from "node:assert/strict";
import type { TestEnv } from "../helpers/test_env.ts";
import { openDatabase } from "../../src/db/db.ts";
import { RateLimiter } from "../../src/http/rate_limit.ts";
import { SharedRateCounter } from "../../src/http/shared_rate_limit.ts";
import { ManualClock } from "../../src/runtime/clock.ts";
import { createLogger } from "../../src/observe/log.ts";
import { withTwoInstances } from "../helpers/two_instances.ts";

Deno.test("shared rate limit: Starter's 30 a minute hold across two instances, the 31st refused on either", () =>
  withTwoInstances(async (a, b) => {
    const biz = await a.createBusiness({ plan: "starter" });
    const profile = (t: TestEnv) => t.call("GET", "/business/profile", { key: biz.api_key });
    // spec: business 8: X-RateLimit-Remaining counts the requests of both instances.
    for (let i = 0; i < 30; i++) {
      const r = await profile(i % 2 === 0 ? a : b);
      assert.equal(r.status, 200, `request ${i + 1}: ${JSON.stringify(r.body)}`);
      assert.equal(r.headers.get("X-RateLimit-Remaining"), String(29 - i), `request ${i + 1}`);
    }
    for (const t of [a, b]) {
      const refused = await profile(t);
      assert.equal(refused.status, 429);
      assert.equal(refused.body.code, "rate_limited");
      assert.equal(refused.headers.get("X-RateLimit-Remaining"), "0");
      assert.equal(refused.headers.get("Retry-After"), "60");
      assert.equal(refused.headers.get("X-Service-Environment"), "live");
    }
    // The next minute starts afresh on both.
    a.clock.advanceBy(60_000);
    b.clock.advanceBy(60_000);
    assert.equal((await profile(b)).headers.get("X-RateLimit-Remaining"), "29");
    assert.equal((await profile(a)).headers.get("X-RateLimit-Remaining"), "28");
  }));

Deno.test("shared rate limit: 50 requests at once over two instances let exactly 30 through, each its own remaining", () =>
  withTwoInstances(async (a, b) => {
    const biz = await a.createBusiness({ plan: "starter" });
    // Each instance has read the business once: the 50 race on the counts, not on the key.
    for (const t of [a, b]) await t.call("GET", "/business/profile", { key: biz.api_key });
    const answers = await Promise.all(
      Array.from(
        { length: 50 },
        (_, i) => (i % 2 ? a : b).call("GET", "/business/profile", { key: biz.api_key }),
      ),
    );
    const through = answers.filter((r) => r.status === 200);
    assert.equal(through.length, 28, "30 a minute, two spent before");
    assert.ok(answers.every((r) => r.status === 200 || r.body.code === "rate_limited"));
    const remaining = through.map((r) => Number(r.headers.get("X-RateLimit-Remaining")));
    assert.deepEqual(remaining.sort((x, y) => x - y), Array.from({ length: 28 }, (_, i) => i));
  }));

/** A counter on a query side of its own, with the clock and the memory it falls back to. */
async function counterOn(clock: ManualClock) {
  const database = await openDatabase({ schema: `rc_${crypto.randomUUID().slice(0, 8)}` });
  const fallback = new RateLimiter(clock);
  const log = createLogger("silent", { write: () => {} });
  const counter = new SharedRateCounter({ db: database.db, clock, fallback, log });
  return { database, counter };
}

Deno.test("shared rate counter: refused requests spend none of the day; a lower limit binds at once", async () => {
  const clock = new ManualClock(Date.parse("2026-11-02T08:00:00Z"));
  const { database, counter } = await counterOn(clock);
  try {
    const tight = { perMinute: 5, perDay: 7 };
    const first = await Promise.all(Array.from({ length: 8 }, () => counter.take("biz_a", tight)));
    assert.deepEqual(first.map((d) => d.allowed), [1, 1, 1, 1, 1, 0, 0, 0].map(Boolean));
    assert.deepEqual(first.map((d) => d.remaining), [4, 3, 2, 1, 0, 0, 0, 0]);
    clock.advanceBy(60_000);
    // spec: business 8: 7 a day; 5 went through, so 2 are left whatever was refused.
    const second = [];
    for (let i = 0; i < 3; i++) second.push(await counter.take("biz_a", tight));
    assert.deepEqual(second.map((d) => d.allowed), [true, true, false]);
    // The day binds: its reset is midnight UTC.
    assert.equal(second[2]!.reset, Date.parse("2026-11-03T00:00:00Z") / 1000);
    const lower = await counter.take("biz_b", { perMinute: 1, perDay: 10 });
    assert.equal(lower.allowed, true);
    assert.equal((await counter.take("biz_b", { perMinute: 1, perDay: 10 })).allowed, false);
  } finally {
    await database.close();
  }
});

Deno.test("shared rate counter: an instance whose clock is behind counts into the newer minute, never resetting it", async () => {
  const ahead = new ManualClock(Date.parse("2026-11-02T08:01:00Z"));
  const { database, counter } = await counterOn(ahead);
  try {
    const behind = new SharedRateCounter({
      db: database.db,
      clock: new ManualClock(Date.parse("2026-11-02T08:00:59Z")),
      fallback: new RateLimiter(ahead),
      log: createLogger("silent", { write: () => {} }),
    });
    const limits = { perMinute: 3, perDay: 100 };
    assert.equal((await counter.take("biz_a", limits)).remaining, 2);
    assert.equal((await behind.take("biz_a", limits)).remaining, 1);
    assert.equal((await counter.take("biz_a", limits)).remaining, 0);
    assert.equal((await behind.take("biz_a", limits)).allowed, false);
  } finally {
    await database.close();
  }
});

Deno.test("shared rate counter: a failing database leaves requests answered from this instance's memory", async () => {
  const clock = new ManualClock();
  const { database, counter } = await counterOn(clock);
  await database.close();
  const limits = { perMinute: 2, perDay: 100 };
  const decided = [];
  for (let i = 0; i < 3; i++) decided.push(await counter.take("biz_a", limits));
  assert.deepEqual(decided.map((d) => d.allowed), [true, true, false]);
});
