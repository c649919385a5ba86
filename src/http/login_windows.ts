/**
 * The arithmetic of sign-in throttling (courier 5 client login; Business API portal login), pure:
 * what one key's entry becomes when an attempt begins, fails, succeeds or is released, and how
 * long the next attempt waits. The counts in this instance's memory (login_throttle.ts) and those
 * shared by a deployment's instances (shared_login_throttle.ts) are both these functions, so the
 * two answer alike.
 */
import {
  LOGIN_ATTEMPT_PENDING_MS,
  LOGIN_DELAY_BASE_MS,
  LOGIN_DELAY_MAX_MS,
  LOGIN_FAILURE_WINDOW_MS,
} from "../limits.ts";

/** One key's count (an account, an address, a person checking their password). */
export interface LoginEntry {
  readonly failures: number;
  readonly last_failure_at: number;
  /** No attempt before this instant (epoch ms); 0 when not waiting. */
  readonly wait_until: number;
  /** Attempts admitted and not yet reported: each may still fail. */
  readonly pending: number;
  /** When the latest of them was admitted (one never reported stops counting after a while). */
  readonly pending_since: number;
}

/** The wait after `failures` failures when `free` are free: 0, then base, 2 base, 4 base... */
export function loginDelayMs(failures: number, free: number): number {
  if (failures < free) return 0;
  const doublings = Math.min(failures - free, 30);
  return Math.min(LOGIN_DELAY_BASE_MS * 2 ** doublings, LOGIN_DELAY_MAX_MS);
}

/** A key with nothing counted yet. */
export function emptyEntry(now: number): LoginEntry {
  return { failures: 0, last_failure_at: now, wait_until: 0, pending: 0, pending_since: now };
}

/**
 * The entry with what no longer counts forgotten: failures whose window passed with no wait
 * pending, attempts admitted so long ago that they were never reported (a crash). Undefined when
 * nothing is left.
 */
export function liveEntry(e: LoginEntry | undefined, now: number): LoginEntry | undefined {
  if (!e) return undefined;
  let live = e;
  if (live.pending > 0 && now - live.pending_since > LOGIN_ATTEMPT_PENDING_MS) {
    live = { ...live, pending: 0 };
  }
  if (now - live.last_failure_at > LOGIN_FAILURE_WINDOW_MS && now >= live.wait_until) {
    live = { ...live, failures: 0, wait_until: 0 };
  }
  return live.pending === 0 && live.failures === 0 ? undefined : live;
}

/**
 * Seconds before another attempt may begin under a live entry, or 0. With `free` given, the
 * attempts still being checked count as failures to come: past the free failures, one attempt
 * at a time (the others wait a second, until it is reported).
 */
export function waitSecondsOf(e: LoginEntry | undefined, now: number, free?: number): number {
  if (!e) return 0;
  const ms = e.wait_until - now;
  if (ms > 0) return Math.ceil(ms / 1000);
  if (free !== undefined && e.pending > 0 && loginDelayMs(e.failures + e.pending, free) > 0) {
    return 1;
  }
  return 0;
}

/** An attempt begins under a live entry (or none): it counts until reported. */
export function admittedEntry(e: LoginEntry | undefined, now: number): LoginEntry {
  const base = e ?? emptyEntry(now);
  return { ...base, pending: base.pending + 1, pending_since: now };
}

/** One failed attempt under a live entry (or none), with `free` failures before waits begin. */
export function failedEntry(e: LoginEntry | undefined, now: number, free: number): LoginEntry {
  const base = e ?? emptyEntry(now);
  const failures = base.failures + 1;
  const delay = loginDelayMs(failures, free);
  return {
    ...base,
    pending: Math.max(0, base.pending - 1),
    failures,
    last_failure_at: now,
    wait_until: delay > 0 ? now + delay : 0,
  };
}

/** An attempt ended without failing; its failures still count. Undefined: nothing left. */
export function releasedEntry(e: LoginEntry | undefined): LoginEntry | undefined {
  if (!e) return undefined;
  const pending = Math.max(0, e.pending - 1);
  return pending === 0 && e.failures === 0 ? undefined : { ...e, pending };
}

/** An attempt succeeded: the key's failures are forgotten, and the attempt released. */
export function succeededEntry(e: LoginEntry | undefined): LoginEntry | undefined {
  return e ? releasedEntry({ ...e, failures: 0, wait_until: 0 }) : undefined;
}
