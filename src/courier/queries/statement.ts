/**
 * A client's statement and payments on the query side (courier 4.2 billing view): a period's
 * entries with their billing events as the CSV export shows them (courier 2.6, 3.1), each
 * currency's totals, and the latest payments with their allocations.
 */
import { type Kysely, sql } from "kysely";
import type { Database, LedgerEntryRow } from "../../db/schema.ts";
import { exportStateOf } from "../rules/billing_csv.ts";
import type { LedgerEntry } from "../rules/ledger.ts";
import type { ExportState } from "../../platform/rules/export_state.ts";
import { eventColumns, eventReportOf, ledgerWithEvents } from "./ledger_events.ts";
import { ENTRY_COLUMNS, type EntryColumns, entryOfRow } from "./ledger_rows.ts";

/** Statement rows per answer; a longer period says `truncated` (courier 4.2 statement). */
export const STATEMENT_ENTRIES_MAX = 500;
/** Payments listed in the billing view, newest first. */
export const PAYMENTS_LISTED_MAX = 50;

/** One entry of a statement, with its export and event state. */
export interface StatementEntry {
  readonly entry: LedgerEntry;
  readonly invoice_id: string | null;
  /** The furthest of the state stored and the state reported (courier 3.1). */
  readonly export_state: ExportState;
  /** Delivery of the entry's billing event; null when it has none. */
  readonly event_state: string | null;
  /** The reference the courier's system reported with export_state. */
  readonly external_reference: string | null;
}

/** A currency's posted totals of a statement (minor units). */
export interface StatementTotals {
  readonly currency: string;
  /** What earlier periods left owed (negative: held for the client). */
  readonly opening_minor: number;
  /** Revenue: charges and notes, duties apart. */
  readonly charges_minor: number;
  readonly recoverable_minor: number;
  /** Top-ups, payments and remitted COD (negative). */
  readonly received_minor: number;
}

export interface Statement {
  readonly period: string;
  readonly entries: readonly StatementEntry[];
  readonly truncated: boolean;
  readonly totals: readonly StatementTotals[];
}

/** The statement of a client's period (YYYY-MM), at most STATEMENT_ENTRIES_MAX entries. */
export async function statementOf(
  db: Kysely<Database>,
  tenant: string,
  clientId: string,
  period: string,
): Promise<Statement> {
  // Each entry with its billing event's delivery and acknowledgement as they stand, as the
  // CSV export shows them (courier 2.6, 3.1): the entry's own columns do not follow the event.
  const rows = await ledgerWithEvents(db)
    .select([
      ...ENTRY_COLUMNS.map((c) => `le.${c}` as const),
      "le.invoice_id",
      "le.export_state",
      ...eventColumns(),
    ])
    .where("le.tenant", "=", tenant)
    .where("le.client_id", "=", clientId)
    .where("le.period", "=", period)
    .orderBy("le.seq")
    .limit(STATEMENT_ENTRIES_MAX + 1)
    .execute();
  return {
    period,
    entries: rows.slice(0, STATEMENT_ENTRIES_MAX).map(statementEntryOf),
    truncated: rows.length > STATEMENT_ENTRIES_MAX,
    totals: await totalsOf(db, tenant, clientId, period),
  };
}

/**
 * Revenue and recovered duties apart (courier 2.6 recoverable), posted entries only, by currency:
 * the balance before the period and the period's entries. Periods are YYYY-MM text, so text
 * order is time order: what came before opens the period.
 */
async function totalsOf(
  db: Kysely<Database>,
  tenant: string,
  clientId: string,
  period: string,
): Promise<StatementTotals[]> {
  const totals = await db.selectFrom("ledger_entries")
    .select([
      "currency",
      sql<number>`coalesce(sum(amount_minor) filter (where period < ${period}), 0)::bigint`
        .as("opening"),
      sql<number>`coalesce(sum(amount_minor) filter (where period = ${period} and not recoverable
        and kind not in ('top_up', 'payment', 'cod_remitted')), 0)::bigint`.as("charges"),
      sql<number>`coalesce(sum(amount_minor) filter (where period = ${period}
        and recoverable), 0)::bigint`.as("recoverable"),
      sql<number>`coalesce(sum(amount_minor) filter (where period = ${period} and kind in
        ('top_up', 'payment', 'cod_remitted')), 0)::bigint`.as("received"),
      sql<number>`count(*) filter (where period = ${period})::int`.as("entries"),
    ])
    .where("tenant", "=", tenant)
    .where("client_id", "=", clientId)
    .where("period", "<=", period)
    .where("status", "=", "posted")
    .groupBy("currency")
    .orderBy("currency")
    .execute();
  return totals.filter((t) => Number(t.opening) !== 0 || t.entries > 0).map((t) => ({
    currency: t.currency,
    opening_minor: Number(t.opening),
    charges_minor: Number(t.charges),
    recoverable_minor: Number(t.recoverable),
    received_minor: Number(t.received),
  }));
}

/** A payment as the billing view lists it (courier 4.2). */
export interface PaymentListed {
  readonly reference: string;
  /** Received: positive. */
  readonly amount_minor: number;
  readonly currency: string;
  readonly received_at: Date;
  /** By invoice; null when not known (projected before allocations were kept). */
  readonly allocations: readonly { invoice_id: string; amount_minor: number }[] | null;
}

/** The client's latest PAYMENTS_LISTED_MAX payments, newest first. */
export async function paymentsOf(
  db: Kysely<Database>,
  tenant: string,
  clientId: string,
): Promise<PaymentListed[]> {
  const rows = await db.selectFrom("ledger_entries").selectAll()
    .where("tenant", "=", tenant)
    .where("client_id", "=", clientId)
    .where("kind", "=", "payment")
    .orderBy("seq", "desc")
    .limit(PAYMENTS_LISTED_MAX)
    .execute();
  return rows.map((r) => ({
    reference: r.reference,
    amount_minor: -r.amount_minor,
    currency: r.currency,
    received_at: r.created_at,
    allocations: r.allocations,
  }));
}

function statementEntryOf(
  r: EntryColumns & Pick<LedgerEntryRow, "invoice_id" | "export_state"> & {
    event_state: string | null;
    reported_state: string | null;
    external_references: unknown;
    resolved_reported_state: string | null;
    resolved_external_references: unknown;
  },
): StatementEntry {
  const report = eventReportOf(r);
  const exported = exportStateOf({
    export_state: r.export_state as ExportState,
    reported_state: report?.reported_state ?? null,
    external_references: report?.external_references ?? null,
  });
  return {
    entry: entryOfRow(r),
    invoice_id: r.invoice_id,
    export_state: exported.state,
    event_state: r.event_state,
    external_reference: exported.reference,
  };
}
