/**
 * The arithmetic the counters share, in memory or on Postgres alike (issue 43 item 4): the rate
 * windows' decision (rate_limit.ts decisionOf) and the sign-in throttle's entries
 * (login_windows.ts), pure: no environment.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { decisionOf, RateLimiter, windowsAt } from "../../src/http/rate_limit.ts";
import {
  admittedEntry,
  failedEntry,
  liveEntry,
  loginDelayMs,
  type LoginEntry,
  releasedEntry,
  succeededEntry,
  waitSecondsOf,
} from "../../src/http/login_windows.ts";
import { LoginThrottle } from "../../src/http/login_throttle.ts";
import {
  LOGIN_ATTEMPT_PENDING_MS,
  LOGIN_DELAY_MAX_MS,
  LOGIN_FAILURE_WINDOW_MS,
} from "../../src/limits.ts";
import { ManualClock } from "../../src/runtime/clock.ts";

const NOON = Date.parse("2026-11-02T12:00:30Z");

Deno.test("counter windows: a count's decision names the tighter window's room and reset", () => {
  const { minute, day } = windowsAt(NOON);
  assert.equal(minute * 60_000, Date.parse("2026-11-02T12:00:00Z"));
  assert.equal(day * 86_400_000, Date.parse("2026-11-02T00:00:00Z"));
  const limits = { perMinute: 10, perDay: 100 };
  const minuteBinds = decisionOf(NOON, limits, { minute, minuteCount: 4, day, dayCount: 50 }, true);
  assert.deepEqual(minuteBinds, {
    allowed: true,
    remaining: 6,
    reset: Date.parse("2026-11-02T12:01:00Z") / 1000,
    retryAfter: 30,
  });
  // The day's room is the smaller: it binds, and its reset is midnight UTC.
  const dayBinds = decisionOf(NOON, limits, { minute, minuteCount: 1, day, dayCount: 97 }, true);
  assert.equal(dayBinds.remaining, 3);
  assert.equal(dayBinds.reset, Date.parse("2026-11-03T00:00:00Z") / 1000);
  // Limits lowered below the counts: no room, never a negative remaining; the day's end.
  const over = decisionOf(NOON, { perMinute: 2, perDay: 40 }, {
    minute,
    minuteCount: 4,
    day,
    dayCount: 50,
  }, false);
  assert.deepEqual([over.allowed, over.remaining], [false, 0]);
  assert.equal(over.retryAfter, 12 * 3600 - 30);
});

Deno.test("counter windows: whatever the calls' times, no minute lets more through than its limit", () => {
  fc.assert(fc.property(
    fc.integer({ min: 1, max: 8 }),
    fc.array(fc.integer({ min: 0, max: 20_000 }), { maxLength: 60 }),
    (perMinute, steps) => {
      const clock = new ManualClock(NOON);
      const limiter = new RateLimiter(clock);
      const through = new Map<number, number>();
      for (const step of steps) {
        clock.advanceBy(step);
        const d = limiter.take("k", { perMinute, perDay: 1_000 });
        const minute = windowsAt(clock.now()).minute;
        if (d.allowed) through.set(minute, (through.get(minute) ?? 0) + 1);
        assert.ok(d.remaining >= 0 && d.remaining <= perMinute);
        assert.ok(d.retryAfter >= 1 && d.retryAfter <= 60);
      }
      for (const n of through.values()) assert.ok(n <= perMinute);
    },
  ));
});

Deno.test("login windows: failures past the free ones wait, doubling up to the cap", () => {
  let e: LoginEntry | undefined;
  for (let i = 0; i < 5; i++) e = failedEntry(e, NOON, 5);
  assert.equal(waitSecondsOf(e, NOON), 30);
  e = failedEntry(e, NOON, 5);
  assert.equal(waitSecondsOf(e, NOON), 60);
  assert.equal(loginDelayMs(100, 5), LOGIN_DELAY_MAX_MS);
  // The window passed with no wait pending: the failures are forgotten, the key with them.
  assert.equal(liveEntry(e, NOON + LOGIN_FAILURE_WINDOW_MS + 1), undefined);
  // Still waiting past the window: the failures still count.
  let long: LoginEntry | undefined;
  for (let i = 0; i < 20; i++) long = failedEntry(long, NOON, 5);
  assert.ok(liveEntry(long, NOON + LOGIN_FAILURE_WINDOW_MS + 1));
});

Deno.test("login windows: attempts being checked count as failures to come, one at a time past the free", () => {
  let e: LoginEntry | undefined;
  for (let i = 0; i < 4; i++) e = failedEntry(e, NOON, 5);
  assert.equal(waitSecondsOf(e, NOON, 5), 0, "one free failure left");
  e = admittedEntry(e, NOON);
  assert.equal(waitSecondsOf(e, NOON, 5), 1, "the last free try is being checked");
  // Never reported (a crash): after a while it stops holding the others.
  assert.equal(waitSecondsOf(liveEntry(e, NOON + LOGIN_ATTEMPT_PENDING_MS + 1), NOON, 5), 0);
  // A success forgets the failures; the attempt released, nothing is left.
  assert.equal(succeededEntry(e), undefined);
  assert.equal(releasedEntry(admittedEntry(undefined, NOON)), undefined);
});

Deno.test("login windows: any sequence of reported attempts leaves none pending; memory agrees with the pure entry", () => {
  const op = fc.constantFrom("fail", "succeed", "release");
  fc.assert(fc.property(
    fc.array(fc.tuple(op, fc.integer({ min: 0, max: 120_000 })), { maxLength: 40 }),
    (ops) => {
      const clock = new ManualClock(NOON);
      const throttle = new LoginThrottle(clock);
      let e: LoginEntry | undefined;
      for (const [outcome, step] of ops) {
        clock.advanceBy(step);
        const now = clock.now();
        assert.equal(throttle.waitSeconds("k", 5), waitSecondsOf(liveEntry(e, now), now, 5));
        throttle.admit("k");
        e = admittedEntry(liveEntry(e, now), now);
        if (outcome === "fail") {
          throttle.fail("k", 5);
          e = failedEntry(liveEntry(e, now), now, 5);
        } else if (outcome === "succeed") {
          throttle.succeed("k");
          e = succeededEntry(e);
        } else {
          throttle.release("k");
          e = releasedEntry(e);
        }
        assert.equal(e?.pending ?? 0, 0);
        assert.ok(waitSecondsOf(e, now) <= LOGIN_DELAY_MAX_MS / 1000);
      }
    },
  ));
});
