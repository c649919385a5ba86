/**
 * The retry schedule of outbound events (courier 6.1, 6.2, 8) and the limits of one delivery.
 * Pure: no clock, no I/O.
 */

/** Courier 6.1 and 8: retries after 1, 5, 30, 120 and 720 minutes, counted from the first try. */
export const RETRY_SCHEDULE_MINUTES: readonly number[] = [1, 5, 30, 120, 720];
/** The first attempt plus one per retry; after the last failure the event is `failed`. */
export const ATTEMPTS_MAX = RETRY_SCHEDULE_MINUTES.length + 1;
/** One attempt gives up after this (the receiver is slow or silent). */
export const ATTEMPT_TIMEOUT_MS = 10_000;
/**
 * A due attempt that reports nothing within this time (the process died mid-attempt) is due
 * again: above ATTEMPT_TIMEOUT_MS plus DNS_RESOLVE_TIMEOUT_MS, so a live attempt is not doubled.
 */
export const ATTEMPT_LEASE_MS = 60_000;
/** Attempts kept in an event's history (a requeued event keeps its older rounds up to this). */
export const ATTEMPT_HISTORY_MAX = 50;
/** Requeues kept in an event's history. */
export const REQUEUES_MAX = 20;
/** A failed attempt's error text is cut to this (it is stored and shown to operators). */
export const ATTEMPT_ERROR_CHARS_MAX = 200;
/** A requeue reason is cut to this. */
export const REQUEUE_REASON_CHARS_MAX = 200;
/** A raw event body; below STATE_BYTES_MAX (60 000) with room for the history. */
export const OUTBOUND_BODY_BYTES_MAX = 32_768;

const MINUTE_MS = 60_000;

/**
 * When the next attempt is due after `attemptsMade` attempts of the current round have failed,
 * the first of them at `firstAttemptAt` (epoch ms); null when the schedule is spent (`failed`).
 * Offsets count from the first attempt, so attempts fall at +0, +1, +5, +30, +120 and +720 min.
 */
export function nextAttemptAt(attemptsMade: number, firstAttemptAt: number): number | null {
  if (!Number.isSafeInteger(attemptsMade) || attemptsMade < 1) {
    throw new RangeError(`attempts made must be a whole number >= 1: ${attemptsMade}`);
  }
  const minutes = RETRY_SCHEDULE_MINUTES[attemptsMade - 1];
  return minutes === undefined ? null : firstAttemptAt + minutes * MINUTE_MS;
}

/** Cuts a text to `max` characters (error messages and reasons are stored bounded). */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : text.slice(0, max);
}

/** Courier 3.1, 8: with no billing endpoint set, a pending event is tried again hourly. */
export const NO_ENDPOINT_RETRY_MS = 60 * MINUTE_MS;
