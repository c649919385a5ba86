import assert from "node:assert/strict";
import fc from "fast-check";
import {
  addWorkingDays,
  collectionDate,
  collectionMovesAt,
  deliveryWindow,
  isValidTimeZone,
  isWorkingDay,
  nextWorkingDay,
  type WorkingCalendar,
} from "../../src/domain/calendar.ts";

const WEEKDAYS = [1, 2, 3, 4, 5];

/** UK 2025 bank holidays around Easter. */
const LONDON: WorkingCalendar = {
  timezone: "Europe/London",
  working_days: WEEKDAYS,
  holidays: ["2025-04-18", "2025-04-21"],
};

const GABORONE: WorkingCalendar = {
  timezone: "Africa/Gaborone",
  working_days: WEEKDAYS,
  holidays: ["2025-07-01"],
};

function at(iso: string): number {
  return Temporal.Instant.from(iso).epochMilliseconds;
}

function date(iso: string): Temporal.PlainDate {
  return Temporal.PlainDate.from(iso);
}

function collects(cal: WorkingCalendar, instant: string, cutOff = "10:00"): string {
  return collectionDate(cal, at(instant), cutOff).toString();
}

Deno.test("calendar: weekends and holidays are not working days", () => {
  assert.equal(isWorkingDay(LONDON, date("2025-04-17")), true); // Thursday
  assert.equal(isWorkingDay(LONDON, date("2025-04-18")), false); // Good Friday
  assert.equal(isWorkingDay(LONDON, date("2025-04-19")), false); // Saturday
  assert.equal(isWorkingDay(LONDON, date("2025-04-20")), false); // Sunday
  assert.equal(isWorkingDay({ ...LONDON, working_days: [6] }, date("2025-04-19")), true);
});

Deno.test("calendar: next working day skips a weekend and a holiday", () => {
  assert.equal(nextWorkingDay(LONDON, date("2025-04-17")).toString(), "2025-04-22");
  assert.equal(nextWorkingDay(LONDON, date("2025-04-22")).toString(), "2025-04-23");
});

Deno.test("calendar: addWorkingDays counts working days strictly after the date", () => {
  const thursday = date("2025-04-17");
  assert.equal(addWorkingDays(LONDON, thursday, 0).toString(), "2025-04-17");
  assert.equal(addWorkingDays(LONDON, thursday, 1).toString(), "2025-04-22");
  assert.equal(addWorkingDays(LONDON, thursday, 3).toString(), "2025-04-24");
  // n = 0 on a non-working day is the next working day.
  assert.equal(addWorkingDays(LONDON, date("2025-04-19"), 0).toString(), "2025-04-22");
  assert.throws(() => addWorkingDays(LONDON, thursday, -1), RangeError);
  assert.throws(() => addWorkingDays(LONDON, thursday, 1.5), RangeError);
});

Deno.test("calendar: a Friday booking after the cut-off collects on Monday", () => {
  assert.equal(date("2025-06-06").dayOfWeek, 5);
  // Gaborone is UTC+2: 08:30Z is 10:30 local, after a 10:00 cut-off.
  assert.equal(collects(GABORONE, "2025-06-06T08:30:00Z"), "2025-06-09");
});

Deno.test("calendar: collection respects the cut-off in Africa/Gaborone local time", () => {
  assert.equal(collects(GABORONE, "2025-06-06T07:59:59Z"), "2025-06-06"); // 09:59:59 local
  assert.equal(collects(GABORONE, "2025-06-06T08:00:00Z"), "2025-06-09"); // exactly at 10:00
  // 22:30Z Thursday is 00:30 Friday in Gaborone: the local date decides, not the UTC one.
  assert.equal(collects(GABORONE, "2025-06-05T22:30:00Z"), "2025-06-06");
  // A holiday (Tuesday 1 July) before the cut-off still collects the next working day.
  assert.equal(collects(GABORONE, "2025-07-01T06:00:00Z"), "2025-07-02");
});

Deno.test("calendar: cut-off follows London local time across the spring DST change", () => {
  // Friday 28 March 2025 is GMT (UTC+0): 09:30Z is 09:30 local, before 10:00.
  assert.equal(collects(LONDON, "2025-03-28T09:30:00Z"), "2025-03-28");
  // Monday 31 March is BST (UTC+1): the same 09:30Z is 10:30 local, after the cut-off.
  assert.equal(collects(LONDON, "2025-03-31T09:30:00Z"), "2025-04-01");
  assert.equal(collects(LONDON, "2025-03-31T08:59:00Z"), "2025-03-31"); // 09:59 BST
  assert.equal(collects(LONDON, "2025-03-31T09:00:00Z"), "2025-04-01"); // 10:00 BST
  // Sunday 30 March during the skipped hour: not a working day, collect Monday.
  assert.equal(collects(LONDON, "2025-03-30T01:30:00Z"), "2025-03-31");
});

Deno.test("calendar: cut-off follows London local time across the autumn DST change", () => {
  // Friday 24 October 2025 is BST: 09:30Z is 10:30 local, so collection is Monday 27th.
  assert.equal(collects(LONDON, "2025-10-24T09:30:00Z"), "2025-10-27");
  // Monday 27 October is GMT: 09:30Z is 09:30 local, before the cut-off.
  assert.equal(collects(LONDON, "2025-10-27T09:30:00Z"), "2025-10-27");
});

Deno.test("calendar: a cut-off in the hour clocks go back is passed once, at its first showing", () => {
  // spec: courier 2.8: New York's clocks go back at 02:00 EDT on Sunday 1 November 2026, so 01:30
  // shows twice. Past it at 01:40 EDT, a booking at 01:10 EST (half an hour later) is past it too.
  const everyDay = {
    timezone: "America/New_York",
    working_days: [1, 2, 3, 4, 5, 6, 7],
    holidays: [],
  };
  assert.equal(collects(everyDay, "2026-11-01T05:20:00Z", "01:30"), "2026-11-01"); // 01:20 EDT
  assert.equal(collects(everyDay, "2026-11-01T05:30:00Z", "01:30"), "2026-11-02"); // 01:30 EDT
  assert.equal(collects(everyDay, "2026-11-01T05:40:00Z", "01:30"), "2026-11-02"); // 01:40 EDT
  assert.equal(collects(everyDay, "2026-11-01T06:10:00Z", "01:30"), "2026-11-02"); // 01:10 EST
  // A cut-off the clocks skip (02:30 on 8 March 2026) is passed when they jump past it.
  assert.equal(collects(everyDay, "2026-03-08T06:59:59Z", "02:30"), "2026-03-08"); // 01:59:59 EST
  assert.equal(collects(everyDay, "2026-03-08T07:00:00Z", "02:30"), "2026-03-09"); // 03:00 EDT
  // Santiago skips midnight (6 September 2026 starts at 01:00): a 00:00 cut-off is always past.
  const santiago = { ...everyDay, timezone: "America/Santiago" };
  assert.equal(collects(santiago, "2026-09-06T04:00:00Z", "00:00"), "2026-09-07"); // 01:00 -03
  assert.equal(collects(santiago, "2026-09-06T04:00:00Z", "01:00"), "2026-09-07");
  assert.equal(collects(santiago, "2026-09-06T04:59:00Z", "02:00"), "2026-09-06"); // 01:59 -03
});

Deno.test("calendar: a booking before Easter after the cut-off skips both bank holidays", () => {
  assert.equal(collects(LONDON, "2025-04-17T15:00:00Z", "16:00"), "2025-04-22"); // 16:00 BST
  assert.equal(collects(LONDON, "2025-04-17T14:59:00Z", "16:00"), "2025-04-17");
});

Deno.test("calendar: delivery window counts transit days from the collection date", () => {
  // Thursday 17 April after cut-off: collection Tue 22, +2 working days Thu 24, latest Fri 25.
  assert.deepEqual(deliveryWindow(LONDON, at("2025-04-17T12:00:00Z"), "10:00", 2), {
    collection_on: "2025-04-22",
    earliest_delivery: "2025-04-24",
    latest_delivery: "2025-04-25",
  });
  // Friday 6 June in Gaborone before cut-off, same-day transit: Fri, Fri, Mon.
  assert.deepEqual(deliveryWindow(GABORONE, at("2025-06-06T06:00:00Z"), "10:00", 0), {
    collection_on: "2025-06-06",
    earliest_delivery: "2025-06-06",
    latest_delivery: "2025-06-09",
  });
});

Deno.test("calendar: a calendar without working days is refused, not looped on", () => {
  const none = { timezone: "UTC", working_days: [], holidays: [] };
  assert.throws(() => nextWorkingDay(none, date("2025-01-01")), RangeError);
  assert.throws(
    () => addWorkingDays({ ...none, working_days: [0, 8] }, date("2025-01-01"), 0),
    RangeError,
  );
  assert.throws(() => collectionDate(none, at("2025-01-01T00:00:00Z"), "10:00"), RangeError);
  // Every Monday for a century is a holiday: the scan stops at its bound.
  const mondays = (weeks: number) =>
    Array.from({ length: weeks }, (_, i) => date("2025-01-06").add({ weeks: i }).toString());
  const blocked = { timezone: "UTC", working_days: [1], holidays: mondays(5_300) };
  assert.throws(() => nextWorkingDay(blocked, date("2025-01-01")), RangeError);
});

Deno.test("calendar: eleven years of holidays on the one working day still answer exactly", () => {
  // The scan's bound follows from the calendar (7 days per working day or holiday), not a fixed
  // span: 600 Mondays off, the next working day is the Monday after them.
  const holidays = Array.from(
    { length: 600 },
    (_, i) => date("2025-01-06").add({ weeks: i }).toString(),
  );
  const cal = { timezone: "UTC", working_days: [1], holidays };
  assert.equal(nextWorkingDay(cal, date("2025-01-01")).toString(), "2036-07-07");
  assert.equal(addWorkingDays(cal, date("2025-01-01"), 2).toString(), "2036-07-14");
});

Deno.test("calendar: malformed cut-off is refused", () => {
  for (const bad of ["24:00", "9:00", "10:60", "10-00", ""]) {
    assert.throws(() => collectionDate(LONDON, at("2025-04-17T09:00:00Z"), bad), RangeError);
  }
});

Deno.test("calendar: isValidTimeZone accepts IANA names only", () => {
  for (const ok of ["Africa/Gaborone", "Europe/London", "UTC", "America/Argentina/Buenos_Aires"]) {
    assert.equal(isValidTimeZone(ok), true, ok);
  }
  for (const bad of ["Mars/Olympus", "", "+02:00", "2025-01-01T00:00Z[Europe/London]", "Z"]) {
    assert.equal(isValidTimeZone(bad), false, bad);
  }
});

// --- properties -------------------------------------------------------------------------------

const RUNS = { numRuns: 300 };

const dayArb = fc.integer({ min: 0, max: 730 }).map((i) => date("2025-01-01").add({ days: i }));

const calendarArb: fc.Arbitrary<WorkingCalendar> = fc.record({
  timezone: fc.constantFrom("Africa/Gaborone", "Europe/London", "America/New_York", "UTC"),
  working_days: fc.uniqueArray(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 7 }),
  holidays: fc.uniqueArray(dayArb.map((d) => d.toString()), { maxLength: 60 }),
});

/** Checked from first principles, independent of isWorkingDay. */
function working(cal: WorkingCalendar, d: Temporal.PlainDate): boolean {
  const weekend = !cal.working_days.includes(d.dayOfWeek);
  return !weekend && !cal.holidays.some((h) => Temporal.PlainDate.compare(date(h), d) === 0);
}

function workingDaysBetween(
  cal: WorkingCalendar,
  from: Temporal.PlainDate,
  to: Temporal.PlainDate,
): number {
  let count = 0;
  for (let d = from.add({ days: 1 }); Temporal.PlainDate.compare(d, to) <= 0;) {
    if (working(cal, d)) count++;
    d = d.add({ days: 1 });
  }
  return count;
}

Deno.test("calendar: addWorkingDays never lands on a weekend or holiday (property)", () => {
  fc.assert(
    fc.property(calendarArb, dayArb, fc.integer({ min: 0, max: 60 }), (cal, start, n) => {
      const result = addWorkingDays(cal, start, n);
      assert.ok(working(cal, result), `${result} for ${start} + ${n}`);
      assert.ok(Temporal.PlainDate.compare(result, start) >= 0);
      // Exactly n working days lie in (start, result] (for n = 0: none before the result).
      assert.equal(
        workingDaysBetween(cal, start, result),
        Math.max(n, working(cal, start) ? 0 : 1),
      );
    }),
    RUNS,
  );
});

Deno.test("calendar: addWorkingDays is monotonic in n (property)", () => {
  fc.assert(
    fc.property(calendarArb, dayArb, fc.integer({ min: 0, max: 40 }), (cal, start, n) => {
      const a = addWorkingDays(cal, start, n);
      const b = addWorkingDays(cal, start, n + 1);
      const cmp = Temporal.PlainDate.compare(a, b);
      // Strictly later, except n = 0 on a non-working day, where both are the next working day.
      if (n === 0 && !working(cal, start)) assert.equal(cmp, 0);
      else assert.equal(cmp, -1, `${a} vs ${b}`);
    }),
    RUNS,
  );
});

const instantArb = fc.integer({ min: at("2025-01-01T00:00:00Z"), max: at("2026-12-31T00:00:00Z") });
const cutOffArb = fc
  .tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }))
  .map(([h, m]) => `${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}`);

Deno.test("calendar: collectionDate respects the cut-off in local time (property)", () => {
  fc.assert(
    fc.property(calendarArb, instantArb, cutOffArb, (cal, bookedAt, cutOff) => {
      const local = Temporal.Instant.fromEpochMilliseconds(bookedAt).toZonedDateTimeISO(
        cal.timezone,
      );
      const localDate = local.toPlainDate();
      const hhmm = local.toPlainTime().toString().slice(0, 5);
      // The second showing of an hour clocks went back over is checked by the property below.
      const earlier = local.toPlainDateTime().toZonedDateTime(cal.timezone, {
        disambiguation: "earlier",
      });
      fc.pre(earlier.epochMilliseconds === bookedAt);
      const before = hhmm < cutOff;
      const result = collectionDate(cal, bookedAt, cutOff);
      assert.ok(working(cal, result));
      if (working(cal, localDate) && before) {
        assert.equal(result.toString(), localDate.toString());
      } else {
        assert.equal(Temporal.PlainDate.compare(result, localDate), 1);
        assert.equal(workingDaysBetween(cal, localDate, result), 1, `${localDate} -> ${result}`);
      }
    }),
    RUNS,
  );
});

Deno.test("calendar: a remembered delivery window is the one worked out for that very instant", () => {
  const cutOffArb = fc.tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }))
    .map(([h, m]) => `${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}`);
  fc.assert(
    fc.property(
      calendarArb,
      instantArb,
      fc.integer({ min: 0, max: 999 }),
      cutOffArb,
      fc.integer({ min: 0, max: 10 }),
      (cal, instant, within, cutOff, transit) => {
        // Another instant of the same second asks first, so the second answer is remembered.
        const second = Math.floor(instant / 1000) * 1000;
        deliveryWindow(cal, second + (999 - within), cutOff, transit);
        const collection = collectionDate(cal, second + within, cutOff);
        const earliest = addWorkingDays(cal, collection, transit);
        assert.deepEqual(deliveryWindow(cal, second + within, cutOff, transit), {
          collection_on: collection.toString(),
          earliest_delivery: earliest.toString(),
          latest_delivery: nextWorkingDay(cal, earliest).toString(),
        });
      },
    ),
  );
  // Either side of a cut-off, a millisecond apart, in two seconds: two answers.
  const before = at("2025-06-05T07:59:59.999Z"); // 09:59:59.999 in Gaborone
  assert.equal(deliveryWindow(GABORONE, before, "10:00", 0).collection_on, "2025-06-05");
  assert.equal(deliveryWindow(GABORONE, before + 1, "10:00", 0).collection_on, "2025-06-06");
});

/** Instants within three hours of a daylight-saving change, in zones that have them. */
const nearChangeArb = fc.record({
  timezone: fc.constantFrom("Europe/London", "America/New_York", "America/Santiago"),
  year: fc.integer({ min: 2025, max: 2030 }),
  which: fc.constantFrom(0, 1),
  offset: fc.integer({ min: -3 * 3_600_000, max: 3 * 3_600_000 }),
}).map(({ timezone, year, which, offset }) => {
  let z = Temporal.PlainDate.from({ year, month: 1, day: 1 }).toZonedDateTime(timezone);
  for (let i = 0; i <= which; i++) z = z.getTimeZoneTransition("next") ?? z;
  return { timezone, at: z.epochMilliseconds + offset };
});

Deno.test("calendar: a later booking never collects earlier, across clock changes (property)", () => {
  fc.assert(
    fc.property(
      nearChangeArb,
      fc.integer({ min: 0, max: 3 * 3_600_000 }),
      cutOffArb,
      ({ timezone, at }, later, cutOff) => {
        const cal = { timezone, working_days: [1, 2, 3, 4, 5, 6, 7], holidays: [] };
        const first = collectionDate(cal, at, cutOff);
        const second = collectionDate(cal, at + later, cutOff);
        assert.ok(Temporal.PlainDate.compare(first, second) <= 0, `${first} then ${second}`);
      },
    ),
    RUNS,
  );
});

Deno.test("calendar: collectionMovesAt is the first instant a booking collects later, and every instant before it collects the same day (property)", () => {
  const sameUntilMoved = (cal: WorkingCalendar, bookedAt: number, cutOff: string, f: number) => {
    const day = collectionDate(cal, bookedAt, cutOff).toString();
    const moves = collectionMovesAt(cal, bookedAt, cutOff);
    assert.ok(moves > bookedAt, `${moves} after ${bookedAt}`);
    const between = bookedAt + Math.floor((moves - 1 - bookedAt) * f);
    assert.equal(collectionDate(cal, between, cutOff).toString(), day);
    assert.equal(collectionDate(cal, moves - 1, cutOff).toString(), day);
    assert.ok(collectionDate(cal, moves, cutOff).toString() > day);
  };
  const fraction = fc.double({ min: 0, max: 1, noNaN: true });
  fc.assert(fc.property(calendarArb, instantArb, cutOffArb, fraction, sameUntilMoved), RUNS);
  fc.assert(
    fc.property(nearChangeArb, cutOffArb, fraction, ({ timezone, at }, cutOff, f) => {
      const cal = { timezone, working_days: [1, 2, 3, 4, 5, 6, 7], holidays: [] };
      sameUntilMoved(cal, at, cutOff, f);
    }),
    RUNS,
  );
  // Monday 13:50 in Gaborone, cut-off 14:00: collected today until 12:00:00Z.
  assert.equal(
    collectionMovesAt(GABORONE, at("2025-06-02T11:50:00Z"), "14:00"),
    at("2025-06-02T12:00:00Z"),
  );
  // Friday after the cut-off: collected Monday, until Monday's cut-off.
  assert.equal(
    collectionMovesAt(GABORONE, at("2025-06-06T13:00:00Z"), "14:00"),
    at("2025-06-09T12:00:00Z"),
  );
});
