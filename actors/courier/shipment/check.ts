/**
 * The check timer fired (courier 2.9, 2.3): every check due by now, earliest first (at risk,
 * overdue, no scan, another working day over the customs wait, the estimated delivery day over).
 * Timers named per check, set before there was one timer, fire here too and do the same.
 */
import { accept } from "../../../src/runtime/actor.ts";
import {
  deliveryEstimateMoves,
  estimateAfterDayPassed,
  estimateAfterSetback,
  healthOf,
  type LifecycleTerms,
  type Milestone,
  nextLocalDayStart,
  type OpenMilestone,
} from "../../../src/courier/rules/lifecycle.ts";
import { addWorkingHours, workingDaysOver } from "../../../src/domain/working_hours.ts";
import { alertDue, lifecycleChanges, lifecycleOf, obligations, termsOf } from "./lifecycle.ts";
import {
  CUSTOMS_TIMER,
  ESTIMATE_TIMER,
  NO_SCAN_TIMER,
  noScanRaised,
  noScanSince,
  rearm,
  wantedTimers,
} from "./timers.ts";
import type { Decided, Lifecycle, Shipment, ShipmentEvent } from "./types.ts";

/** What the checks so far have changed, and the events they call for. */
interface Checks {
  milestones: readonly OpenMilestone[];
  estimate: string;
  noScanFor: number | null;
  customsDays: number;
  customsCheck: number | null;
  readonly events: ShipmentEvent[];
}

export function check(state: Shipment, now: number): Decided {
  if (state.closed_at !== null) return accept([]);
  const terms = termsOf(state);
  const c: Checks = {
    milestones: state.milestones,
    estimate: state.estimated_delivery_on,
    noScanFor: state.no_scan_raised_for,
    customsDays: state.customs_days_alerted,
    customsCheck: state.customs_check_at ?? null,
    events: [],
  };
  const due = [...wantedTimers(state)].filter(([, at]) => at <= now).sort((a, b) => a[1] - b[1]);
  for (const [name] of due) {
    const [what, milestone] = name.split(":") as [string, Milestone | undefined];
    const m = c.milestones.find((o) => o.name === milestone);
    if (what === "risk" && m && !m.at_risk_raised && now >= m.at_risk_at) {
      atRisk(state, c, m);
    } else if (what === "due" && m && !m.overdue_raised && now >= m.due_at) {
      overdue(state, c, m, terms, now);
    } else if (what === NO_SCAN_TIMER) {
      noScan(state, c, terms, now);
    } else if (what === ESTIMATE_TIMER) {
      // spec: courier 3.2: the estimate moves to the next working day; estimate_changed below
      // tells the client's webhook (once per move).
      c.estimate = estimateAfterDayPassed(terms.calendar, c.estimate, now);
    } else if (what === CUSTOMS_TIMER) {
      customsDaysOver(state, c, terms, now);
    }
  }
  return checked(state, c, now);
}

/** A milestone nears its deadline: at risk, once. */
function atRisk(state: Shipment, c: Checks, m: OpenMilestone): void {
  c.milestones = c.milestones.map((o) => o === m ? { ...o, at_risk_raised: true } : o);
  c.events.push(
    alertDue(
      state,
      "milestone_at_risk",
      `${m.name}:${m.opened_at}:risk`,
      m.owner,
      `${m.name} of ${state.waybill} is at risk: due ${new Date(m.due_at).toISOString()}`,
      { milestone: m.name, due_at: new Date(m.due_at).toISOString() },
    ),
  );
}

/**
 * A milestone's deadline passed: overdue, once; a courier's (or customs') delay moves the
 * estimate; customs past its wait counts its first working day over.
 */
function overdue(
  state: Shipment,
  c: Checks,
  m: OpenMilestone,
  terms: LifecycleTerms,
  now: number,
): void {
  c.milestones = c.milestones.map((o) =>
    o === m ? { ...o, overdue_raised: true, at_risk_raised: true } : o
  );
  c.events.push(
    alertDue(
      state,
      "milestone_overdue",
      `${m.name}:${m.opened_at}:due`,
      m.owner,
      `${m.name} of ${state.waybill} is overdue since ${new Date(m.due_at).toISOString()}`,
      { milestone: m.name, due_at: new Date(m.due_at).toISOString() },
    ),
  );
  if (
    (m.owner === "courier" || m.name === "customs_clearance") &&
    deliveryEstimateMoves(state.status)
  ) {
    c.estimate = estimateAfterSetback(terms.calendar, c.estimate, now);
  }
  if (m.name === "customs_clearance") customsOverdue(state, c, m, terms, now);
}

/**
 * spec: courier 2.9: customs_wait_exceeded once per working day over. The first working day over
 * is the rest of the deadline's own day; a wait used up at a working day's end (Friday) is over
 * no working day until the next one begins, so day 1 waits for it (customsDaysOver raises it).
 * Before, day 1 was raised at the deadline, over the weekend, and Monday raised nothing.
 */
function customsOverdue(
  state: Shipment,
  c: Checks,
  m: OpenMilestone,
  terms: LifecycleTerms,
  now: number,
): void {
  const firstOver = addWorkingHours(terms.calendar, m.due_at, 0);
  if (now < firstOver) {
    counted(c, 0);
    // workingDaysOver counts a day once time strictly after its start has passed.
    c.customsCheck = firstOver + 1;
    return;
  }
  counted(c, 1);
  c.events.push(
    alertDue(
      state,
      "customs_wait_exceeded",
      `customs:${m.opened_at}:1`,
      "courier",
      `customs has held ${state.waybill} past its wait (1 working day over)`,
      { days_over: 1 },
    ),
  );
  // A check fired late (the service was down) raises the later days over now, not the next day.
  customsDaysOver(state, c, terms, now);
}

/** No physical scan for the service's no-scan hours: once per silence. */
function noScan(state: Shipment, c: Checks, terms: LifecycleTerms, now: number): void {
  const since = noScanSince(state);
  const due = addWorkingHours(terms.calendar, since, terms.no_scan_hours);
  if (noScanRaised({ ...state, no_scan_raised_for: c.noScanFor }, since) || now < due) return;
  c.noScanFor = since;
  c.events.push(
    alertDue(
      state,
      "no_scan",
      `no_scan:${since}`,
      "courier",
      `no scan of ${state.waybill} since ${new Date(since).toISOString()}`,
      { since: new Date(since).toISOString() },
    ),
  );
}

/**
 * spec: courier 2.9: customs past its wait, once per working day over, each clearance its own
 * days: an earlier border's opened again (presentation.ts) goes on from the days it had alerted,
 * not from the later border's.
 */
function customsDaysOver(state: Shipment, c: Checks, terms: LifecycleTerms, now: number): void {
  const customs = c.milestones.find((o) => o.name === "customs_clearance");
  if (!customs) return;
  const done = customs.days_alerted ?? c.customsDays;
  const over = workingDaysOver(terms.calendar, customs.due_at, now);
  for (let day = done + 1; day <= over; day++) {
    c.events.push(
      alertDue(
        state,
        "customs_wait_exceeded",
        `customs:${customs.opened_at}:${day}`,
        "courier",
        `customs has held ${state.waybill} past its wait (${day} working days over)`,
        { days_over: day },
      ),
    );
  }
  counted(c, Math.max(done, over));
  c.customsCheck = nextLocalDayStart(terms.calendar, now) + 1;
}

/** The open customs_clearance has alerted `days` working days over (and so has the shipment). */
function counted(c: Checks, days: number): void {
  c.customsDays = days;
  c.milestones = c.milestones.map((o) =>
    o.name === "customs_clearance" ? { ...o, days_alerted: days } : o
  );
}

/** The checks' decision: the lifecycle after them and their events, the timer armed again. */
function checked(state: Shipment, c: Checks, now: number): Decided {
  if (
    c.events.length === 0 && c.estimate === state.estimated_delivery_on &&
    c.customsCheck === (state.customs_check_at ?? null)
  ) {
    // Nothing new (a timer that fired early, or a stale one): the check timer is armed again.
    return accept([], undefined, rearm(state, now));
  }
  const verdict = healthOf({ ...state, milestones: c.milestones }, now);
  const lifecycle: Lifecycle = {
    ...lifecycleOf(state),
    milestones: c.milestones,
    health: verdict.health,
    health_reason: verdict.reason,
    estimated_delivery_on: c.estimate,
    no_scan_raised_for: c.noScanFor,
    customs_days_alerted: c.customsDays,
    customs_check_at: c.customsCheck,
    ...obligations(c.milestones, state.status),
  };
  const changed = lifecycleChanges(lifecycleOf(state), lifecycle);
  const all: ShipmentEvent[] = [{ kind: "checked", at: now, changed }, ...c.events];
  if (c.estimate !== state.estimated_delivery_on) {
    all.push({
      kind: "estimate_changed",
      from: state.estimated_delivery_on,
      to: c.estimate,
      at: now,
    });
  }
  return accept(all, undefined, rearm({ ...state, ...lifecycle }, now));
}
