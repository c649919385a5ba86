/**
 * Working-day date arithmetic in a calendar's IANA timezone (courier 2.8), with Temporal. Pure:
 * the booking instant is passed in, never read from a clock.
 */

export interface WorkingCalendar {
  timezone: string;
  /** ISO weekdays: 1 Monday to 7 Sunday (CONTRACT: calendar). */
  working_days: readonly number[];
  /** `YYYY-MM-DD`. */
  holidays: readonly string[];
}

export interface DeliveryWindow {
  collection_on: string;
  earliest_delivery: string;
  latest_delivery: string;
}

/**
 * A century: a guard against nonsense input only. Every scan is bounded by what it is asked
 * (`workingScanDays`); no calendar and service level the API accepts come near this (at most
 * 200 holidays, 90 transit days, 8,784 hours: about 6,600 days, on one working day a week).
 */
export const CALENDAR_SCAN_DAYS_MAX = 36_525;

/**
 * The calendar days that always hold `wanted` working days strictly after a date: every 7 days
 * hold one of the calendar's weekdays, and each holiday listed takes at most one of them away (one
 * listed twice only widens the bound; calendars are stored with each once). An exact bound, not
 * a guess, so a scan that runs it out is a broken calendar or input. Counted, not deduplicated:
 * every milestone deadline asks.
 */
export function workingScanDays(cal: WorkingCalendar, wanted: number): number {
  const days = 7 * (wanted + cal.holidays.length);
  if (days > CALENDAR_SCAN_DAYS_MAX) {
    throw new RangeError(`${wanted} working days may lie beyond ${CALENDAR_SCAN_DAYS_MAX} days`);
  }
  return days;
}

export function isWorkingDay(cal: WorkingCalendar, date: Temporal.PlainDate): boolean {
  return isWorkingDate(cal, date.dayOfWeek, date.toString());
}

/** The same, for a date known by its ISO weekday (1 Monday to 7 Sunday) and `YYYY-MM-DD`. */
export function isWorkingDate(cal: WorkingCalendar, dayOfWeek: number, iso: string): boolean {
  return cal.working_days.includes(dayOfWeek) && !cal.holidays.includes(iso);
}

/** The first working day strictly after `date`. */
export function nextWorkingDay(cal: WorkingCalendar, date: Temporal.PlainDate): Temporal.PlainDate {
  return addWorkingDays(cal, date, 1);
}

/** The n-th working day strictly after `date`; n = 0 is `date` itself if working, else the next. */
export function addWorkingDays(
  cal: WorkingCalendar,
  date: Temporal.PlainDate,
  n: number,
): Temporal.PlainDate {
  requireWorkingDays(cal);
  if (!Number.isSafeInteger(n) || n < 0) {
    throw new RangeError(`working days must be a non-negative integer: ${n}`);
  }
  if (n === 0 && isWorkingDay(cal, date)) return date;
  const wanted = Math.max(n, 1);
  const scan = workingScanDays(cal, wanted);
  let found = 0;
  for (let i = 1; i <= scan; i++) {
    const day = date.add({ days: i });
    if (isWorkingDay(cal, day)) found++;
    if (found === wanted) return day;
  }
  throw new RangeError(
    `no ${wanted} working days within ${scan} days after: ${date.toString()}`,
  );
}

/**
 * spec: courier 2.8: cut-off is local to the calendar's timezone. Booked on a working day before
 * the cut-off collects that day; otherwise the next working day.
 */
export function collectionDate(
  cal: WorkingCalendar,
  bookedAt: number,
  cutOff: string,
): Temporal.PlainDate {
  const cut = parseCutOff(cutOff);
  const local = Temporal.Instant.fromEpochMilliseconds(bookedAt).toZonedDateTimeISO(cal.timezone);
  const date = local.toPlainDate();
  const beforeCutOff = bookedAt < cutOffInstant(cal.timezone, date, cut);
  return isWorkingDay(cal, date) && beforeCutOff ? date : nextWorkingDay(cal, date);
}

/**
 * spec: courier 2.8: the instant from which a booking no longer collects on the day one made at
 * `bookedAt` does: that collection day's cut-off. Every day between is not a working day, so a
 * booking on it collects that day too; the promise (collection, earliest and latest delivery)
 * holds until then.
 */
export function collectionMovesAt(cal: WorkingCalendar, bookedAt: number, cutOff: string): number {
  const day = collectionDate(cal, bookedAt, cutOff);
  return cutOffInstant(cal.timezone, day, parseCutOff(cutOff));
}

/**
 * spec: courier 2.8: the instant a day's cut-off passes: the first at which the local clock shows
 * it or later. Where clocks go back and it shows twice, the first showing (a later booking never
 * collects earlier); where they jump past it, the jump.
 */
function cutOffInstant(
  timeZone: string,
  date: Temporal.PlainDate,
  cut: Temporal.PlainTime,
): number {
  const first = date.toPlainDateTime(cut).toZonedDateTime(timeZone, { disambiguation: "earlier" });
  if (Temporal.PlainTime.compare(first.toPlainTime(), cut) === 0) return first.epochMilliseconds;
  // Skipped: `first` is before the gap, the transition is where the clock passes the cut-off.
  return (first.getTimeZoneTransition("next") ?? first).epochMilliseconds;
}

/** Windows remembered, at most; the map starts afresh past this (bounded memory). */
const WINDOWS_KEPT_MAX = 10_000;
const windows = new Map<string, DeliveryWindow>();

/**
 * spec: courier 2.2 option dates: earliest after `transitDays` working days, latest one later.
 * Every price and booking asks this for each service level, and the Temporal arithmetic was a
 * tenth of a booking's work: the answer is remembered per calendar, terms and second. Exact,
 * since instants within one second share the local date and their side of a minute cut-off
 * (every zone offset is a whole number of seconds).
 */
export function deliveryWindow(
  cal: WorkingCalendar,
  bookedAt: number,
  cutOff: string,
  transitDays: number,
): DeliveryWindow {
  const key =
    `${Math.floor(bookedAt / 1000)}\u0000${cal.timezone}\u0000${cal.working_days.join()}` +
    `\u0000${cal.holidays.join()}\u0000${cutOff}\u0000${transitDays}`;
  const known = windows.get(key);
  if (known) return { ...known };
  const window = workOutWindow(cal, bookedAt, cutOff, transitDays);
  if (windows.size >= WINDOWS_KEPT_MAX) windows.clear();
  windows.set(key, window);
  return { ...window };
}

function workOutWindow(
  cal: WorkingCalendar,
  bookedAt: number,
  cutOff: string,
  transitDays: number,
): DeliveryWindow {
  const collection = collectionDate(cal, bookedAt, cutOff);
  const earliest = addWorkingDays(cal, collection, transitDays);
  return {
    collection_on: collection.toString(),
    earliest_delivery: earliest.toString(),
    latest_delivery: nextWorkingDay(cal, earliest).toString(),
  };
}

/** An IANA zone name Temporal knows; offsets (`+02:00`) and ISO date strings are refused. */
export function isValidTimeZone(tz: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(tz)) return false;
  try {
    const id = Temporal.Instant.fromEpochMilliseconds(0).toZonedDateTimeISO(tz).timeZoneId;
    return id.toLowerCase() === tz.toLowerCase();
  } catch {
    return false;
  }
}

/**
 * The zone database's own spelling of a valid zone (`africa/gaborone` is `Africa/Gaborone`): zone
 * names match in any case, and a kept name is the one every read and comparison expects.
 */
export function canonicalTimeZone(tz: string): string {
  return Temporal.Instant.fromEpochMilliseconds(0).toZonedDateTimeISO(tz).timeZoneId;
}

/** CONTRACT: service level `cut_off` is `HH:MM` in the calendar's timezone. */
function parseCutOff(cutOff: string): Temporal.PlainTime {
  const m = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(cutOff);
  if (!m) throw new RangeError(`cut-off must be HH:MM: ${cutOff}`);
  return new Temporal.PlainTime(Number(m[1]), Number(m[2]));
}

/** Without a valid weekday every scan would run to its bound; refuse the calendar outright. */
function requireWorkingDays(cal: WorkingCalendar): void {
  if (!cal.working_days.some((d) => Number.isInteger(d) && d >= 1 && d <= 7)) {
    throw new RangeError(`calendar has no working days: [${cal.working_days.join(", ")}]`);
  }
}
