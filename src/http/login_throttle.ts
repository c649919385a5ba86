/**
 * Sign-in throttling (courier 5 client login; Business API portal login; CONTRACT 429
 * `rate_limited` with Retry-After): failed sign-ins are counted per account (e-mail) and per
 * address. Past the free failures within the window, each further failure makes the next attempt
 * wait, twice as long each time, up to a cap. A success clears the account's count (not the
 * address's: one good password must not reset a guesser's count). An attempt still being checked
 * counts as one that may fail, so guesses sent all at once get no more tries than guesses sent one
 * after another. The arithmetic is login_windows.ts; here, the port the routes count through and
 * its counts in this instance's memory, on the injected clock, bounded (a deployment of several
 * instances shares them instead: shared_login_throttle.ts).
 */
import {
  LOGIN_FAILURES_PER_ACCOUNT_FREE,
  LOGIN_FAILURES_PER_ADDRESS_FREE,
  LOGIN_THROTTLE_ENTRIES_MAX,
} from "../limits.ts";
import type { Clock } from "../runtime/clock.ts";
import { ApiError } from "./errors.ts";
import {
  admittedEntry,
  failedEntry,
  liveEntry,
  type LoginEntry,
  releasedEntry,
  succeededEntry,
  waitSecondsOf,
} from "./login_windows.ts";

export { loginDelayMs } from "./login_windows.ts";

/** A key an attempt is counted under, with the failures free before waits begin. */
export interface ThrottledKey {
  readonly key: string;
  readonly free: number;
}

/**
 * Where failed sign-ins are counted: this instance's memory (LoginThrottle), or the deployment's
 * shared query side when several instances serve it, so a guesser spreading attempts over them
 * gets no more tries (issue 43 item 4).
 */
export interface SignInCounter {
  /**
   * Seconds to wait before an attempt under every one of `keys` may begin; 0 once it has begun
   * (admitted under each, at once, so two instances cannot both let a last try through).
   */
  begin(keys: readonly ThrottledKey[]): number | Promise<number>;
  /** Counts one failed attempt under `key`. */
  fail(key: string, free: number): void | Promise<void>;
  /** An attempt under `key` succeeded: its failures are forgotten. */
  succeed(key: string): void | Promise<void>;
  /** An attempt under `key` ended without failing; its failures still count. */
  release(key: string): void | Promise<void>;
}

export class LoginThrottle implements SignInCounter {
  readonly #clock: Clock;
  /** Oldest failure first (a failing key moves to the end): what is dropped when full. */
  readonly #entries = new Map<string, LoginEntry>();

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /**
   * Seconds to wait before another attempt under `key` may begin, or 0. With `free` given, the
   * attempts still being checked count as failures to come (waitSecondsOf).
   */
  waitSeconds(key: string, free?: number): number {
    const now = this.#clock.now();
    return waitSecondsOf(this.#live(key, now), now, free);
  }

  begin(keys: readonly ThrottledKey[]): number {
    const wait = Math.max(0, ...keys.map((k) => this.waitSeconds(k.key, k.free)));
    if (wait === 0) { for (const k of keys) this.admit(k.key); }
    return wait;
  }

  /** An attempt under `key` begins: it counts until reported (fail, succeed or release). */
  admit(key: string): void {
    const now = this.#clock.now();
    const live = this.#live(key, now);
    if (!live && this.#entries.size >= LOGIN_THROTTLE_ENTRIES_MAX) this.#sweep(now);
    this.#entries.set(key, admittedEntry(live, now));
  }

  fail(key: string, free: number): void {
    const now = this.#clock.now();
    const live = this.#live(key, now);
    if (!live && this.#entries.size >= LOGIN_THROTTLE_ENTRIES_MAX) this.#sweep(now);
    // Re-inserted, so the map's order is oldest failure first (what is dropped when full).
    this.#entries.delete(key);
    this.#entries.set(key, failedEntry(live, now, free));
  }

  succeed(key: string): void {
    this.#put(key, succeededEntry(this.#entries.get(key)));
  }

  release(key: string): void {
    this.#put(key, releasedEntry(this.#entries.get(key)));
  }

  clear(key: string): void {
    this.#entries.delete(key);
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Stores what a known key's entry became, in its place; none left, the key is forgotten. */
  #put(key: string, e: LoginEntry | undefined): void {
    if (!this.#entries.has(key)) return;
    if (e) this.#entries.set(key, e);
    else this.#entries.delete(key);
  }

  /** The entry, unless nothing of it counts any more (then it is forgotten). */
  #live(key: string, now: number): LoginEntry | undefined {
    const e = this.#entries.get(key);
    if (!e) return undefined;
    const live = liveEntry(e, now);
    this.#put(key, live);
    return live;
  }

  #sweep(now: number): void {
    for (const k of [...this.#entries.keys()]) this.#live(k, now);
    // Still full: the oldest go (bounded memory wins over remembering every guesser).
    for (const k of this.#entries.keys()) {
      if (this.#entries.size < LOGIN_THROTTLE_ENTRIES_MAX) break;
      this.#entries.delete(k);
    }
  }
}

/** One sign-in attempt, begun: its outcome is counted before the caller answers. */
export interface LoginAttempt {
  failed(): Promise<void>;
  succeeded(): Promise<void>;
}

/**
 * Checks the account (`realm` and e-mail) and the caller's address before a sign-in; throws 429
 * `rate_limited` with Retry-After while either must wait. The caller reports the outcome.
 */
export async function beginLogin(
  throttle: SignInCounter,
  realm: string,
  email: string,
  address: string,
): Promise<LoginAttempt> {
  const account = `account:${realm}:${email}`;
  const from = `address:${address}`;
  // spec: courier 5 (client login): repeated failures wait; an attempt being checked counts
  // before its answer, or guesses sent at once would all be checked.
  refuseWhileWaiting(
    await throttle.begin([
      { key: account, free: LOGIN_FAILURES_PER_ACCOUNT_FREE },
      { key: from, free: LOGIN_FAILURES_PER_ADDRESS_FREE },
    ]),
  );
  return {
    async failed() {
      await throttle.fail(account, LOGIN_FAILURES_PER_ACCOUNT_FREE);
      await throttle.fail(from, LOGIN_FAILURES_PER_ADDRESS_FREE);
    },
    async succeeded() {
      await throttle.succeed(account);
      await throttle.release(from);
    },
  };
}

/**
 * A signed-in person's check of their current password (changing it): guesses wait as failed
 * sign-ins do, counted per person apart from sign-in, so that someone failing sign-ins with the
 * e-mail cannot stop the holder of a session from changing a password they fear is known.
 */
export async function beginPasswordCheck(
  throttle: SignInCounter,
  realm: string,
  userId: string,
): Promise<LoginAttempt> {
  const key = `password_check:${realm}:${userId}`;
  refuseWhileWaiting(await throttle.begin([{ key, free: LOGIN_FAILURES_PER_ACCOUNT_FREE }]));
  return {
    async failed() {
      await throttle.fail(key, LOGIN_FAILURES_PER_ACCOUNT_FREE);
    },
    async succeeded() {
      await throttle.succeed(key);
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
