/** The delivery estimate (courier 2.3, 3.2): whether it still moves, and where it moves to. */
import { addWorkingDays, type WorkingCalendar } from "../../../domain/calendar.ts";
import type { Headline } from "./vocabulary.ts";
import { dayEndsAt } from "./days.ts";

/**
 * spec: courier 2.3, 3.2: whether the delivery estimate still moves (and estimate_changed goes to
 * the client). Not while the parcel goes back to the sender, nor while it is reported lost or
 * damaged (2.11: expected on no day): it will not be delivered as planned, so a nightly move of
 * its delivery day would tell the client something untrue. Found again, it moves on.
 */
export function deliveryEstimateMoves(status: Headline): boolean {
  return status !== "returning" && status !== "lost_or_damaged";
}

/** The delivery estimate after a setback: the next working day after `now`, never earlier. */
export function estimateAfterSetback(
  cal: WorkingCalendar,
  current: string,
  now: number,
): string {
  const today = Temporal.Instant.fromEpochMilliseconds(now).toZonedDateTimeISO(cal.timezone)
    .toPlainDate();
  const next = addWorkingDays(cal, today, 1).toString();
  return next > current ? next : current;
}

/**
 * spec: courier 2.3, 3.2: the delivery estimate never lies in the past. Once its day is over in the
 * calendar's timezone without delivery, it moves to the next working day not yet over: the first
 * working day after the estimated one, or today's (or the next) when the clock is further on.
 */
export function estimateAfterDayPassed(
  cal: WorkingCalendar,
  current: string,
  now: number,
): string {
  if (now < dayEndsAt(cal, current)) return current;
  const today = Temporal.Instant.fromEpochMilliseconds(now).toZonedDateTimeISO(cal.timezone)
    .toPlainDate();
  return addWorkingDays(cal, today, 0).toString();
}
