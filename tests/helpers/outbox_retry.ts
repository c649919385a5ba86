/**
 * Outbox items whose handler failed wait before they are tried again (src/runtime/outbox.ts: the
 * wait doubles from OUTBOX_RETRY_FIRST_MS at each failure, up to OUTBOX_RETRY_MAX_MS). A test
 * whose handler failed moves the manual clock to when the item is due, then sweeps.
 */
import { OUTBOX_RETRY_FIRST_MS, OUTBOX_RETRY_MAX_MS } from "../../src/limits.ts";
import type { ManualClock } from "../../src/runtime/clock.ts";

/** Moves the clock by the wait after the `failures`-th failure of an item (the last one now). */
export function outboxRetryDue(clock: ManualClock, failures = 1): void {
  clock.advanceBy(Math.min(OUTBOX_RETRY_FIRST_MS * 2 ** (failures - 1), OUTBOX_RETRY_MAX_MS));
}
