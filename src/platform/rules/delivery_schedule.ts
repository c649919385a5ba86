/**
 * The retry schedule of outbound events (courier 6.1, 6.2, 8) and the limits of one delivery.
 * Pure: no clock, no I/O.
 */
import {
  COMPLETION_ADJUSTMENTS_MAX,
  REFERENCE_CHARS_MAX,
  STATE_BYTES_MAX,
  TEXT_CHARS_MAX,
} from "../../limits.ts";

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
/**
 * UTF-8 bytes a character of a caller's text takes in a JSON body, at most: three for a character
 * of the Basic Multilingual Plane past U+07FF; `"` and `\` are escaped in two, and a character
 * past U+FFFF takes four bytes for its two UTF-16 units; tab, line feed and carriage return, which
 * a reason may hold, are escaped in two. Other control characters, escaped in six, and unpaired
 * surrogates are refused in every text the ledger keeps (src/http/schemas.ts PlainText, route.ts
 * storableText).
 */
const TEXT_CHAR_BYTES_MAX = 3;
/**
 * UTF-8 bytes of one adjustment of a completion body (courier 2.7: reference, kind, amount,
 * currency, reason, recoverable, correction, and its status) at every bound: its reference and
 * the one it corrects (REFERENCE_CHARS_MAX each) and its reason (TEXT_CHARS_MAX) in the longest
 * characters, and 200 bytes for the rest (164 measured with the longest kind, amount and status).
 */
const COMPLETION_ADJUSTMENT_BYTES_MAX = (2 * REFERENCE_CHARS_MAX + TEXT_CHARS_MAX) *
    TEXT_CHAR_BYTES_MAX + 200;
/**
 * UTF-8 bytes of a completion body besides its adjustments: common fields, client, shipment
 * references and nine price lines, each text at its bound in the longest characters (8,647
 * measured), with room to spare.
 */
const COMPLETION_FRAME_BYTES_MAX = 16_384;
/**
 * A raw event body, at most (452,384 bytes). The largest body the service makes is a completion
 * event (courier 2.7 `shipment.delivered`): it lists up to COMPLETION_ADJUSTMENTS_MAX adjustments,
 * each whole (spec: courier 6.1: each event is sent once, so a body the service makes is never
 * refused). Far under NATS's 1 MB message: the body never crosses the bus (the actor's `logged`).
 * It holds as no text the ledger keeps has a character taking more than TEXT_CHAR_BYTES_MAX.
 */
export const OUTBOUND_BODY_BYTES_MAX = COMPLETION_ADJUSTMENTS_MAX *
    COMPLETION_ADJUSTMENT_BYTES_MAX + COMPLETION_FRAME_BYTES_MAX;
/**
 * An outbound event's stored record, at most: its state holds the body as JSON text within JSON,
 * where a `"` or `\` of the body is written twice, so a text character allowed 3 bytes above
 * takes at most 4 (4/3 of the body's bound), plus the attempt and requeue history (within one
 * value). The store splits it over several values in one commit (ActorDefinition.stateBytesMax),
 * about 663,000 bytes, within Deno KV's 800 KiB of one atomic commit.
 */
export const OUTBOUND_STATE_BYTES_MAX = Math.ceil(OUTBOUND_BODY_BYTES_MAX * 4 / 3) +
  STATE_BYTES_MAX;

const MINUTE_MS = 60_000;

/**
 * When the next attempt is due after `attemptsMade` attempts of the current round have failed,
 * the first of them at `firstAttemptAt` and the last at `now` (epoch ms); null when the schedule
 * is spent (`failed`). Offsets count from the first attempt, so attempts fall at +0, +1, +5, +30,
 * +120 and +720 min. A retry whose time has passed (the event waited for an endpoint, or the
 * service was down) follows `now` by the schedule's gap instead: spec: courier 6.1, retries come
 * "after" their minutes, never several at once.
 */
export function nextAttemptAt(
  attemptsMade: number,
  firstAttemptAt: number,
  now: number,
): number | null {
  if (!Number.isSafeInteger(attemptsMade) || attemptsMade < 1) {
    throw new RangeError(`attempts made must be a whole number >= 1: ${attemptsMade}`);
  }
  const minutes = RETRY_SCHEDULE_MINUTES[attemptsMade - 1];
  if (minutes === undefined) return null;
  const due = firstAttemptAt + minutes * MINUTE_MS;
  if (due > now) return due;
  const gap = minutes - (RETRY_SCHEDULE_MINUTES[attemptsMade - 2] ?? 0);
  return now + gap * MINUTE_MS;
}

/** Cuts a text to `max` characters (error messages and reasons are stored bounded). */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : text.slice(0, max);
}

/** Courier 3.1, 8: with no billing endpoint set, a pending event is tried again hourly. */
export const NO_ENDPOINT_RETRY_MS = 60 * MINUTE_MS;
