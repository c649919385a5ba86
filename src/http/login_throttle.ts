/**
 * Sign-in throttling (courier 5 client login; Business API portal login; CONTRACT 429
 * `rate_limited` with Retry-After): failed sign-ins are counted per account (e-mail) and per
 * address. Past the free failures within the window, each further failure makes the next attempt
 * wait, twice as long each time, up to a cap. A success clears the account's count (not the
 * address's: one good password must not reset a guesser's count). On the injected clock, in this
 * instance's memory, bounded.
 */
import type { Context } from "hono";
import {
  LOGIN_DELAY_BASE_MS,
  LOGIN_DELAY_MAX_MS,
  LOGIN_FAILURE_WINDOW_MS,
  LOGIN_FAILURES_PER_ACCOUNT_FREE,
  LOGIN_FAILURES_PER_ADDRESS_FREE,
  LOGIN_THROTTLE_ENTRIES_MAX,
} from "../limits.ts";
import type { Clock } from "../runtime/clock.ts";
import type { AppEnv } from "./context.ts";
import { ApiError } from "./errors.ts";

interface Entry {
  failures: number;
  last_failure_at: number;
  /** No attempt before this instant (epoch ms); 0 when not waiting. */
  wait_until: number;
}

/** The wait after `failures` failures when `free` are free: 0, then base, 2 base, 4 base... */
export function loginDelayMs(failures: number, free: number): number {
  if (failures < free) return 0;
  const doublings = Math.min(failures - free, 30);
  return Math.min(LOGIN_DELAY_BASE_MS * 2 ** doublings, LOGIN_DELAY_MAX_MS);
}

export class LoginThrottle {
  readonly #clock: Clock;
  readonly #entries = new Map<string, Entry>();

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Seconds to wait before another attempt under `key`, or 0. */
  waitSeconds(key: string): number {
    const e = this.#live(key, this.#clock.now());
    if (!e) return 0;
    const ms = e.wait_until - this.#clock.now();
    return ms > 0 ? Math.ceil(ms / 1000) : 0;
  }

  /** Counts one failed attempt under `key`, with `free` failures before waits begin. */
  fail(key: string, free: number): void {
    const now = this.#clock.now();
    const e = this.#live(key, now) ?? { failures: 0, last_failure_at: now, wait_until: 0 };
    e.failures++;
    e.last_failure_at = now;
    const delay = loginDelayMs(e.failures, free);
    e.wait_until = delay > 0 ? now + delay : 0;
    // Re-inserted, so the map's order is oldest failure first (what is dropped when full).
    this.#entries.delete(key);
    if (this.#entries.size >= LOGIN_THROTTLE_ENTRIES_MAX) this.#sweep(now);
    this.#entries.set(key, e);
  }

  clear(key: string): void {
    this.#entries.delete(key);
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The entry, unless its window passed with no wait pending (then it is forgotten). */
  #live(key: string, now: number): Entry | undefined {
    const e = this.#entries.get(key);
    if (e && now - e.last_failure_at > LOGIN_FAILURE_WINDOW_MS && now >= e.wait_until) {
      this.#entries.delete(key);
      return undefined;
    }
    return e;
  }

  #sweep(now: number): void {
    for (const [k, e] of this.#entries) {
      if (now - e.last_failure_at > LOGIN_FAILURE_WINDOW_MS && now >= e.wait_until) {
        this.#entries.delete(k);
      }
    }
    // Still full: the oldest go (bounded memory wins over remembering every guesser).
    for (const k of this.#entries.keys()) {
      if (this.#entries.size < LOGIN_THROTTLE_ENTRIES_MAX) break;
      this.#entries.delete(k);
    }
  }
}

/** One sign-in attempt: refused up front while the account or the address must wait. */
export interface LoginAttempt {
  failed(): void;
  succeeded(): void;
}

/**
 * Checks the account (`realm` and e-mail) and the caller's address before a sign-in; throws 429
 * `rate_limited` with Retry-After while either must wait. The caller reports the outcome.
 */
export function beginLogin(
  c: Context<AppEnv>,
  realm: string,
  email: string,
  address: string,
): LoginAttempt {
  const throttle = c.get("env").loginThrottle;
  const account = `account:${realm}:${email}`;
  const from = `address:${address}`;
  refuseWhileWaiting(Math.max(throttle.waitSeconds(account), throttle.waitSeconds(from)));
  return {
    failed() {
      throttle.fail(account, LOGIN_FAILURES_PER_ACCOUNT_FREE);
      throttle.fail(from, LOGIN_FAILURES_PER_ADDRESS_FREE);
    },
    succeeded() {
      throttle.clear(account);
    },
  };
}

/**
 * A signed-in person's check of their current password (changing it): guesses wait as failed
 * sign-ins do, counted per person apart from sign-in, so that someone failing sign-ins with the
 * e-mail cannot stop the holder of a session from changing a password they fear is known.
 */
export function beginPasswordCheck(
  c: Context<AppEnv>,
  realm: string,
  userId: string,
): LoginAttempt {
  const throttle = c.get("env").loginThrottle;
  const key = `password_check:${realm}:${userId}`;
  refuseWhileWaiting(throttle.waitSeconds(key));
  return {
    failed() {
      throttle.fail(key, LOGIN_FAILURES_PER_ACCOUNT_FREE);
    },
    succeeded() {
      throttle.clear(key);
    },
  };
}

function refuseWhileWaiting(wait: number): void {
  if (wait > 0) {
    throw new ApiError(
      "rate_limited",
      `too many failed attempts; try again in ${wait} seconds`,
      { retry_after: wait },
      { "Retry-After": String(wait) },
    );
  }
}
