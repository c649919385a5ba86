/** Health, milestones and the next obligation (courier 3.2), pure. */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  collectionCountsFrom,
  dayEndsAt,
  dayStartsAt,
  estimateAfterDayPassed,
  healthOf,
  type LifecycleTerms,
  MILESTONES,
  nextObligation,
  type OpenMilestone,
  openMilestone,
  promiseDueAt,
  STEPS,
} from "../../../src/courier/rules/lifecycle.ts";
import { deliveryWindow, type WorkingCalendar } from "../../../src/domain/calendar.ts";
import { addWorkingHours, workingDaysOver } from "../../../src/domain/working_hours.ts";

const TERMS: LifecycleTerms = {
  collection_due_hours: 8,
  depot_dwell_hours: 8,
  border_presentation_hours: 16,
  customs_wait_hours: 16,
  linehaul_hours: 24,
  destination_dwell_hours: 4,
  delivery_attempt_hours: 8,
  redelivery_due_hours: 16,
  no_scan_hours: 24,
  at_risk_pct: 75,
  calendar: { timezone: "Africa/Gaborone", working_days: [1, 2, 3, 4, 5], holidays: [] },
};
const MONDAY_10 = Date.parse("2026-11-02T08:00:00Z"); // 10:00 in Gaborone
const HOUR = 3_600_000;

Deno.test("milestones: deadline and at-risk point count working hours", () => {
  const m = openMilestone(TERMS, "collection", MONDAY_10);
  assert.equal(m.due_at, MONDAY_10 + 8 * HOUR);
  assert.equal(m.at_risk_at, MONDAY_10 + 6 * HOUR);
  assert.equal(m.owner, "courier");
  // Friday 20:00 + 8 working hours: 4 on Friday, 4 on Monday.
  const friday = Date.parse("2026-11-06T18:00:00Z");
  assert.equal(
    openMilestone(TERMS, "linehaul", friday).due_at,
    friday + 4 * HOUR + 48 * HOUR + 20 * HOUR,
  );
  assert.equal(openMilestone(TERMS, "redelivery", MONDAY_10).owner, "recipient");
  assert.equal(openMilestone(TERMS, "customs_clearance", MONDAY_10).owner, "customs");
  assert.equal(
    openMilestone(TERMS, "depot_dwell", MONDAY_10, { atDestination: true }).due_at,
    MONDAY_10 + 4 * HOUR,
  );
  assert.equal(promiseDueAt(TERMS.calendar, "2026-11-04"), Date.parse("2026-11-04T22:00:00Z"));
});

Deno.test("milestones: collection booked after the cut-off counts from the start of its promised day (courier 2.8)", () => {
  const cal = TERMS.calendar;
  // Friday 15:00 in Gaborone, after a 14:00 cut-off: collection promised on Monday.
  const friday15 = Date.parse("2026-11-06T13:00:00Z");
  const monday = Date.parse("2026-11-08T22:00:00Z"); // Monday 00:00 in Gaborone
  assert.equal(collectionCountsFrom(cal, friday15, "2026-11-09"), monday);
  const late = openMilestone(TERMS, "collection", friday15, {
    countFrom: collectionCountsFrom(cal, friday15, "2026-11-09"),
  });
  assert.equal(late.opened_at, friday15, "it opens at booking all the same (3.2)");
  assert.equal(late.due_at, monday + 8 * HOUR);
  assert.equal(late.at_risk_at, monday + 6 * HOUR);
  // Booked before the cut-off, collection is that day: the booking starts the clock, as before.
  assert.equal(collectionCountsFrom(cal, MONDAY_10, "2026-11-02"), MONDAY_10);
  const same = openMilestone(TERMS, "collection", MONDAY_10, {
    countFrom: collectionCountsFrom(cal, MONDAY_10, "2026-11-02"),
  });
  assert.deepEqual(same, openMilestone(TERMS, "collection", MONDAY_10));
});

Deno.test("health: the first that applies, in the order of 3.2, with its reason", () => {
  const open = (name: (typeof MILESTONES)[number], at = MONDAY_10) =>
    openMilestone(TERMS, name, at);
  const base = { status: "in_transit" as const, exception: null };
  const now = MONDAY_10 + HOUR;
  assert.equal(healthOf({ ...base, milestones: [open("linehaul")] }, now).health, "on_schedule");
  assert.equal(
    healthOf({ ...base, milestones: [open("linehaul")] }, MONDAY_10 + 19 * HOUR).health,
    "at_risk",
  );
  assert.equal(
    healthOf({ ...base, milestones: [open("redelivery")] }, now).health,
    "waiting_customer",
  );
  assert.equal(
    healthOf({ ...base, milestones: [open("customs_clearance"), open("redelivery")] }, now).health,
    "waiting_customs",
  );
  assert.equal(
    healthOf({ ...base, milestones: [open("customs_documents"), open("customs_clearance")] }, now)
      .health,
    "waiting_courier",
  );
  const late = healthOf(
    { ...base, milestones: [open("collection"), open("customs_documents")] },
    MONDAY_10 + 9 * HOUR,
  );
  assert.equal(late.health, "late");
  assert.match(late.reason, /collection overdue/);
  assert.equal(
    healthOf(
      { ...base, exception: { reason: "crushed box" }, milestones: [open("collection")] },
      MONDAY_10 + 9 * HOUR,
    )
      .health,
    "exception",
  );
  assert.equal(healthOf({ ...base, status: "delivered", milestones: [] }, now).health, "delivered");
  assert.equal(healthOf({ ...base, status: "cancelled", milestones: [] }, now).health, "closed");
});

Deno.test("health: past a courier-owned deadline is never on schedule or at risk (property)", () => {
  fc.assert(
    fc.property(
      fc.subarray([...MILESTONES], { minLength: 1 }),
      fc.integer({ min: 0, max: 400 }),
      (names, hoursLater) => {
        const milestones: OpenMilestone[] = names.map((n) => openMilestone(TERMS, n, MONDAY_10));
        const now = MONDAY_10 + hoursLater * HOUR;
        const verdict = healthOf({ status: "in_transit", exception: null, milestones }, now);
        const courierLate = milestones.some((m) => m.owner === "courier" && m.due_at <= now);
        if (courierLate) assert.equal(verdict.health, "late");
        const next = nextObligation(milestones);
        assert.ok(next);
        // The next obligation is the first due, the promise only when nothing else is open, and
        // clearance never while the courier owes customs its papers (they come first).
        const papersOwed = names.includes("customs_documents");
        const others = milestones.filter((m) =>
          m.name !== "promise" && !(papersOwed && m.name === "customs_clearance")
        );
        if (others.length > 0) assert.equal(next.due_at, Math.min(...others.map((m) => m.due_at)));
        if (papersOwed) assert.notEqual(next.name, "customs_clearance");
      },
    ),
    { numRuns: 200 },
  );
});

Deno.test("next obligation: papers owed come before the clearance that waits on them, whatever the deadlines; supplied, clearance is next (courier 3.2)", () => {
  const clearance = openMilestone(TERMS, "customs_clearance", MONDAY_10);
  const papers = openMilestone(TERMS, "customs_documents", MONDAY_10 + 4 * HOUR);
  assert.ok(papers.due_at > clearance.due_at, "the papers are due after the clearance");
  const owed = nextObligation([clearance, papers]);
  assert.equal(owed?.name, "customs_documents");
  assert.equal(owed?.owner, "courier");
  const supplied = { ...papers, due_at: clearance.due_at - HOUR, supplied_at: MONDAY_10 + HOUR };
  assert.equal(nextObligation([clearance, supplied])?.name, "customs_clearance");
});

Deno.test("customs steps: only a hold for papers opens customs_documents (courier 3.2)", () => {
  assert.equal(STEPS.customs_hold.headline, "customs_hold");
  assert.deepEqual(STEPS.customs_hold.opens ?? [], []);
  assert.equal(STEPS.documents_requested.headline, "customs_hold");
  assert.deepEqual(STEPS.documents_requested.opens, ["customs_documents"]);
  // Held before presentation (no customs milestone open yet): still waiting on customs.
  const held = { status: "customs_hold" as const, exception: null, milestones: [] };
  assert.equal(healthOf(held, MONDAY_10).health, "waiting_customs");
});

Deno.test("estimate: once its day is over it moves to the next working day of the calendar", () => {
  const cal = {
    timezone: "Africa/Gaborone",
    working_days: [1, 2, 3, 4, 5],
    holidays: [] as string[],
  };
  const localMidnight = (day: string) => Date.parse(`${day}T00:00:00+02:00`);
  // Not over yet, to the last millisecond of Tuesday in Gaborone.
  assert.equal(
    estimateAfterDayPassed(cal, "2026-11-03", localMidnight("2026-11-04") - 1),
    "2026-11-03",
  );
  assert.equal(
    estimateAfterDayPassed(cal, "2026-11-03", localMidnight("2026-11-04")),
    "2026-11-04",
  );
  // A Friday moves past the weekend to Monday.
  assert.equal(
    estimateAfterDayPassed(cal, "2026-11-06", localMidnight("2026-11-07")),
    "2026-11-09",
  );
  // Christmas and Boxing Day are holidays of the calendar: Thursday 24 moves to Monday 28.
  const xmas = { ...cal, holidays: ["2026-12-25", "2026-12-26"] };
  assert.equal(
    estimateAfterDayPassed(xmas, "2026-12-24", localMidnight("2026-12-25")),
    "2026-12-28",
  );
  // The clock further on (a timer fired late): never a day already over.
  assert.equal(
    estimateAfterDayPassed(cal, "2026-11-03", localMidnight("2026-11-05") + HOUR),
    "2026-11-05",
  );
  // The calendar's timezone decides when the day is over, not UTC: 23:30 UTC is already Wednesday.
  assert.equal(
    estimateAfterDayPassed(cal, "2026-11-03", Date.parse("2026-11-03T23:30:00Z")),
    "2026-11-04",
  );
});

Deno.test("lifecycle: a day starts and ends at local midnight, DST days included, asked once or again", () => {
  const zones = ["Africa/Gaborone", "Europe/London", "America/Santiago", "Australia/Lord_Howe"];
  fc.assert(fc.property(
    fc.constantFrom(...zones),
    fc.date({ min: new Date("2020-01-01"), max: new Date("2035-12-31"), noInvalidDate: true }),
    (timeZone, date) => {
      const day = date.toISOString().slice(0, 10);
      const cal = { timezone: timeZone, working_days: [1, 2, 3, 4, 5], holidays: [] };
      const start = Temporal.PlainDate.from(day).toZonedDateTime({ timeZone }).epochMilliseconds;
      const next = Temporal.PlainDate.from(day).add({ days: 1 }).toZonedDateTime({ timeZone });
      for (let i = 0; i < 2; i++) {
        assert.equal(dayStartsAt(cal, day), start);
        assert.equal(dayEndsAt(cal, day), next.epochMilliseconds);
      }
    },
  ));
  // London's spring-forward day is 23 hours long, its autumn day 25.
  const london = { timezone: "Europe/London", working_days: [1, 2, 3, 4, 5], holidays: [] };
  const hours = (day: string) => (dayEndsAt(london, day) - dayStartsAt(london, day)) / 3_600_000;
  assert.equal(hours("2026-03-29"), 23);
  assert.equal(hours("2026-10-25"), 25);
  assert.equal(hours("2026-10-26"), 24);
});

/** Zones with and without daylight saving, half-hour and date-line ones among them. */
const ZONES = [
  "UTC",
  "Africa/Gaborone",
  "Europe/London",
  "America/New_York",
  "America/Santiago",
  "Australia/Lord_Howe",
  "Pacific/Apia",
  "Pacific/Chatham",
  "Asia/Kolkata",
  "Asia/Tehran",
];

const hours = fc.oneof(
  fc.constant(8_784),
  fc.integer({ min: 1, max: 8_784 }),
  fc.double({ min: 0.001, max: 8_784, noNaN: true }),
);

/** What the API accepts (routes/courier/service_levels.ts): 200 holidays, 8,784 hours, 90 days. */
const acceptedTerms = fc.record({
  timezone: fc.constantFrom(...ZONES),
  working_days: fc.uniqueArray(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 7 }),
  holidayCount: fc.integer({ min: 0, max: 200 }),
  // Packed: every holiday on a working day from the booking on, the worst case for every scan.
  packed: fc.boolean(),
  holidayOffsets: fc.array(fc.integer({ min: -30, max: 4_000 }), { maxLength: 200 }),
  bookedAt: fc.integer({ min: Date.parse("2024-01-01"), max: Date.parse("2040-01-01") }),
  cutOff: fc.tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 })).map(
    ([h, m]) => `${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}`,
  ),
  transitDays: fc.integer({ min: 0, max: 90 }),
  hours: fc.tuple(hours, hours, hours, hours, hours, hours, hours, hours, hours),
  atRiskPct: fc.integer({ min: 1, max: 100 }),
});

Deno.test("milestones property: every accepted calendar and service level answers, bounded", () => {
  fc.assert(
    fc.property(acceptedTerms, (a) => {
      const bookedOn = Temporal.Instant.fromEpochMilliseconds(a.bookedAt)
        .toZonedDateTimeISO(a.timezone).toPlainDate();
      const holidays: string[] = [];
      if (a.packed) {
        for (let d = bookedOn; holidays.length < a.holidayCount; d = d.add({ days: 1 })) {
          if (a.working_days.includes(d.dayOfWeek)) holidays.push(d.toString());
        }
      } else {
        for (const o of a.holidayOffsets) holidays.push(bookedOn.add({ days: o }).toString());
      }
      const calendar: WorkingCalendar = {
        timezone: a.timezone,
        working_days: a.working_days,
        holidays,
      };
      const [c, dd, bp, cw, lh, dest, da, rd, ns] = a.hours;
      const terms: LifecycleTerms = {
        collection_due_hours: c,
        depot_dwell_hours: dd,
        border_presentation_hours: bp,
        customs_wait_hours: cw,
        linehaul_hours: lh,
        destination_dwell_hours: dest,
        delivery_attempt_hours: da,
        redelivery_due_hours: rd,
        no_scan_hours: ns,
        at_risk_pct: a.atRiskPct,
        calendar,
      };
      // As booking does (src/courier/flows/booking/, actors/courier/shipment/mod.ts).
      const w = deliveryWindow(calendar, a.bookedAt, a.cutOff, a.transitDays);
      assert.ok(w.collection_on <= w.earliest_delivery && w.earliest_delivery < w.latest_delivery);
      assert.ok(w.collection_on >= bookedOn.toString());
      const from = collectionCountsFrom(calendar, a.bookedAt, w.collection_on);
      for (const m of MILESTONES) {
        const open = m === "promise"
          ? openMilestone(terms, m, a.bookedAt, {
            dueAt: promiseDueAt(calendar, w.latest_delivery),
          })
          : openMilestone(terms, m, a.bookedAt, { countFrom: from });
        assert.ok(Number.isSafeInteger(open.due_at) && open.due_at > from, m);
        assert.ok(open.at_risk_at <= open.due_at, m);
        assert.ok(workingDaysOver(calendar, open.due_at, open.due_at + 30 * 86_400_000) >= 0);
      }
      assert.ok(addWorkingHours(calendar, a.bookedAt, ns) > a.bookedAt);
      const later = estimateAfterDayPassed(
        calendar,
        w.latest_delivery,
        a.bookedAt + 400 * 86_400_000,
      );
      assert.ok(later >= w.latest_delivery);
    }),
    { numRuns: 60 },
  );
});
