/**
 * Ledger entries with their billing events (courier 2.6, 3.1, 4.3): an entry's own event
 * (`le.event_id`) and, once its conversion was resolved, its `charge.resolved` event
 * (`le.resolved_event_id`). The statement and the CSV export read an entry's event delivery and
 * what the courier's system reported back through this one join: the entry's own columns do not
 * follow the events.
 */
import { type Kysely, sql } from "kysely";
import {
  entryReportOf,
  type Report,
  type ReportedState,
} from "../../platform/rules/export_state.ts";
import type { Database } from "../../db/schema.ts";

/** `ledger_entries as le`, joined to its event `ev` and its resolution's event `rv`. */
export function ledgerWithEvents(db: Kysely<Database>) {
  return db.selectFrom("ledger_entries as le")
    .leftJoin(
      "outbound_events as ev",
      (j) => j.onRef("ev.id", "=", "le.event_id").onRef("ev.tenant", "=", "le.tenant"),
    )
    .leftJoin(
      "outbound_events as rv",
      (j) => j.onRef("rv.id", "=", "le.resolved_event_id").onRef("rv.tenant", "=", "le.tenant"),
    );
}

/**
 * The events' columns of `ledgerWithEvents`: the delivery of the entry's event (`event_state`,
 * null when it has none) and the report columns (`eventReportOf` reads them as one report).
 */
export function eventColumns() {
  return [
    // A charge's event is made just after its entry: until its row lands it is pending.
    sql<string | null>`case when le.event_id is null then null
        else coalesce(ev.status, 'pending') end`.as("event_state"),
    "ev.reported_state",
    "ev.external_references",
    "rv.reported_state as resolved_reported_state",
    "rv.external_references as resolved_external_references",
  ] as const;
}

/** The report columns of a row (eventColumns) as one report (courier 3.1), or null: none yet. */
export function eventReportOf(r: {
  reported_state: string | null;
  external_references: unknown;
  resolved_reported_state: string | null;
  resolved_external_references: unknown;
}): Report | null {
  const reportOf = (state: string | null, refs: unknown): Report | null => {
    if (state === null) return null;
    const parsed = typeof refs === "string" ? JSON.parse(refs) : refs;
    return {
      reported_state: state as ReportedState,
      external_references: (parsed ?? {}) as Partial<Record<ReportedState, string>>,
    };
  };
  return entryReportOf([
    reportOf(r.reported_state, r.external_references),
    reportOf(r.resolved_reported_state, r.resolved_external_references),
  ]);
}
