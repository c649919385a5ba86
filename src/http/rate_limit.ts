/**
 * Rate limits per business (Business API 8): a per-minute and a per-day fixed window on the
 * injected clock. Here, counters in this instance's memory (a deployment of several instances
 * counts its known callers and addresses in the shared query side instead:
 * shared_rate_limit.ts), bounded without ever resetting a known caller's day: a business's or a
 * client's counter is dropped only once its day is over (their number is bounded by the
 * credentials that exist), while the counters of addresses (callers without a known credential:
 * anyone can call from many) are kept up to a bound, the least recently counted address forgotten
 * past it.
 */
import type { Clock } from "../runtime/clock.ts";

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
/** Known callers' counters kept before those whose day is over are swept (at least). */
const CALLER_COUNTERS_SWEEP = 100_000;
/** Addresses' counters kept; past it the least recently counted address starts afresh. */
const ADDRESS_COUNTERS_MAX = 100_000;

export interface Limits {
  readonly perMinute: number;
  readonly perDay: number;
}

/**
 * Who a key counts: a known caller (a business, a courier's client), or an address calling
 * without a known credential.
 */
export type CounterKind = "caller" | "address";

export interface RateDecision {
  readonly allowed: boolean;
  /** Requests left in the tighter of the two windows. */
  readonly remaining: number;
  /** Unix seconds at which the binding window resets. */
  readonly reset: number;
  /** Seconds to wait when refused. */
  readonly retryAfter: number;
}

/** The counts of one key's windows: `minute` and `day` are window numbers (windowsAt). */
export interface Counter {
  minute: number;
  minuteCount: number;
  day: number;
  dayCount: number;
}

/**
 * Where a known caller's (or an address's) requests are counted: this instance's memory
 * (RateLimiter), or the deployment's shared query side when several instances serve it
 * (shared_rate_limit.ts).
 */
export interface PlanCounter {
  take(key: string, limits: Limits): RateDecision | Promise<RateDecision>;
}

/** The fixed windows (minute and UTC day numbers since the epoch) that `now` falls in. */
export function windowsAt(now: number): { minute: number; day: number } {
  return { minute: Math.floor(now / MINUTE_MS), day: Math.floor(now / DAY_MS) };
}

/** What a count of the windows answers the request counted at `now` (allowed or not). */
export function decisionOf(
  now: number,
  limits: Limits,
  c: Readonly<Counter>,
  allowed: boolean,
): RateDecision {
  const minuteLeft = limits.perMinute - c.minuteCount;
  const dayLeft = limits.perDay - c.dayCount;
  // spec: business 8: Retry-After and X-RateLimit-Reset name when a call is let through again:
  // once the day is used up (limits lowered below its count too), that is the day's end.
  const dayBinds = dayLeft <= 0 || dayLeft <= minuteLeft;
  const resetAt = dayBinds ? (c.day + 1) * DAY_MS : (c.minute + 1) * MINUTE_MS;
  return {
    allowed,
    remaining: Math.max(0, Math.min(minuteLeft, dayLeft)),
    reset: Math.ceil(resetAt / 1000),
    retryAfter: Math.max(1, Math.ceil((resetAt - now) / 1000)),
  };
}

/** Counts in this instance's memory: the embedded defaults' one instance, and every address. */
export class RateLimiter implements PlanCounter {
  readonly #clock: Clock;
  readonly #callers = new Map<string, Counter>();
  /** Least recently counted first (a counted address moves to the end). */
  readonly #addresses = new Map<string, Counter>();
  #callersSweepAt = CALLER_COUNTERS_SWEEP;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Counts one request for `key` and says whether it may proceed. */
  take(key: string, limits: Limits, kind: CounterKind = "caller"): RateDecision {
    const now = this.#clock.now();
    const { minute, day } = windowsAt(now);
    const c = kind === "address" ? this.#address(key, day) : this.#caller(key, day);
    if (c.minute !== minute) Object.assign(c, { minute, minuteCount: 0 });
    if (c.day !== day) Object.assign(c, { day, dayCount: 0 });
    const allowed = c.minuteCount < limits.perMinute && c.dayCount < limits.perDay;
    if (allowed) {
      c.minuteCount++;
      c.dayCount++;
    }
    return decisionOf(now, limits, c, allowed);
  }

  /**
   * spec: business 8: a plan's day limit holds for the whole (UTC) day, so a known caller's
   * counter is never dropped while its day runs, however many other keys are counted.
   */
  #caller(key: string, day: number): Counter {
    const known = this.#callers.get(key);
    if (known) return known;
    if (this.#callers.size >= this.#callersSweepAt) {
      for (const [k, c] of this.#callers) if (c.day < day) this.#callers.delete(k);
      // The next sweep waits for as many new keys again: amortised, never a scan per request.
      this.#callersSweepAt = Math.max(CALLER_COUNTERS_SWEEP, 2 * this.#callers.size);
    }
    const c = { minute: 0, minuteCount: 0, day, dayCount: 0 };
    this.#callers.set(key, c);
    return c;
  }

  /**
   * An address's counter, bounded: past the bound the least recently counted address is
   * forgotten (it starts afresh; one calling from that many addresses gains nothing by it).
   */
  #address(key: string, day: number): Counter {
    const known = this.#addresses.get(key);
    if (known) {
      this.#addresses.delete(key);
      this.#addresses.set(key, known);
      return known;
    }
    if (this.#addresses.size >= ADDRESS_COUNTERS_MAX) {
      const oldest = this.#addresses.keys().next().value;
      if (oldest !== undefined) this.#addresses.delete(oldest);
    }
    const c = { minute: 0, minuteCount: 0, day, dayCount: 0 };
    this.#addresses.set(key, c);
    return c;
  }
}
