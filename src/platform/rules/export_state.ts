/**
 * The billing export state of a ledger entry and what a courier's system reports back (courier
 * 3.1, 4.3). Pure.
 */

/** Courier 3.1: the export state of an entry, in the only order it may move. */
export const EXPORT_STATES = [
  "pending",
  "exported",
  "acknowledged",
  "invoiced_externally",
  "reconciled",
] as const;
export type ExportState = typeof EXPORT_STATES[number];

/** The states a receiver reports (courier 4.3); `paid` is not one of them (3.1 rule 2). */
export const REPORTED_STATES = ["acknowledged", "invoiced_externally", "reconciled"] as const;
export type ReportedState = typeof REPORTED_STATES[number];

/** Position in EXPORT_STATES; the state only moves to a higher rank (3.1 rule 1). */
export function exportRank(state: ExportState): number {
  return EXPORT_STATES.indexOf(state);
}

/** The further of two states: how a late or repeated report leaves the furthest in place. */
export function furthest<S extends ExportState>(a: S, b: S): S {
  return exportRank(b) > exportRank(a) ? b : a;
}

/** What a courier's system reported for one billing event (courier 4.3). */
export interface Report {
  readonly reported_state: ReportedState;
  readonly external_references: Readonly<Partial<Record<ReportedState, string>>>;
}

/**
 * What was reported for an entry across its events: its charge's, then its conversion's
 * (`charge.resolved`), both about the one entry whose state courier 3.1 tracks. The state is the
 * furthest any reported (rule 1); a state keeps one reference (rule 3), the charge's event's
 * before the resolution's, which is made after it.
 */
export function entryReportOf(reports: readonly (Report | null)[]): Report | null {
  return reports.reduce<Report | null>(
    (merged, r) =>
      r === null || merged === null ? merged ?? r : {
        reported_state: furthest(merged.reported_state, r.reported_state),
        external_references: { ...r.external_references, ...merged.external_references },
      },
    null,
  );
}
