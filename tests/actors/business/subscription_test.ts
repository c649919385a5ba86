/**
 * The subscription actor (Business API 4.2): each listed day falls due once however the clock
 * moves (jumps of up to a week, daylight-saving changes, a restart that replays the log), pause,
 * resume and cancel refuse a bad transition with 409 invalid_transition (a second cancel is
 * answered already_cancelled), an occurrence's outcome is recorded once, and a create again or
 * a retry's replay read answers the first.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  type NewSubscription,
  subscriptionActor,
  type SubscriptionCommand,
  type SubscriptionEvent,
  type SubscriptionReply,
  type SubscriptionState,
} from "../../../actors/business/subscription.ts";
import { OCCURRENCE_OUTBOX } from "../../../src/business/rules/subscription.ts";
import type { TimerOp } from "../../../src/runtime/actor.ts";
import { ActorHarness, kinds } from "../../helpers/actor.ts";

type Harness = ActorHarness<
  SubscriptionState,
  SubscriptionCommand,
  SubscriptionEvent,
  SubscriptionReply
>;

const DAY = 86_400_000;

function fresh(overrides: Partial<NewSubscription["schedule"]> = {}): NewSubscription {
  return {
    id: "sub_1",
    business_id: "biz_1",
    segment: "parcel",
    schedule: {
      days_of_week: [2, 4],
      pickup_time: "09:30",
      timezone: "Africa/Johannesburg",
      starts_on: "2026-01-01",
      ...overrides,
    },
    delivery: { type: "parcel" },
    external_reference: null,
    fingerprint: "f1",
  };
}

/**
 * The runtime's scheduler over one actor: the durable timer kept from each decision, fired
 * whenever the clock has passed it, again and again (fireDueTimers), the due dates collected.
 */
class Scheduled {
  timer: number | null = null;
  readonly due: string[] = [];
  constructor(readonly h: Harness) {}
  apply(timers: readonly TimerOp[]): void {
    for (const t of timers) this.timer = t.op === "set" ? t.at : null;
  }
  send(command: SubscriptionCommand): void {
    const step = this.h.must(command);
    this.apply(step.timers);
  }
  advance(ms: number): void {
    this.h.now += ms;
    while (this.timer !== null && this.timer <= this.h.now) {
      this.timer = null;
      const step = this.h.fire("occurrence");
      for (const e of step.events) {
        if (e.kind === "occurrence_due") this.due.push(e.occurrence.date);
      }
      this.apply(step.timers);
    }
  }
}

/** Every listed weekday from `from` to `to`, inclusive. */
function listedDays(days: readonly number[], from: string, to: string): string[] {
  const out: string[] = [];
  let d = Temporal.PlainDate.from(from);
  for (; Temporal.PlainDate.compare(d, Temporal.PlainDate.from(to)) <= 0; d = d.add({ days: 1 })) {
    if (days.includes(d.dayOfWeek)) out.push(d.toString());
  }
  return out;
}

Deno.test("subscription actor: jumps of up to a week, DST changes and replays never double or skip a day", () => {
  const start = Date.parse("2026-03-01T00:00:00Z");
  fc.assert(
    fc.property(
      fc.uniqueArray(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 7 }),
      fc.constantFrom("01:30", "02:30", "09:00", "23:45"),
      fc.constantFrom("Europe/London", "America/New_York", "Australia/Sydney"),
      fc.array(fc.oneof(fc.constant(7 * DAY), fc.integer({ min: 0, max: 8 * DAY })), {
        minLength: 1,
        maxLength: 40,
      }),
      fc.integer({ min: 0, max: 39 }),
      (days, time, zone, jumps, restartAt) => {
        const s = fresh({
          days_of_week: days.sort((a, b) => a - b),
          pickup_time: time,
          timezone: zone,
        });
        const h: Harness = new ActorHarness(subscriptionActor, { now: start });
        let run = new Scheduled(h);
        run.send({ kind: "create", subscription: s });
        const first = h.state!.next!.date;
        for (const [i, ms] of jumps.entries()) {
          if (i === restartAt) {
            // A restart: the state folded again from the stored log, the stored timer kept.
            const timer = run.timer;
            h.state = h.replayed();
            const due = run.due;
            run = new Scheduled(h);
            run.due.push(...due);
            run.timer = timer;
          }
          run.advance(ms);
        }
        const last = h.state!.last_due;
        assert.deepEqual(
          run.due,
          last === null ? [] : listedDays(s.schedule.days_of_week, first, last),
        );
        assert.ok(new Set(run.due).size === run.due.length, "no date twice");
        // Nothing listed is left behind: the next date due is the first listed after the last.
        const next = h.state!.next!;
        assert.ok(next.at - 60 * 60_000 > h.now, "the next due is still ahead of the clock");
      },
    ),
    { numRuns: 80 },
  );
});

Deno.test("subscription actor: each due occurrence goes to the booking outbox with its pickup", () => {
  const h: Harness = new ActorHarness(subscriptionActor, {
    now: Date.parse("2026-11-02T08:00:00+02:00"), // Monday
  });
  const created = h.must({ kind: "create", subscription: fresh() });
  const tuesday = Date.parse("2026-11-03T09:30:00+02:00");
  assert.deepEqual(created.timers, [{ op: "set", name: "occurrence", at: tuesday - 3_600_000 }]);
  h.now = tuesday - 3_600_000;
  const due = h.fire("occurrence");
  assert.deepEqual(kinds(due.events), ["occurrence_due"]);
  assert.deepEqual(subscriptionActor.outbox!(due.events[0]!, h.state), [{
    outbox: OCCURRENCE_OUTBOX,
    payload: {
      business_id: "biz_1",
      subscription_id: "sub_1",
      date: "2026-11-03",
      pickup_at: tuesday,
    },
  }]);
  // The outcome is recorded once; a second handling of the same item changes nothing.
  const booked = { kind: "occurrence_booked", date: "2026-11-03", trip_reference: "BK-1" } as const;
  assert.equal(h.must(booked).events.length, 1);
  assert.equal(h.must(booked).events.length, 0);
  const refused = {
    kind: "occurrence_refused",
    date: "2026-11-03",
    code: "x",
    message: "y",
  } as const;
  assert.equal(h.must(refused).events.length, 0, "a booked date is not refused afterwards");
  assert.deepEqual(h.state!.occurrences.map((o) => [o.date, o.status, o.trip_reference]), [
    ["2026-11-03", "booked", "BK-1"],
  ]);
});

Deno.test("subscription actor: pause, resume and cancel follow the status; a bad one is refused", () => {
  const h: Harness = new ActorHarness(subscriptionActor, {
    now: Date.parse("2026-11-02T08:00:00+02:00"),
  });
  h.must({ kind: "create", subscription: fresh() });
  h.refused(
    { kind: "resume" },
    "invalid_transition",
    /cannot resume a subscription that is active/,
  );
  const paused = h.must({ kind: "pause" });
  assert.deepEqual(paused.timers, [{ op: "cancel", name: "occurrence" }]);
  assert.equal(h.state!.next, null);
  h.refused({ kind: "pause" }, "invalid_transition");
  // A timer left from before the pause finds nothing due.
  assert.deepEqual(h.fire("occurrence").events, []);
  // Resumed on Wednesday: Tuesday's pickup was missed while paused and is not delivered.
  h.now = Date.parse("2026-11-04T12:00:00+02:00");
  const resumed = h.must({ kind: "resume" });
  assert.equal(h.state!.next!.date, "2026-11-05");
  assert.equal(resumed.timers.length, 1);
  h.must({ kind: "cancel" });
  for (const kind of ["pause", "resume"] as const) {
    h.refused({ kind }, "invalid_transition", /that is cancelled/);
  }
  // spec: business 3.1, 7: a second cancel is answered as done, as a trip's, and changes nothing.
  const again = h.must({ kind: "cancel" });
  assert.deepEqual([again.events, again.timers, again.reply!.already_cancelled], [[], [], true]);
  assert.deepEqual(h.fire("occurrence").events, []);
});

Deno.test("subscription actor: a create again answers the first with the same body, else a conflict", () => {
  const h: Harness = new ActorHarness(subscriptionActor, {
    now: Date.parse("2026-11-02T06:00:00Z"),
  });
  h.must({ kind: "create", subscription: fresh() });
  const again = h.must({ kind: "create", subscription: fresh() });
  assert.deepEqual([again.events, again.reply!.replayed], [[], true]);
  h.refused(
    { kind: "create", subscription: { ...fresh(), fingerprint: "other" } },
    "reference_conflict",
  );
  // The retry's read answers the same, and changes nothing.
  const replay = h.must({ kind: "replay", fingerprint: "f1" });
  assert.deepEqual([replay.events, replay.timers, replay.reply!.replayed], [[], [], true]);
  assert.equal(replay.reply!.subscription.id, "sub_1");
  h.refused({ kind: "replay", fingerprint: "other" }, "reference_conflict");
  const none: Harness = new ActorHarness(subscriptionActor);
  none.refused({ kind: "get" }, "not_found");
  none.refused({ kind: "cancel" }, "not_found");
  none.refused({ kind: "replay", fingerprint: "f1" }, "not_found");
});
