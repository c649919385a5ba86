/**
 * Rate limits per business (Business API 8): a per-minute and a per-day fixed window on the
 * injected clock. Counters live in this instance's memory, bounded by a sweep of old windows.
 */
import type { Clock } from "../runtime/clock.ts";

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
/** Counters kept before old windows are swept (bounded memory). */
const COUNTERS_MAX = 100_000;

export interface Limits {
  readonly perMinute: number;
  readonly perDay: number;
}

export interface RateDecision {
  readonly allowed: boolean;
  /** Requests left in the tighter of the two windows. */
  readonly remaining: number;
  /** Unix seconds at which the binding window resets. */
  readonly reset: number;
  /** Seconds to wait when refused. */
  readonly retryAfter: number;
}

interface Counter {
  minute: number;
  minuteCount: number;
  day: number;
  dayCount: number;
}

export class RateLimiter {
  readonly #clock: Clock;
  readonly #counters = new Map<string, Counter>();

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Counts one request for `key` and says whether it may proceed. */
  take(key: string, limits: Limits): RateDecision {
    const now = this.#clock.now();
    const minute = Math.floor(now / MINUTE_MS);
    const day = Math.floor(now / DAY_MS);
    let c = this.#counters.get(key);
    if (!c) {
      if (this.#counters.size >= COUNTERS_MAX) this.#sweep(minute);
      c = { minute, minuteCount: 0, day, dayCount: 0 };
      this.#counters.set(key, c);
    }
    if (c.minute !== minute) Object.assign(c, { minute, minuteCount: 0 });
    if (c.day !== day) Object.assign(c, { day, dayCount: 0 });
    const minuteReset = (minute + 1) * MINUTE_MS;
    const dayReset = (day + 1) * DAY_MS;
    const allowed = c.minuteCount < limits.perMinute && c.dayCount < limits.perDay;
    if (allowed) {
      c.minuteCount++;
      c.dayCount++;
    }
    const minuteLeft = limits.perMinute - c.minuteCount;
    const dayLeft = limits.perDay - c.dayCount;
    const dayBinds = dayLeft <= minuteLeft;
    const resetAt = dayBinds ? dayReset : minuteReset;
    return {
      allowed,
      remaining: Math.max(0, Math.min(minuteLeft, dayLeft)),
      reset: Math.ceil(resetAt / 1000),
      retryAfter: Math.max(1, Math.ceil((resetAt - now) / 1000)),
    };
  }

  #sweep(minute: number): void {
    for (const [k, c] of this.#counters) if (c.minute < minute) this.#counters.delete(k);
  }
}
