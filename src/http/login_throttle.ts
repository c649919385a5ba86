/**
 * Sign-in throttling (courier 5 client login; Business API portal login; CONTRACT 429
 * `rate_limited` with Retry-After): failed sign-ins are counted per account (e-mail) and per
 * address. Past the free failures within the window, each further failure makes the next attempt
 * wait, twice as long each time, up to a cap. A success clears the account's count (not the
 * address's: one good password must not reset a guesser's count). An attempt still being checked
 * counts as one that may fail, so guesses sent all at once get no more tries than guesses sent one
 * after another. On the injected clock, in this instance's memory, bounded.
 */
import {
  LOGIN_ATTEMPT_PENDING_MS,
  LOGIN_DELAY_BASE_MS,
  LOGIN_DELAY_MAX_MS,
  LOGIN_FAILURE_WINDOW_MS,
  LOGIN_FAILURES_PER_ACCOUNT_FREE,
  LOGIN_FAILURES_PER_ADDRESS_FREE,
  LOGIN_THROTTLE_ENTRIES_MAX,
} from "../limits.ts";
import type { Clock } from "../runtime/clock.ts";
import { ApiError } from "./errors.ts";

interface Entry {
  failures: number;
  last_failure_at: number;
  /** No attempt before this instant (epoch ms); 0 when not waiting. */
  wait_until: number;
  /** Attempts admitted and not yet reported: each may still fail. */
  pending: number;
  /** When the latest of them was admitted (one never reported stops counting after a while). */
  pending_since: number;
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

  /**
   * Seconds to wait before another attempt under `key` may begin, or 0. With `free` given, the
   * attempts still being checked count as failures to come: past the free failures, one attempt
   * at a time (the others wait a second, until it is reported).
   */
  waitSeconds(key: string, free?: number): number {
    const now = this.#clock.now();
    const e = this.#live(key, now);
    if (!e) return 0;
    const ms = e.wait_until - now;
    if (ms > 0) return Math.ceil(ms / 1000);
    if (free !== undefined && e.pending > 0 && loginDelayMs(e.failures + e.pending, free) > 0) {
      return 1;
    }
    return 0;
  }

  /** An attempt under `key` begins: it counts until reported (fail, succeed or release). */
  admit(key: string): void {
    const now = this.#clock.now();
    const e = this.#live(key, now) ?? this.#add(key, now);
    e.pending++;
    e.pending_since = now;
  }

  /** Counts one failed attempt under `key`, with `free` failures before waits begin. */
  fail(key: string, free: number): void {
    const now = this.#clock.now();
    const e = this.#live(key, now) ?? this.#add(key, now);
    e.pending = Math.max(0, e.pending - 1);
    e.failures++;
    e.last_failure_at = now;
    const delay = loginDelayMs(e.failures, free);
    e.wait_until = delay > 0 ? now + delay : 0;
    // Re-inserted, so the map's order is oldest failure first (what is dropped when full).
    this.#entries.delete(key);
    this.#entries.set(key, e);
  }

  /** An attempt under `key` succeeded: its failures are forgotten. */
  succeed(key: string): void {
    const e = this.#entries.get(key);
    if (!e) return;
    Object.assign(e, { failures: 0, wait_until: 0 });
    this.release(key);
  }

  /** An attempt under `key` ended without failing; its failures still count. */
  release(key: string): void {
    const e = this.#entries.get(key);
    if (!e) return;
    e.pending = Math.max(0, e.pending - 1);
    if (e.pending === 0 && e.failures === 0) this.#entries.delete(key);
  }

  clear(key: string): void {
    this.#entries.delete(key);
  }

  get size(): number {
    return this.#entries.size;
  }

  #add(key: string, now: number): Entry {
    if (this.#entries.size >= LOGIN_THROTTLE_ENTRIES_MAX) this.#sweep(now);
    const e = { failures: 0, last_failure_at: now, wait_until: 0, pending: 0, pending_since: now };
    this.#entries.set(key, e);
    return e;
  }

  /** The entry, unless nothing of it counts any more (then it is forgotten). */
  #live(key: string, now: number): Entry | undefined {
    const e = this.#entries.get(key);
    if (e && this.#spent(e, now)) {
      this.#entries.delete(key);
      return undefined;
    }
    return e;
  }

  /**
   * Forgets what no longer counts: failures whose window passed with no wait pending, attempts
   * admitted so long ago that they were never reported (a crash). True when nothing is left.
   */
  #spent(e: Entry, now: number): boolean {
    if (e.pending > 0 && now - e.pending_since > LOGIN_ATTEMPT_PENDING_MS) e.pending = 0;
    if (now - e.last_failure_at > LOGIN_FAILURE_WINDOW_MS && now >= e.wait_until) {
      Object.assign(e, { failures: 0, wait_until: 0 });
    }
    return e.pending === 0 && e.failures === 0;
  }

  #sweep(now: number): void {
    for (const [k, e] of this.#entries) if (this.#spent(e, now)) this.#entries.delete(k);
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
  throttle: LoginThrottle,
  realm: string,
  email: string,
  address: string,
): LoginAttempt {
  const account = `account:${realm}:${email}`;
  const from = `address:${address}`;
  // spec: courier 5 (client login): repeated failures wait; an attempt being checked counts
  // before its answer, or guesses sent at once would all be checked.
  refuseWhileWaiting(Math.max(
    throttle.waitSeconds(account, LOGIN_FAILURES_PER_ACCOUNT_FREE),
    throttle.waitSeconds(from, LOGIN_FAILURES_PER_ADDRESS_FREE),
  ));
  throttle.admit(account);
  throttle.admit(from);
  return {
    failed() {
      throttle.fail(account, LOGIN_FAILURES_PER_ACCOUNT_FREE);
      throttle.fail(from, LOGIN_FAILURES_PER_ADDRESS_FREE);
    },
    succeeded() {
      throttle.succeed(account);
      throttle.release(from);
    },
  };
}

/**
 * A signed-in person's check of their current password (changing it): guesses wait as failed
 * sign-ins do, counted per person apart from sign-in, so that someone failing sign-ins with the
 * e-mail cannot stop the holder of a session from changing a password they fear is known.
 */
export function beginPasswordCheck(
  throttle: LoginThrottle,
  realm: string,
  userId: string,
): LoginAttempt {
  const key = `password_check:${realm}:${userId}`;
  refuseWhileWaiting(throttle.waitSeconds(key, LOGIN_FAILURES_PER_ACCOUNT_FREE));
  throttle.admit(key);
  return {
    failed() {
      throttle.fail(key, LOGIN_FAILURES_PER_ACCOUNT_FREE);
    },
    succeeded() {
      throttle.succeed(key);
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
