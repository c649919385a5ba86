/**
 * Recurring deliveries (Business API 2.3, 4.2): which days a subscription delivers and when its
 * next occurrence falls, in the business's time zone. Pure: instants in and out, no clock read.
 * Occurrences advance by local date, never by instant, so however the clock moves (a restart, a
 * week's jump, a daylight-saving change) each listed day is due exactly once.
 */
import ct from "countries-and-timezones";
import { canonicalTimeZone, isValidTimeZone } from "../../domain/calendar.ts";
import { SUBSCRIPTION_START_DAYS_MAX } from "../../limits.ts";

/** The trip of an occurrence is booked this long before its pickup time (as a scheduled trip). */
export const OCCURRENCE_BOOKING_LEAD_MS = 60 * 60_000;
/** The outbox of occurrences due, each booked once by the booking flow. */
export const OCCURRENCE_OUTBOX = "business_subscription_occurrence";
/**
 * The occurrences a subscription keeps for its reads, newest last (bounds the actor's state): one
 * still being booked is kept beyond it until its outcome is noted.
 */
export const OCCURRENCES_KEPT = 30;

export interface SubscriptionSchedule {
  /** ISO weekdays, 1 Monday to 7 Sunday, ascending, each once. */
  readonly days_of_week: readonly number[];
  /** `HH:MM`, local time in `timezone`. */
  readonly pickup_time: string;
  /** IANA zone name. */
  readonly timezone: string;
  /** `YYYY-MM-DD`: no occurrence before this local date. */
  readonly starts_on: string;
}

/** One local date's occurrence: the date and its pickup instant (epoch ms). */
export interface Occurrence {
  readonly date: string;
  readonly at: number;
}

/**
 * The business's time zone: its country's, when the country has exactly one (Botswana, South
 * Africa); null when it has several or none, and a subscription must then name its `timezone`.
 * Named for the country: where the zone database files the clocks under another country's city
 * (Botswana's under Africa/Maputo), the country's own name for them (Africa/Gaborone, as the
 * spec's "UTC+2 (Gaborone)"), the same clocks.
 */
export function countryTimeZone(country: string): string | null {
  const code = country.toUpperCase();
  const zones = ct.getCountry(code)?.timezones ?? [];
  if (zones.length !== 1) return null;
  const zone = zones[0]!;
  if (ct.getTimezone(zone)?.countries[0] === code) return zone;
  const own = ct.getTimezonesForCountry(code, { deprecated: true })?.find((z) =>
    z.aliasOf === zone && z.name.includes("/") && z.countries.length === 1 &&
    isValidTimeZone(z.name)
  );
  return own?.name ?? zone;
}

/** A zone a subscription may name: an IANA name Temporal knows. */
export function validTimeZone(zone: string): boolean {
  return isValidTimeZone(zone);
}

/** The name a subscription keeps for a valid zone: the zone database's spelling of it. */
export function subscriptionTimeZone(zone: string): string {
  return canonicalTimeZone(zone);
}

/**
 * The pickup instant of a local date. A time the clocks skip (spring forward) is read as the
 * same wall time after the change, and a time that happens twice (fall back) as its first
 * (Temporal's "compatible"): either way one instant a date.
 */
export function occurrenceOn(s: SubscriptionSchedule, date: string): Occurrence {
  const at = Temporal.PlainDate.from(date)
    .toPlainDateTime(Temporal.PlainTime.from(s.pickup_time))
    .toZonedDateTime(s.timezone, { disambiguation: "compatible" }).epochMilliseconds;
  return { date, at };
}

/** The first listed day on or after `date` (within the next 7 days: a week holds every weekday). */
function listedOnOrAfter(s: SubscriptionSchedule, date: Temporal.PlainDate): Temporal.PlainDate {
  for (let i = 0; i < 7; i++) {
    const day = date.add({ days: i });
    if (s.days_of_week.includes(day.dayOfWeek)) return day;
  }
  throw new RangeError(`no day of the week listed: ${s.days_of_week.join(",")}`);
}

/** The occurrence following the one of `date`: the next listed date strictly after it. */
export function occurrenceAfter(s: SubscriptionSchedule, date: string): Occurrence {
  const next = listedOnOrAfter(s, Temporal.PlainDate.from(date).add({ days: 1 }));
  return occurrenceOn(s, next.toString());
}

/**
 * The first occurrence whose pickup is later than `now`, on a listed date after `after` (the last
 * date already due, if any) and not before `starts_on`. A subscription created or resumed at
 * `now` starts here: the days before (a pause) are not delivered.
 */
export function firstOccurrence(
  s: SubscriptionSchedule,
  now: number,
  after: string | null,
): Occurrence {
  const today = Temporal.PlainDate.from(localDate(s.timezone, now));
  let from = Temporal.PlainDate.from(s.starts_on);
  if (Temporal.PlainDate.compare(today, from) > 0) from = today;
  if (after !== null) {
    const next = Temporal.PlainDate.from(after).add({ days: 1 });
    if (Temporal.PlainDate.compare(next, from) > 0) from = next;
  }
  let o = occurrenceOn(s, listedOnOrAfter(s, from).toString());
  // Today's pickup may be past already: then the next listed day.
  while (o.at <= now) o = occurrenceAfter(s, o.date);
  return o;
}

/**
 * Why `starts_on` cannot be, or null. spec: business 3.1, 7: a past time is refused (as
 * scheduled_at is): a start before today, the zone's date at `now` (today is not past: its
 * pickup, if still ahead, is the first); and one past SUBSCRIPTION_START_DAYS_MAX ahead
 * (9999-12-31 was taken, and its first occurrence read `+010000-01-03`, a date few clients parse).
 */
export function startProblem(startsOn: string, timezone: string, now: number): string | null {
  const today = Temporal.PlainDate.from(localDate(timezone, now));
  if (Temporal.PlainDate.compare(startsOn, today) < 0) {
    return `must not be before today in ${timezone}: ${startsOn}`;
  }
  const last = today.add({ days: SUBSCRIPTION_START_DAYS_MAX });
  if (Temporal.PlainDate.compare(startsOn, last) > 0) {
    return `at most ${SUBSCRIPTION_START_DAYS_MAX} days ahead (${last.toString()}): ${startsOn}`;
  }
  return null;
}

/** When an occurrence's trip is booked: the lead before its pickup. */
export function bookingDueAt(o: Occurrence): number {
  return o.at - OCCURRENCE_BOOKING_LEAD_MS;
}

/** The booking key of one occurrence: every retry of it reaches the same trip. */
export function occurrenceKey(subscriptionId: string, date: string): string {
  return `subscription:${subscriptionId}:${date}`;
}

/** The local date of an instant in a zone, `YYYY-MM-DD`. */
export function localDate(timezone: string, at: number): string {
  return Temporal.Instant.fromEpochMilliseconds(at).toZonedDateTimeISO(timezone).toPlainDate()
    .toString();
}

/** The pickup instant as ISO 8601 with the zone's offset then (a booking's scheduled_at). */
export function localInstant(s: SubscriptionSchedule, at: number): string {
  return Temporal.Instant.fromEpochMilliseconds(at).toZonedDateTimeISO(s.timezone)
    .toString({ timeZoneName: "never", smallestUnit: "second" });
}
