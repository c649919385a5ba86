/**
 * Business API 2.3, 4.2 recurring deliveries, the pure rule: occurrences in the business's time
 * zone, one instant a date across daylight-saving changes, the first occurrence after a creation
 * or a pause, and the business's zone from its country.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  countryTimeZone,
  firstOccurrence,
  localDate,
  localInstant,
  occurrenceAfter,
  occurrenceOn,
  type SubscriptionSchedule,
} from "../../../src/business/rules/subscription.ts";

const london = (days: number[], time: string): SubscriptionSchedule => ({
  days_of_week: days,
  pickup_time: time,
  timezone: "Europe/London",
  starts_on: "2026-01-01",
});

Deno.test("subscription rule: a skipped time is read after the change, a doubled one as its first", () => {
  // 2026-03-29: London skips 01:00 to 02:00; 2026-10-25: it lives 01:00 to 02:00 twice.
  const spring = occurrenceOn(london([7], "01:30"), "2026-03-29");
  assert.equal(new Date(spring.at).toISOString(), "2026-03-29T01:30:00.000Z");
  assert.equal(localInstant(london([7], "01:30"), spring.at), "2026-03-29T02:30:00+01:00");
  const autumn = occurrenceOn(london([7], "01:30"), "2026-10-25");
  assert.equal(new Date(autumn.at).toISOString(), "2026-10-25T00:30:00.000Z");
  // The Sunday after each change is the plain wall time again.
  const after = occurrenceAfter(london([7], "01:30"), "2026-10-25");
  assert.deepEqual([after.date, new Date(after.at).toISOString()], [
    "2026-11-01",
    "2026-11-01T01:30:00.000Z",
  ]);
});

Deno.test("subscription rule: the first occurrence is the next listed pickup still ahead", () => {
  const s: SubscriptionSchedule = {
    days_of_week: [2, 4],
    pickup_time: "09:30",
    timezone: "Africa/Johannesburg",
    starts_on: "2026-11-01",
  };
  // Tuesday 2026-11-03 09:29 local: today's pickup is still ahead.
  const before = Date.parse("2026-11-03T09:29:00+02:00");
  assert.equal(firstOccurrence(s, before, null).date, "2026-11-03");
  // One minute after it: Thursday.
  assert.equal(firstOccurrence(s, before + 120_000, null).date, "2026-11-05");
  // A date already due is never due again, even while its pickup is ahead (a resume).
  assert.equal(firstOccurrence(s, before, "2026-11-03").date, "2026-11-05");
  // starts_on ahead of today wins.
  assert.equal(firstOccurrence({ ...s, starts_on: "2026-12-01" }, before, null).date, "2026-12-01");
});

Deno.test("subscription rule: the business's zone is its country's when it has one", () => {
  assert.equal(countryTimeZone("ZA"), "Africa/Johannesburg");
  assert.equal(
    occurrenceOn({ ...london([1], "09:00"), timezone: countryTimeZone("BW")! }, "2026-11-02").at,
    Date.parse("2026-11-02T09:00:00+02:00"),
  );
  assert.equal(countryTimeZone("US"), null, "several zones: the subscription names one");
});

// spec: business 2.1 "UTC+2 (Gaborone)": a country is named by its own zone, never another
// country's that the time zone database files its clocks under.
Deno.test("subscription rule: a country's zone is named for the country (Gaborone, not Maputo)", () => {
  assert.deepEqual(
    ["BW", "ZA", "LS", "SE", "GB", "NA"].map(countryTimeZone),
    [
      "Africa/Gaborone",
      "Africa/Johannesburg",
      "Africa/Maseru",
      "Europe/Stockholm",
      "Europe/London",
      "Africa/Windhoek",
    ],
  );
  assert.equal(countryTimeZone("XX"), null);
});

const ZONES = [
  "Europe/London",
  "America/New_York",
  "Australia/Sydney",
  "Pacific/Chatham",
  "Africa/Gaborone",
] as const;

const schedules = fc.record({
  days_of_week: fc.uniqueArray(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 7 })
    .map((d) => d.sort((a, b) => a - b)),
  pickup_time: fc.tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }))
    .map(([h, m]) => `${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}`),
  timezone: fc.constantFrom(...ZONES),
  starts_on: fc.constant("2026-01-01"),
});

Deno.test("subscription rule: occurrences are every listed day once, at the pickup's wall time", () => {
  fc.assert(
    fc.property(
      schedules,
      fc.integer({ min: 0, max: 360 }),
      (s, startDay) => {
        const now = Date.parse("2026-01-01T00:00:00Z") + startDay * 86_400_000;
        let o = firstOccurrence(s, now, null);
        const dates: string[] = [];
        while (dates.length < 40) {
          dates.push(o.date);
          assert.equal(localDate(s.timezone, o.at), o.date, "the pickup falls on its own date");
          const wall = localInstant(s, o.at).slice(11, 16);
          // The wall time, or (in a skipped hour) later the same day by the change.
          assert.ok(wall >= s.pickup_time, `${o.date} ${wall} before ${s.pickup_time}`);
          o = occurrenceAfter(s, o.date);
        }
        const first = Temporal.PlainDate.from(dates[0]!);
        const last = Temporal.PlainDate.from(dates.at(-1)!);
        const expected: string[] = [];
        for (let d = first; Temporal.PlainDate.compare(d, last) <= 0; d = d.add({ days: 1 })) {
          if (s.days_of_week.includes(d.dayOfWeek)) expected.push(d.toString());
        }
        assert.deepEqual(dates, expected);
      },
    ),
    { numRuns: 60 },
  );
});
