/**
 * The order chat's rules (Business API 4.1, 8): messages of 1 to 1,000 characters between the
 * customer and the driver; the chat closes on cancellation or 30 minutes after completion.
 */

/** spec: business 8: chat message max 1000 characters. */
export const CHAT_MESSAGE_CHARS_MAX = 1_000;

/** spec: business 4.1, 8: the chat closes 30 minutes after completion. */
export const CHAT_CLOSE_MINUTES_AFTER_COMPLETION = 30;

/**
 * Messages one trip's chat keeps, at most: a delivery's chat is a few lines ("at the gate"), so a
 * hundred is far beyond a real one, and it bounds the chat's state (under 0.5 MB at 1,000
 * four-byte characters each).
 */
export const CHAT_MESSAGES_MAX = 100;

/**
 * Messages each side may write, at most: half the chat each, so the customer (an unauthenticated
 * holder of the chat_token) can never fill the chat and silence the driver, nor the other way.
 */
export const CHAT_MESSAGES_PER_AUTHOR_MAX = CHAT_MESSAGES_MAX / 2;

/**
 * A post's key, at most: the driver app's `idempotency_key`, as its trip actions take it (CONTRACT
 * "Driver app", 120 characters); the Idempotency-Key header allows 64 (spec: business 8).
 */
export const CHAT_KEY_CHARS_MAX = 120;

export type ChatAuthor = "customer" | "driver";

/**
 * Characters nobody sees: white space, format characters (zero-width space, joiners, the byte
 * order mark, the soft hyphen), the combining grapheme joiner and the blank fillers (Hangul
 * fillers, the braille blank).
 */
const INVISIBLE = /[\s\p{Cc}\p{Cf}\p{Zs}\p{Zl}\p{Zp}\u034F\u115F\u1160\u3164\uFFA0\u2800]/gu;

/**
 * spec: business 4.1, 8: a message of 1 to 1,000 characters says something: one of invisible
 * characters only is as empty as "".
 */
export function visibleMessage(message: string): boolean {
  return message.replace(INVISIBLE, "") !== "";
}

/**
 * spec: business 4.1, 8: a trip that ended (cancelled, or completed) tells its chat in the same
 * commit, so the chat itself refuses what comes after its close, whatever a post's sender read.
 */
export const CHAT_CLOSE_OUTBOX = "business_chat_close";

/** What the chat is told of its trip's end: cancelled, or completed at (ms). */
export interface ChatCloseItem {
  readonly business_id: string;
  readonly reference: string;
  readonly cancelled: boolean;
  readonly completed_at: number | null;
}

/** Why the chat no longer takes messages, or null while it is open. */
export function chatClosedReason(
  t: { readonly status: string; readonly completed_at: number | null },
  now: number,
): string | null {
  if (t.status === "cancelled") return "the trip was cancelled";
  if (
    t.completed_at !== null &&
    now >= t.completed_at + CHAT_CLOSE_MINUTES_AFTER_COMPLETION * 60_000
  ) {
    return `the trip completed over ${CHAT_CLOSE_MINUTES_AFTER_COMPLETION} minutes ago`;
  }
  return null;
}
