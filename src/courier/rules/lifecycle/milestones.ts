/**
 * Opening a milestone (courier 2.8, 3.2): its owner, its allowance in working hours, its deadline
 * and at-risk point on the working calendar frozen with the service terms.
 */
import { addWorkingHours, workingMsBetween } from "../../../domain/working_hours.ts";
import type { LifecycleTerms, Milestone, OpenMilestone, Owner } from "./vocabulary.ts";

const OWNERS: Readonly<Record<Milestone, Owner>> = {
  collection: "courier",
  depot_dwell: "courier",
  linehaul: "courier",
  border_presentation: "courier",
  customs_clearance: "customs",
  customs_documents: "courier",
  delivery_attempt: "courier",
  redelivery: "recipient",
  promise: "courier",
};

const HOUR_MS = 3_600_000;

/** The allowance of a milestone in working hours (courier 2.8); `atDestination` for dwell. */
export function allowanceHours(terms: LifecycleTerms, m: Milestone, atDestination: boolean) {
  switch (m) {
    case "collection":
      return terms.collection_due_hours;
    case "depot_dwell":
      return atDestination ? terms.destination_dwell_hours : terms.depot_dwell_hours;
    case "linehaul":
      return terms.linehaul_hours;
    case "border_presentation":
      return terms.border_presentation_hours;
    case "customs_clearance":
    case "customs_documents":
      return terms.customs_wait_hours;
    case "delivery_attempt":
      return terms.delivery_attempt_hours;
    case "redelivery":
      return terms.redelivery_due_hours;
    case "promise":
      return null;
  }
}

/**
 * A milestone opened at `at` with its deadline and at-risk point on the working calendar. Its
 * working window counts from `countFrom` (never before `at`: collectionCountsFrom), else `at`.
 */
export function openMilestone(
  terms: LifecycleTerms,
  m: Milestone,
  at: number,
  options: { atDestination?: boolean; dueAt?: number; countFrom?: number } = {},
): OpenMilestone {
  const cal = terms.calendar;
  const from = options.countFrom ?? at;
  const hours = allowanceHours(terms, m, options.atDestination ?? false);
  const due = options.dueAt ?? addWorkingHours(cal, from, hours ?? 0);
  // spec: courier 2.8: at risk once at_risk_pct of the working window is used.
  const windowMs = workingMsBetween(cal, from, due);
  const riskAt = addWorkingHours(cal, from, (windowMs * terms.at_risk_pct) / 100 / HOUR_MS);
  return {
    name: m,
    owner: OWNERS[m],
    opened_at: at,
    due_at: due,
    at_risk_at: Math.min(riskAt, due),
    at_risk_raised: false,
    overdue_raised: false,
    supplied_at: null,
  };
}
