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
 * Every day-by-day scan is bounded by what it is asked: the hours to count (`workingScanDays` of
 * the working days they need, a day lasting at least `DAY_MS_MIN`) or the span to measure. So any
 * accepted calendar and service level is worked out exactly, however far ahead; only nonsense
 * input (a scan beyond `CALENDAR_SCAN_DAYS_MAX`) fails, with a `RangeError`.
 */

import {
  CALENDAR_SCAN_DAYS_MAX,
  isWorkingDate,
  type WorkingCalendar,
  workingScanDays,
} from "./calendar.ts";

const MS_PER_HOUR = 3_600_000;
/**
 * The shortest a local day may be, for scan bounds: a daylight-saving change moves clocks by an
 * hour or two. (A zone that skipped a whole date, crossing the date line, did so once, in the
 * past; the bounds below leave a spare day for it.)
 */
const DAY_MS_MIN = 12 * MS_PER_HOUR;

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
 * or hours whose scan could pass `CALENDAR_SCAN_DAYS_MAX` days (never for an accepted service level).
 */
export function addWorkingHours(cal: WorkingCalendar, startMs: number, hours: number): number {
  requireWorkingDays(cal);
  requireInstant(startMs, "start");
  if (!Number.isFinite(hours) || hours < 0) {
    throw new RangeError(`working hours must be a finite number >= 0: ${hours}`);
  }
  let remaining = Math.round(hours * MS_PER_HOUR);
  // The start day, then whole working days of at least DAY_MS_MIN each, and a spare one.
  const scan = 1 + workingScanDays(cal, Math.ceil(remaining / DAY_MS_MIN) + 1);
  let day = dayAt(cal.timezone, startMs);
  for (let i = 0; i < scan; i++) {
    if (isWorkingDate(cal, day.dayOfWeek, day.iso)) {
      const from = Math.max(day.start, startMs);
      const available = day.end - from;
      // `<=`: a deadline used up exactly at the day's end is the end instant (the boundary).
      if (remaining <= available) return from + remaining;
      remaining -= available;
    }
    day = dayAfter(cal.timezone, day);
  }
  throw new RangeError(
    `${hours} working hours do not fit within ${scan} days of ${new Date(startMs).toISOString()}`,
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
  let day = dayAt(cal.timezone, fromMs);
  for (let i = 0, scan = spanScanDays(fromMs, toMs); i < scan; i++) {
    if (isWorkingDate(cal, day.dayOfWeek, day.iso)) {
      total += Math.max(0, Math.min(day.end, toMs) - Math.max(day.start, fromMs));
    }
    if (day.end >= toMs) return total;
    day = dayAfter(cal.timezone, day);
  }
  throw new RangeError(`no local day of ${cal.timezone} ends after ${toMs}`);
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
  let day = dayAt(cal.timezone, dueMs);
  for (let i = 0, scan = spanScanDays(dueMs, nowMs); i < scan; i++) {
    if (
      isWorkingDate(cal, day.dayOfWeek, day.iso) &&
      Math.max(day.start, dueMs) < Math.min(day.end, nowMs)
    ) count++;
    if (day.end >= nowMs) return count;
    day = dayAfter(cal.timezone, day);
  }
  throw new RangeError(`no local day of ${cal.timezone} ends after ${nowMs}`);
}

/**
 * One local day of a timezone: its ISO date, weekday and the instants it spans. Zone arithmetic
 * is the costly part of every deadline (several per booked shipment), and a day's bounds never
 * change, so each is worked out with Temporal once and kept (a few thousand per zone at most).
 */
interface LocalDay {
  /** Days since 1970-01-01 of the local date. */
  readonly epochDay: number;
  readonly iso: string;
  /** ISO weekday, 1 Monday to 7 Sunday. */
  readonly dayOfWeek: number;
  /** The first instant of the day (00:00, or later where a DST change skips midnight). */
  readonly start: number;
  /** The next day's first instant. */
  readonly end: number;
}

const MS_PER_DAY = 86_400_000;
const LOCAL_DAYS_KEPT_MAX = 20_000;
const localDays = new Map<string, Map<number, LocalDay>>();

function dayOf(timezone: string, epochDay: number): LocalDay {
  let days = localDays.get(timezone);
  if (!days) localDays.set(timezone, days = new Map());
  let day = days.get(epochDay);
  if (!day) {
    if (days.size >= LOCAL_DAYS_KEPT_MAX) days.clear();
    const utc = new Date(epochDay * MS_PER_DAY);
    const date = new Temporal.PlainDate(
      utc.getUTCFullYear(),
      utc.getUTCMonth() + 1,
      utc.getUTCDate(),
    );
    day = {
      epochDay,
      iso: date.toString(),
      dayOfWeek: date.dayOfWeek,
      start: date.toZonedDateTime(timezone).epochMilliseconds,
      end: date.add({ days: 1 }).toZonedDateTime(timezone).epochMilliseconds,
    };
    days.set(epochDay, day);
  }
  return day;
}

/**
 * The local day holding an instant. Every UTC offset lies within a day of UTC, so the local date
 * is the UTC date or one either side: the one whose bounds hold the instant.
 */
function dayAt(timezone: string, ms: number): LocalDay {
  const utcDay = Math.floor(ms / MS_PER_DAY);
  for (const epochDay of [utcDay, utcDay - 1, utcDay + 1]) {
    const day = dayOf(timezone, epochDay);
    if (day.start <= ms && ms < day.end) return day;
  }
  throw new RangeError(`no local day of ${timezone} holds ${ms}`);
}

function dayAfter(timezone: string, day: LocalDay): LocalDay {
  return dayOf(timezone, day.epochDay + 1);
}

/**
 * The local days `[fromMs, toMs)` touches, at most: each lasts at least DAY_MS_MIN, plus the two
 * it starts and ends in. Refused past CALENDAR_SCAN_DAYS_MAX (nonsense input, not a deadline).
 */
function spanScanDays(fromMs: number, toMs: number): number {
  if (toMs - fromMs > CALENDAR_SCAN_DAYS_MAX * MS_PER_DAY) {
    throw new RangeError(`span longer than ${CALENDAR_SCAN_DAYS_MAX} days: ${fromMs}..${toMs}`);
  }
  return Math.ceil((toMs - fromMs) / DAY_MS_MIN) + 2;
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
