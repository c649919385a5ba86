/**
 * A shipment's days in its calendar's timezone (courier 2.2, 2.3, 2.8): when a day starts and
 * ends, when collection is owed from, the promise's deadline.
 */
import type { WorkingCalendar } from "../../../domain/calendar.ts";

/** The promise's deadline: the end of `latest_delivery` in the calendar's timezone. */
export function promiseDueAt(cal: WorkingCalendar, latestDelivery: string): number {
  return dayEndsAt(cal, latestDelivery);
}

/**
 * spec: courier 2.2, 2.8: collection is owed from the promised collection day, not before: its
 * clock starts at the later of booking and the start of `collection_on` in the calendar's
 * timezone (booked after the cut-off, that is the next working day).
 */
export function collectionCountsFrom(
  cal: WorkingCalendar,
  bookedAt: number,
  collectionOn: string,
): number {
  return Math.max(bookedAt, dayStartsAt(cal, collectionOn));
}

/** The first instant of a day (`YYYY-MM-DD`) in the calendar's timezone. */
export function dayStartsAt(cal: WorkingCalendar, day: string): number {
  return localMidnight(cal.timezone, day, 0);
}

/** The instant a day (`YYYY-MM-DD`) is over in the calendar's timezone: the next local midnight. */
export function dayEndsAt(cal: WorkingCalendar, day: string): number {
  return localMidnight(cal.timezone, day, 1);
}

/** Midnights remembered, at most; the map starts afresh past this (bounded memory). */
const MIDNIGHTS_KEPT_MAX = 10_000;
const midnights = new Map<string, number>();

/**
 * The first instant of the day `daysAfter` days after `day`, in `timeZone`. Every booking asks
 * this for its promise and milestones, and Temporal's zone arithmetic cost about 20 µs of each
 * booking: the answer, fixed for a zone and a day, is remembered.
 */
function localMidnight(timeZone: string, day: string, daysAfter: 0 | 1): number {
  const key = `${timeZone}\u0000${day}\u0000${daysAfter}`;
  const known = midnights.get(key);
  if (known !== undefined) return known;
  const at = Temporal.PlainDate.from(day).add({ days: daysAfter })
    .toZonedDateTime({ timeZone }).epochMilliseconds;
  if (midnights.size >= MIDNIGHTS_KEPT_MAX) midnights.clear();
  midnights.set(key, at);
  return at;
}

/** The first instant of the next local day after `ms`, in the calendar's timezone. */
export function nextLocalDayStart(cal: WorkingCalendar, ms: number): number {
  return Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO(cal.timezone)
    .toPlainDate().add({ days: 1 }).toZonedDateTime({ timeZone: cal.timezone }).epochMilliseconds;
}
