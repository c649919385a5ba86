/** Rows of `ledger_entries` (courier 2.6) back as the ledger entries they were projected from. */
import type { LedgerEntryRow } from "../../db/schema.ts";
import { entryOf, type LedgerEntry } from "../rules/ledger.ts";

/** The columns an entry is read back from (entryOfRow). */
export const ENTRY_COLUMNS = [
  "reference",
  "seq",
  "period",
  "kind",
  "amount_minor",
  "currency",
  "status",
  "recoverable",
  "reason",
  "evidence_path",
  "source_event",
  "original_amount_minor",
  "original_currency",
  "fx_rate",
  "fx_source",
  "corrects",
  "corrects_kind",
  "shipment",
  "created_at",
  "charged_at",
] as const satisfies readonly (keyof LedgerEntryRow)[];

export type EntryColumns = Pick<LedgerEntryRow, typeof ENTRY_COLUMNS[number]>;

/** A projected row back as the ledger entry it was made from. */
export function entryOfRow(row: EntryColumns): LedgerEntry {
  return entryOf({
    reference: row.reference,
    seq: row.seq,
    period: row.period,
    kind: row.kind as LedgerEntry["kind"],
    amount_minor: Number(row.amount_minor),
    currency: row.currency,
    status: row.status as LedgerEntry["status"],
    recoverable: row.recoverable,
    reason: row.reason,
    evidence_path: row.evidence_path,
    source_event: row.source_event,
    original_amount_minor: row.original_amount_minor === null
      ? null
      : Number(row.original_amount_minor),
    original_currency: row.original_currency,
    fx_rate: row.fx_rate,
    fx_source: row.fx_source,
    corrects: row.corrects,
    ...(row.corrects_kind === null
      ? {}
      : { corrects_kind: row.corrects_kind as LedgerEntry["kind"] }),
    shipment: row.shipment,
    created_at: row.created_at.getTime(),
    ...(row.charged_at === null ? {} : { charged_at: row.charged_at.getTime() }),
  });
}
