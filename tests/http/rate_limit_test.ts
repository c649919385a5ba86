import assert from "node:assert/strict";
import { RateLimiter } from "../../src/http/rate_limit.ts";
import { ManualClock } from "../../src/runtime/clock.ts";
import { ANONYMOUS_RATE_LIMIT } from "../../src/limits.ts";

const STARTER = { perMinute: 30, perDay: 1_000 };
/** More keys than the limiter keeps counters for before it sweeps or forgets. */
const MANY = 100_001;

function address(i: number): string {
  return `ip:10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`;
}

/** Uses up `n` of the key's day, 30 a minute, moving the clock on a minute after each 30. */
function spendDay(limiter: RateLimiter, clock: ManualClock, key: string, n: number): void {
  for (let i = 0; i < n; i++) {
    if (i > 0 && i % STARTER.perMinute === 0) clock.advanceBy(60_000);
    assert.equal(limiter.take(key, STARTER).allowed, true, `request ${i + 1}`);
  }
}

Deno.test("rate limit: callers from many addresses never reset a business's day count", () => {
  const clock = new ManualClock(Date.parse("2026-11-02T08:00:00Z"));
  const limiter = new RateLimiter(clock);
  spendDay(limiter, clock, "biz_a", STARTER.perDay);
  assert.equal(limiter.take("biz_a", STARTER).allowed, false, "the day is used up");
  // A minute later anonymous callers are counted from many addresses.
  clock.advanceBy(60_000);
  for (let i = 0; i < MANY; i++) limiter.take(address(i), ANONYMOUS_RATE_LIMIT, "address");
  // spec: business 8: Starter is 1,000 a day; the day is not over, so the business stays refused.
  const refused = limiter.take("biz_a", STARTER);
  assert.equal(refused.allowed, false);
  assert.equal(refused.remaining, 0);
});

Deno.test("rate limit: many known callers in a day never reset one's day count", () => {
  const clock = new ManualClock(Date.parse("2026-11-02T08:00:00Z"));
  const limiter = new RateLimiter(clock);
  spendDay(limiter, clock, "client:cli_a", STARTER.perDay);
  clock.advanceBy(60_000);
  for (let i = 0; i < MANY; i++) limiter.take(`client:cli_${i}`, STARTER);
  assert.equal(limiter.take("client:cli_a", STARTER).allowed, false);
  // Its day over (UTC), it starts afresh, as do the others.
  clock.advanceBy(Date.parse("2026-11-03T00:00:00Z") - clock.now());
  assert.equal(limiter.take("client:cli_a", STARTER).remaining, STARTER.perMinute - 1);
  assert.equal(limiter.take("client:cli_7", STARTER).remaining, STARTER.perMinute - 1);
});

Deno.test("rate limit: the day ends at midnight UTC; headers name it while the day binds", () => {
  const clock = new ManualClock(Date.parse("2026-11-02T23:30:00Z"));
  const limiter = new RateLimiter(clock);
  const tight = { perMinute: 30, perDay: 3 };
  for (let i = 0; i < 3; i++) assert.equal(limiter.take("biz_a", tight).allowed, true);
  clock.advanceBy(29 * 60_000 + 59_000); // 23:59:59
  const refused = limiter.take("biz_a", tight);
  assert.equal(refused.allowed, false);
  assert.equal(refused.remaining, 0);
  assert.equal(refused.reset, Date.parse("2026-11-03T00:00:00Z") / 1000);
  assert.equal(refused.retryAfter, 1);
  clock.advanceBy(1_000); // 00:00:00
  const next = limiter.take("biz_a", tight);
  assert.equal(next.allowed, true);
  assert.equal(next.remaining, 2);
});

Deno.test("rate limit: the minute window is the clock's minute; its reset names the next", () => {
  const clock = new ManualClock(Date.parse("2026-11-02T08:00:59Z"));
  const limiter = new RateLimiter(clock);
  for (let i = 0; i < STARTER.perMinute; i++) limiter.take("biz_a", STARTER);
  const refused = limiter.take("biz_a", STARTER);
  assert.equal(refused.allowed, false);
  assert.equal(refused.reset, Date.parse("2026-11-02T08:01:00Z") / 1000);
  assert.equal(refused.retryAfter, 1);
  clock.advanceBy(1_000);
  const next = limiter.take("biz_a", STARTER);
  assert.equal(next.allowed, true);
  assert.equal(next.remaining, STARTER.perMinute - 1);
  assert.equal(next.reset, Date.parse("2026-11-02T08:02:00Z") / 1000);
});

Deno.test("rate limit: addresses' counters are bounded, the least recently counted forgotten", () => {
  const clock = new ManualClock(Date.parse("2026-11-02T08:00:00Z"));
  const limiter = new RateLimiter(clock);
  const tight = { perMinute: 5, perDay: 5 };
  for (let i = 0; i < 5; i++) limiter.take("ip:old", tight, "address");
  for (let i = 0; i < 5; i++) limiter.take("ip:recent", tight, "address");
  for (let i = 0; i < MANY - 2; i++) {
    limiter.take(address(i), ANONYMOUS_RATE_LIMIT, "address");
    if (i === 50_000) assert.equal(limiter.take("ip:recent", tight, "address").allowed, false);
  }
  assert.equal(limiter.take("ip:recent", tight, "address").allowed, false, "kept: counted lately");
  assert.equal(limiter.take("ip:old", tight, "address").allowed, true, "forgotten past the bound");
});

Deno.test("rate limit: limits lowered below a day's count name the day's end, not the minute's", () => {
  const clock = new ManualClock(Date.parse("2026-11-02T08:00:00Z"));
  const limiter = new RateLimiter(clock);
  const enterprise = { perMinute: 6_000, perDay: 1_000_000 };
  for (let i = 0; i < 5; i++) limiter.take("biz_e", enterprise);
  // The operator sets this business 2 a minute and 4 a day (CONTRACT: Enterprise limits): both
  // are used up, the day until midnight UTC, so waiting for the next minute would not do.
  const refused = limiter.take("biz_e", { perMinute: 2, perDay: 4 });
  assert.equal(refused.allowed, false);
  assert.equal(refused.reset, Date.parse("2026-11-03T00:00:00Z") / 1000);
  assert.equal(refused.retryAfter, 16 * 3600);
  clock.advanceBy(refused.retryAfter * 1000 - 1_000);
  assert.equal(limiter.take("biz_e", { perMinute: 2, perDay: 4 }).allowed, false);
  clock.advanceBy(1_000);
  assert.equal(limiter.take("biz_e", { perMinute: 2, perDay: 4 }).allowed, true);
});
