import assert from "node:assert/strict";
import fc from "fast-check";
import { isWorkingDay, type WorkingCalendar } from "../../src/domain/calendar.ts";
import {
  addWorkingHours,
  fractionElapsed,
  workingDaysOver,
  workingMsBetween,
} from "../../src/domain/working_hours.ts";

const HOUR = 3_600_000;
const WEEKDAYS = [1, 2, 3, 4, 5];
const EVERY_DAY = [1, 2, 3, 4, 5, 6, 7];

/** UTC+2 all year, no DST. Wednesday 1 July 2026 is Sir Seretse Khama Day. */
const GABORONE: WorkingCalendar = {
  timezone: "Africa/Gaborone",
  working_days: WEEKDAYS,
  holidays: ["2026-07-01"],
};

/** Every day working, so the DST Sundays (29 March, 25 October 2026) are working days. */
const LONDON_EVERY_DAY: WorkingCalendar = {
  timezone: "Europe/London",
  working_days: EVERY_DAY,
  holidays: [],
};

const LONDON_WEEKDAYS: WorkingCalendar = { ...LONDON_EVERY_DAY, working_days: WEEKDAYS };

function at(iso: string): number {
  return Temporal.Instant.from(iso).epochMilliseconds;
}

function iso(ms: number): string {
  return Temporal.Instant.fromEpochMilliseconds(ms).toString();
}

function add(cal: WorkingCalendar, startIso: string, hours: number): string {
  return iso(addWorkingHours(cal, at(startIso), hours));
}

function localDate(cal: WorkingCalendar, ms: number): Temporal.PlainDate {
  return Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO(cal.timezone).toPlainDate();
}

function startOfDay(cal: WorkingCalendar, date: Temporal.PlainDate): number {
  return date.toZonedDateTime(cal.timezone).epochMilliseconds;
}

Deno.test("working hours: Friday 16:00 + 10 h in Gaborone is Monday 02:00", () => {
  assert.equal(Temporal.PlainDate.from("2026-03-06").dayOfWeek, 5);
  // 14:00Z is 16:00 local (UTC+2); 8 h to Friday's end, 2 h on Monday 9 March.
  assert.equal(add(GABORONE, "2026-03-06T16:00:00+02:00", 10), "2026-03-09T00:00:00Z");
  assert.equal(add(GABORONE, "2026-03-06T16:00:00+02:00", 2.5), "2026-03-06T16:30:00Z");
});

Deno.test("working hours: a holiday is skipped", () => {
  // Tuesday 30 June 20:00: 4 h on Tuesday, Wednesday 1 July is a holiday, 6 h on Thursday.
  assert.equal(add(GABORONE, "2026-06-30T20:00:00+02:00", 10), "2026-07-02T04:00:00Z");
  const noHoliday = { ...GABORONE, holidays: [] };
  assert.equal(add(noHoliday, "2026-06-30T20:00:00+02:00", 10), "2026-07-01T04:00:00Z");
  // Starting on the holiday counts from Thursday 00:00.
  assert.equal(add(GABORONE, "2026-07-01T09:00:00+02:00", 1), "2026-07-01T23:00:00Z");
});

Deno.test("working hours: adding 0 hours", () => {
  // Saturday 13:00 -> Monday 00:00 local.
  assert.equal(add(GABORONE, "2026-03-07T13:00:00+02:00", 0), "2026-03-08T22:00:00Z");
  // On a working day, the same instant.
  assert.equal(add(GABORONE, "2026-03-06T16:00:00+02:00", 0), "2026-03-06T14:00:00Z");
  assert.equal(add(GABORONE, "2026-06-30T23:59:59.999+02:00", 0), "2026-06-30T21:59:59.999Z");
});

Deno.test("working hours: a deadline ending with a working day is that day's end instant", () => {
  // Friday 16:00 + 8 h is Saturday 00:00 local (the boundary), not Monday 00:00.
  const friday = at("2026-03-06T16:00:00+02:00");
  const end = addWorkingHours(GABORONE, friday, 8);
  assert.equal(iso(end), "2026-03-06T22:00:00Z");
  assert.equal(iso(addWorkingHours(GABORONE, friday, 8 + 1 / HOUR)), "2026-03-08T22:00:00.001Z");
  // Adding 0 to the boundary (a Saturday instant) normalises it to Monday's start.
  assert.equal(iso(addWorkingHours(GABORONE, end, 0)), "2026-03-08T22:00:00Z");
  assert.equal(workingMsBetween(GABORONE, friday, end), 8 * HOUR);
});

Deno.test("working hours: London spring DST day is 23 real hours", () => {
  // Sunday 29 March 2026: 01:00 GMT becomes 02:00 BST.
  const sunday = "2026-03-29T00:00:00Z"; // 00:00 GMT local
  assert.equal(add(LONDON_EVERY_DAY, sunday, 23), "2026-03-29T23:00:00Z"); // Monday 00:00 BST
  assert.equal(add(LONDON_EVERY_DAY, sunday, 24), "2026-03-30T00:00:00Z"); // Monday 01:00 BST
  assert.equal(
    workingMsBetween(LONDON_EVERY_DAY, at(sunday), at("2026-03-29T23:00:00Z")),
    23 * HOUR,
  );
  // Saturday noon + 24 h of real time is Sunday 12:00Z = 13:00 BST.
  assert.equal(add(LONDON_EVERY_DAY, "2026-03-28T12:00:00Z", 24), "2026-03-29T12:00:00Z");
  // A weekday calendar skips that weekend: Friday 12:00 GMT + 24 h = Monday 12:00 BST.
  assert.equal(add(LONDON_WEEKDAYS, "2026-03-27T12:00:00Z", 24), "2026-03-30T11:00:00Z");
  // A Sunday-only calendar: the 23-hour Sunday ends at Monday 00:00 BST.
  const sundays = { ...LONDON_EVERY_DAY, working_days: [7] };
  assert.equal(add(sundays, "2026-03-27T12:00:00Z", 23), "2026-03-29T23:00:00Z");
});

Deno.test("working hours: London autumn DST day is 25 real hours", () => {
  // Sunday 25 October 2026: 02:00 BST becomes 01:00 GMT.
  const sunday = "2026-10-24T23:00:00Z"; // 00:00 BST local
  assert.equal(add(LONDON_EVERY_DAY, sunday, 24), "2026-10-25T23:00:00Z"); // Sunday 23:00 GMT
  assert.equal(add(LONDON_EVERY_DAY, sunday, 25), "2026-10-26T00:00:00Z"); // Monday 00:00 GMT
  assert.equal(
    workingMsBetween(LONDON_EVERY_DAY, at(sunday), at("2026-10-26T00:00:00Z")),
    25 * HOUR,
  );
  const sundays = { ...LONDON_EVERY_DAY, working_days: [7] };
  assert.equal(add(sundays, "2026-10-24T12:00:00Z", 25), "2026-10-26T00:00:00Z");
  assert.equal(add(sundays, "2026-10-24T12:00:00Z", 26), "2026-11-01T01:00:00Z");
  // Weekdays: Friday 23 October 12:00 BST + 24 h = Monday 26 October 12:00 GMT.
  assert.equal(add(LONDON_WEEKDAYS, "2026-10-23T11:00:00Z", 24), "2026-10-26T12:00:00Z");
});

Deno.test("working hours: invalid input is a RangeError", () => {
  const start = at("2026-03-06T12:00:00Z");
  for (const working_days of [[], [0, 8], [1.5]]) {
    const cal = { ...GABORONE, working_days };
    assert.throws(() => addWorkingHours(cal, start, 1), RangeError);
    assert.throws(() => workingMsBetween(cal, start, start + HOUR), RangeError);
    assert.throws(() => workingDaysOver(cal, start, start + HOUR), RangeError);
  }
  for (const hours of [-1, -1e-9, NaN, Infinity]) {
    assert.throws(() => addWorkingHours(GABORONE, start, hours), RangeError);
  }
  assert.throws(() => addWorkingHours(GABORONE, NaN, 1), RangeError);
  assert.throws(() => addWorkingHours(GABORONE, start + 0.5, 1), RangeError);
  // Ten thousand years of hours do not fit within the scan bound.
  assert.throws(() => addWorkingHours(GABORONE, start, 24 * 365 * 10_000), RangeError);
  assert.throws(() => addWorkingHours({ ...GABORONE, timezone: "Mars/Olympus" }, start, 1));
});

Deno.test("working hours: workingMsBetween counts only working-day time", () => {
  const friday = at("2026-03-06T12:00:00+02:00");
  const monday = at("2026-03-09T12:00:00+02:00");
  assert.equal(workingMsBetween(GABORONE, friday, monday), 24 * HOUR);
  assert.equal(workingMsBetween(GABORONE, monday, friday), 0);
  assert.equal(workingMsBetween(GABORONE, friday, friday), 0);
  // Entirely inside a weekend.
  assert.equal(
    workingMsBetween(GABORONE, at("2026-03-07T01:00:00+02:00"), at("2026-03-08T23:00:00+02:00")),
    0,
  );
});

Deno.test("working hours: fractionElapsed measures the window in working time", () => {
  const opened = at("2026-03-05T12:00:00+02:00"); // Thursday noon
  const due = addWorkingHours(GABORONE, opened, 24);
  assert.equal(iso(due), "2026-03-06T10:00:00Z"); // Friday noon
  assert.equal(fractionElapsed(GABORONE, opened, due, opened - HOUR), 0);
  assert.equal(fractionElapsed(GABORONE, opened, due, opened), 0);
  assert.equal(fractionElapsed(GABORONE, opened, due, at("2026-03-06T06:00:00+02:00")), 0.75);
  assert.equal(fractionElapsed(GABORONE, opened, due, due), 1);
  // Past due: 36 working hours by Friday's end, and the weekend adds nothing.
  assert.equal(fractionElapsed(GABORONE, opened, due, at("2026-03-07T10:00:00+02:00")), 1.5);
  assert.equal(fractionElapsed(GABORONE, opened, due, at("2026-03-08T23:00:00+02:00")), 1.5);
  // A window without working time: 0 before the deadline, 1 from it.
  const satOpen = at("2026-03-07T10:00:00+02:00");
  const sunDue = at("2026-03-08T10:00:00+02:00");
  assert.equal(fractionElapsed(GABORONE, satOpen, sunDue, satOpen + HOUR), 0);
  assert.equal(fractionElapsed(GABORONE, satOpen, sunDue, sunDue), 1);
  assert.equal(fractionElapsed(GABORONE, satOpen, sunDue, sunDue + 48 * HOUR), 1);
});

Deno.test("working hours: workingDaysOver counts working days begun after the deadline", () => {
  const due = at("2026-03-05T12:00:00+02:00"); // Thursday noon
  const over = (nowIso: string) => workingDaysOver(GABORONE, due, at(nowIso));
  assert.equal(workingDaysOver(GABORONE, due, due - 1), 0);
  assert.equal(workingDaysOver(GABORONE, due, due), 0);
  assert.equal(workingDaysOver(GABORONE, due, due + 1), 1); // rest of Thursday
  assert.equal(over("2026-03-05T23:59:59.999+02:00"), 1);
  assert.equal(over("2026-03-06T00:00:00+02:00"), 1); // Friday not begun yet
  assert.equal(over("2026-03-06T00:00:00.001+02:00"), 2);
  assert.equal(over("2026-03-08T12:00:00+02:00"), 2); // weekend adds nothing
  assert.equal(over("2026-03-09T09:00:00+02:00"), 3);
  // A deadline at Friday's end (the boundary): the weekend is not over-time.
  const boundary = at("2026-03-07T00:00:00+02:00");
  assert.equal(workingDaysOver(GABORONE, boundary, at("2026-03-08T12:00:00+02:00")), 0);
  assert.equal(workingDaysOver(GABORONE, boundary, at("2026-03-09T00:00:00+02:00")), 0);
  assert.equal(workingDaysOver(GABORONE, boundary, at("2026-03-09T00:00:00.001+02:00")), 1);
  assert.equal(workingDaysOver(GABORONE, boundary, at("2026-03-10T12:00:00+02:00")), 2);
  // The holiday is not a working day over.
  const tuesday = at("2026-06-30T12:00:00+02:00");
  assert.equal(workingDaysOver(GABORONE, tuesday, at("2026-07-01T12:00:00+02:00")), 1);
  assert.equal(workingDaysOver(GABORONE, tuesday, at("2026-07-02T01:00:00+02:00")), 2);
});

// ---------------------------------------------------------------------------------------------
// Properties over random calendars, starts in 2026-2027 and 0..200 hours.

const TIMEZONES = [
  "Africa/Gaborone",
  "Europe/London",
  "America/New_York",
  "Australia/Sydney",
  "Asia/Kolkata",
  // DST changes at local midnight: some days start at 01:00.
  "America/Santiago",
];

const FIRST_DAY = Temporal.PlainDate.from("2026-01-01");
const DAYS_2026_2027 = 730;
const FROM = at("2026-01-01T00:00:00Z");
const UNTIL = at("2028-01-01T00:00:00Z");

const calendarArb: fc.Arbitrary<WorkingCalendar> = fc.record({
  timezone: fc.constantFrom(...TIMEZONES),
  working_days: fc.uniqueArray(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 7 }),
  holidays: fc.uniqueArray(
    fc.integer({ min: 0, max: DAYS_2026_2027 - 1 }).map((d) =>
      FIRST_DAY.add({ days: d }).toString()
    ),
    { maxLength: 40 },
  ),
});

/** How to pick a start; resolved per calendar so local midnights and DST changes get hit. */
type StartSpec =
  | { kind: "instant"; ms: number }
  | { kind: "midnight"; day: number }
  | { kind: "transition"; ms: number; offsetMinutes: number };

const startArb: fc.Arbitrary<StartSpec> = fc.oneof(
  fc.record({
    kind: fc.constant("instant" as const),
    ms: fc.integer({ min: FROM, max: UNTIL - 1 }),
  }),
  fc.record({
    kind: fc.constant("midnight" as const),
    day: fc.integer({ min: 0, max: DAYS_2026_2027 - 1 }),
  }),
  fc.record({
    kind: fc.constant("transition" as const),
    ms: fc.integer({ min: FROM, max: UNTIL - 1 }),
    offsetMinutes: fc.integer({ min: -26 * 60, max: 26 * 60 }),
  }),
);

function resolveStart(cal: WorkingCalendar, spec: StartSpec): number {
  switch (spec.kind) {
    case "instant":
      return spec.ms;
    case "midnight":
      return startOfDay(cal, FIRST_DAY.add({ days: spec.day }));
    case "transition": {
      const zdt = Temporal.Instant.fromEpochMilliseconds(spec.ms).toZonedDateTimeISO(cal.timezone);
      const next = zdt.getTimeZoneTransition("next");
      const base = next === null ? spec.ms : next.epochMilliseconds;
      return base + spec.offsetMinutes * 60_000;
    }
  }
}

/** Whole hours (to hit day boundaries exactly) or any whole number of milliseconds. */
const hoursArb: fc.Arbitrary<number> = fc.oneof(
  fc.integer({ min: 0, max: 200 }),
  fc.integer({ min: 0, max: 200 * HOUR }).map((ms) => ms / HOUR),
);

const RUNS = { numRuns: 200 };

function onWorkingDay(cal: WorkingCalendar, ms: number): boolean {
  return isWorkingDay(cal, localDate(cal, ms));
}

/** Inside a working day, or exactly the end instant of one (the boundary convention). */
function inWorkingDayOrAtItsEnd(cal: WorkingCalendar, ms: number): boolean {
  const date = localDate(cal, ms);
  if (isWorkingDay(cal, date)) return true;
  return ms === startOfDay(cal, date) && isWorkingDay(cal, date.subtract({ days: 1 }));
}

Deno.test("working hours property: a result never lies strictly inside a non-working day", () => {
  fc.assert(
    fc.property(calendarArb, startArb, hoursArb, (cal, spec, hours) => {
      const start = resolveStart(cal, spec);
      const end = addWorkingHours(cal, start, hours);
      assert.ok(end >= start);
      if (hours > 0) {
        assert.ok(inWorkingDayOrAtItsEnd(cal, end), `${iso(end)} in ${cal.timezone}`);
      } else {
        assert.ok(onWorkingDay(cal, end), `${iso(end)} in ${cal.timezone}`);
        if (onWorkingDay(cal, start)) assert.equal(end, start);
      }
    }),
    RUNS,
  );
});

Deno.test("working hours property: monotonic in hours", () => {
  fc.assert(
    fc.property(calendarArb, startArb, hoursArb, hoursArb, (cal, spec, a, b) => {
      const start = resolveStart(cal, spec);
      const [h1, h2] = a <= b ? [a, b] : [b, a];
      assert.ok(addWorkingHours(cal, start, h1) <= addWorkingHours(cal, start, h2));
    }),
    RUNS,
  );
});

Deno.test("working hours property: workingMsBetween inverts addWorkingHours", () => {
  fc.assert(
    fc.property(calendarArb, startArb, hoursArb, (cal, spec, hours) => {
      // Holds for any start: time before the first working day counts for nothing either way.
      const start = resolveStart(cal, spec);
      const end = addWorkingHours(cal, start, hours);
      assert.ok(Math.abs(workingMsBetween(cal, start, end) - hours * HOUR) <= 1);
    }),
    RUNS,
  );
});

Deno.test("working hours property: additive for a working-day start", () => {
  fc.assert(
    fc.property(calendarArb, startArb, hoursArb, hoursArb, (cal, spec, a, b) => {
      const start = addWorkingHours(cal, resolveStart(cal, spec), 0); // on a working day
      assert.ok(onWorkingDay(cal, start));
      const stepwise = addWorkingHours(cal, addWorkingHours(cal, start, a), b);
      const direct = addWorkingHours(cal, start, a + b);
      if (b > 0) {
        assert.equal(stepwise, direct);
      } else {
        // Equal, except that adding 0 moves a boundary result (the end instant of a working
        // day followed by a non-working day) forward to the next working day's start.
        if (onWorkingDay(cal, direct)) {
          assert.equal(stepwise, direct);
        } else {
          assert.ok(stepwise > direct);
          assert.ok(onWorkingDay(cal, stepwise));
          assert.equal(stepwise, startOfDay(cal, localDate(cal, stepwise)));
          assert.equal(workingMsBetween(cal, direct, stepwise), 0);
        }
      }
    }),
    RUNS,
  );
});

Deno.test("working hours property: over-time and fraction agree with workingMsBetween", () => {
  fc.assert(
    fc.property(calendarArb, startArb, hoursArb, hoursArb, (cal, spec, window, late) => {
      const opened = resolveStart(cal, spec);
      const due = addWorkingHours(cal, opened, window);
      const now = addWorkingHours(cal, due, late);
      const overMs = workingMsBetween(cal, due, now);
      const days = workingDaysOver(cal, due, now);
      assert.equal(days > 0, overMs > 0);
      // Each 25-hour (at most) working day holds some of the over-time.
      assert.ok(days >= Math.ceil(overMs / (25 * HOUR)));
      assert.ok(days <= Math.ceil(late / 22) + 1);
      if (window > 0) {
        const fraction = fractionElapsed(cal, opened, due, now);
        assert.ok(Math.abs(fraction - (window + late) / window) < 1e-6, `${fraction}`);
      }
    }),
    RUNS,
  );
});
