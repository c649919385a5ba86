/**
 * Working-hour arithmetic for milestone deadlines (courier 2.8): "Hours count on working days
 * only, in the calendar's timezone." Pure: epoch milliseconds in and out, no clock is read.
 *
 * Model. A working day of `cal` is the whole local day, from its local start (00:00, or the first
 * instant of the day where a DST change skips midnight) up to the next local day's start. Time is
 * real elapsed time: a working day on which clocks go forward is 23 hours long, one on which
 * they go back is 25 hours. Non-working days (weekdays outside `working_days`, and `holidays`)
 * contribute no time at all.
 *
 * Boundary convention. A deadline that is used up exactly at the end of a working day is that
 * day's END instant, i.e. the boundary (= the next local day's start), even when the next day is
 * not a working day: Friday 16:00 + 8 h in a Monday-to-Friday calendar is Saturday 00:00, not
 * Monday 00:00. Consequently the result of `addWorkingHours` with `hours > 0` is either inside a
 * working day or exactly the end of one; adding 0 hours normalises an instant on a non-working day
 * (including such a boundary) forward to the start of the next working day.
 *
 * Every day-by-day scan is bounded by `CALENDAR_SCAN_DAYS_MAX` calendar days and fails with a
 * `RangeError` rather than running away.
 */

import { CALENDAR_SCAN_DAYS_MAX, isWorkingDay, type WorkingCalendar } from "./calendar.ts";

const MS_PER_HOUR = 3_600_000;

/**
 * The instant reached after counting `hours` of working-day time from `startMs`.
 *
 * - `hours` must be finite and >= 0 (fractional allowed); it is converted to whole milliseconds,
 *   rounded to the nearest.
 * - Starting on a non-working day, counting begins at the start of the next working day.
 * - `hours = 0` returns `startMs` on a working day, else the start of the next working day.
 * - A deadline used up exactly at the end of a working day returns that end instant (the next
 *   local day's start), see the module's boundary convention.
 *
 * Throws `RangeError` for a calendar without working days, a non-integer instant, invalid hours,
 * or a deadline beyond `CALENDAR_SCAN_DAYS_MAX` calendar days of the start.
 */
export function addWorkingHours(cal: WorkingCalendar, startMs: number, hours: number): number {
  requireWorkingDays(cal);
  requireInstant(startMs, "start");
  if (!Number.isFinite(hours) || hours < 0) {
    throw new RangeError(`working hours must be a finite number >= 0: ${hours}`);
  }
  let remaining = Math.round(hours * MS_PER_HOUR);
  let date = localDate(cal, startMs);
  let dayStart = startOfDay(cal, date);
  for (let i = 0; i < CALENDAR_SCAN_DAYS_MAX; i++) {
    const next = date.add({ days: 1 });
    const dayEnd = startOfDay(cal, next);
    if (isWorkingDay(cal, date)) {
      const from = Math.max(dayStart, startMs);
      const available = dayEnd - from;
      // `<=`: a deadline used up exactly at the day's end is the end instant (the boundary).
      if (remaining <= available) return from + remaining;
      remaining -= available;
    }
    date = next;
    dayStart = dayEnd;
  }
  throw new RangeError(
    `${hours} working hours do not fit within ${CALENDAR_SCAN_DAYS_MAX} days of ${
      new Date(startMs).toISOString()
    }`,
  );
}

/**
 * Real milliseconds of working-day time in `[fromMs, toMs)`; 0 when `toMs <= fromMs`. For any
 * start `s` and valid `h`: `workingMsBetween(cal, s, addWorkingHours(cal, s, h))` equals
 * `Math.round(h * 3_600_000)`.
 *
 * Throws `RangeError` for a calendar without working days, non-integer instants, or a span of
 * more than `CALENDAR_SCAN_DAYS_MAX` calendar days.
 */
export function workingMsBetween(cal: WorkingCalendar, fromMs: number, toMs: number): number {
  requireWorkingDays(cal);
  requireInstant(fromMs, "from");
  requireInstant(toMs, "to");
  if (toMs <= fromMs) return 0;
  let total = 0;
  let date = localDate(cal, fromMs);
  let dayStart = startOfDay(cal, date);
  for (let i = 0; i <= CALENDAR_SCAN_DAYS_MAX; i++) {
    const next = date.add({ days: 1 });
    const dayEnd = startOfDay(cal, next);
    if (isWorkingDay(cal, date)) {
      total += Math.max(0, Math.min(dayEnd, toMs) - Math.max(dayStart, fromMs));
    }
    if (dayEnd >= toMs) return total;
    date = next;
    dayStart = dayEnd;
  }
  throw new RangeError(`span longer than ${CALENDAR_SCAN_DAYS_MAX} days: ${fromMs}..${toMs}`);
}

/**
 * Working-time fraction of the window `[openedMs, dueMs)` elapsed at `nowMs`: 0 at or before
 * opening, 1 at the deadline, above 1 past it (working time only, so it does not grow over a
 * weekend). A window with no working time in it (e.g. opened and due within one weekend) is 0
 * before `dueMs` and 1 from `dueMs` on. "At risk" is `fractionElapsed(...) >= at_risk_pct / 100`.
 */
export function fractionElapsed(
  cal: WorkingCalendar,
  openedMs: number,
  dueMs: number,
  nowMs: number,
): number {
  const window = workingMsBetween(cal, openedMs, dueMs);
  requireInstant(nowMs, "now");
  if (window === 0) return nowMs >= dueMs ? 1 : 0;
  return workingMsBetween(cal, openedMs, nowMs) / window;
}

/**
 * How many working days are overdue at `nowMs`: the number of working days that contain some
 * working time in `(dueMs, nowMs)`. So 0 when `nowMs <= dueMs`, and still 0 while the time after
 * the deadline is all non-working (a deadline at Friday's end, checked on Sunday). Otherwise 1
 * during the first working day after the deadline — which, when the deadline falls inside a
 * working day, is the rest of that same day — 2 once the next working day has begun (strictly
 * after its start instant), and so on. Raising `customs_wait_exceeded` whenever this number grows
 * raises it once per working day over.
 *
 * Throws `RangeError` like `workingMsBetween`.
 */
export function workingDaysOver(cal: WorkingCalendar, dueMs: number, nowMs: number): number {
  requireWorkingDays(cal);
  requireInstant(dueMs, "due");
  requireInstant(nowMs, "now");
  if (nowMs <= dueMs) return 0;
  let count = 0;
  let date = localDate(cal, dueMs);
  let dayStart = startOfDay(cal, date);
  for (let i = 0; i <= CALENDAR_SCAN_DAYS_MAX; i++) {
    const next = date.add({ days: 1 });
    const dayEnd = startOfDay(cal, next);
    if (isWorkingDay(cal, date) && Math.max(dayStart, dueMs) < Math.min(dayEnd, nowMs)) count++;
    if (dayEnd >= nowMs) return count;
    date = next;
    dayStart = dayEnd;
  }
  throw new RangeError(`span longer than ${CALENDAR_SCAN_DAYS_MAX} days: ${dueMs}..${nowMs}`);
}

/** The local date of an instant in the calendar's timezone. */
function localDate(cal: WorkingCalendar, ms: number): Temporal.PlainDate {
  return Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO(cal.timezone).toPlainDate();
}

/** The first instant of a local date (00:00, or later where a DST change skips midnight). */
function startOfDay(cal: WorkingCalendar, date: Temporal.PlainDate): number {
  return date.toZonedDateTime(cal.timezone).epochMilliseconds;
}

function requireInstant(ms: number, what: string): void {
  if (!Number.isSafeInteger(ms)) {
    throw new RangeError(`${what} must be integer epoch milliseconds: ${ms}`);
  }
}

/** Same rule as calendar.ts: without a valid weekday every scan would run to its bound. */
function requireWorkingDays(cal: WorkingCalendar): void {
  if (!cal.working_days.some((d) => Number.isInteger(d) && d >= 1 && d <= 7)) {
    throw new RangeError(`calendar has no working days: [${cal.working_days.join(", ")}]`);
  }
}
