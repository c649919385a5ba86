/**
 * The billing export on the query side (courier 3.1, 4.3): which entries a file covers, the
 * file's rows streamed in bounded memory, and the marking of pending entries as exported.
 *
 * The export state of an entry is kept here, not in an actor: an export of a million entries
 * marks them in one statement, and "exported" is a fact about the file the query side produced.
 * Each export is also recorded in `billing_exports` (who, when, which range, how many marked).
 * The projection lags: an entry may reach `ledger_entries` after an export whose range covers its
 * date. It is still pending, so the next POST of that client takes it, whatever its own range
 * (`carriedOver`), and a POST's file leaves out what it found pending but did not take: every
 * entry goes out in exactly one export, never in none.
 * What the courier's system reports back (acknowledged and beyond) is held by the entry's billing
 * event actor and read from its snapshot; the file shows the furthest of the two.
 */
import { type Kysely, type RawBuilder, sql, type SqlBool } from "kysely";
import { BILLING_CSV_COLUMNS, billingCsvRow } from "../rules/billing_csv.ts";
import { csvLines } from "../../domain/csv.ts";
import type { ExportState } from "../../platform/rules/export_state.ts";
import type { Database } from "../../db/schema.ts";
import { eventColumns, eventReportOf, ledgerWithEvents } from "./ledger_events.ts";

/** Rows fetched from the database per chunk of the file. */
export const EXPORT_CHUNK_ROWS = 1_000;

export interface ExportRange {
  readonly tenant: string;
  readonly client_id: string | null;
  /** Inclusive bounds on the entry's `created_at` (when it was booked); null: unbounded. */
  readonly from: Date | null;
  readonly to: Date | null;
  /** Entries made after this are not in the file (a POST fixes it before marking). */
  readonly as_of: Date;
}

/**
 * Marks the range's pending entries exported by `exportId`; answers how many. Entries that moved
 * further already stay where they are (3.1 rule 1); one awaiting its FX rate stays pending.
 */
export async function markExported(
  db: Kysely<Database>,
  range: ExportRange,
  exportId: string,
  by: string,
): Promise<number> {
  return await db.transaction().execute(async (trx) => {
    const result = await trx.updateTable("ledger_entries")
      .set({ export_state: "exported", exported_by: exportId, updated_at: sql<Date>`now()` })
      .where(takenConditions(range, "ledger_entries"))
      .where("export_state", "=", "pending")
      // spec: courier 2.6 rule 4: an entry awaiting its rate has no amount to book yet; once
      // resolved it is booked at its resolution and goes out, converted, in the export covering
      // that date (3.1: still pending until then).
      .where("status", "<>", "unresolved_fx")
      .executeTakeFirst();
    const marked = Number(result.numUpdatedRows);
    await trx.insertInto("billing_exports").values({
      id: exportId,
      tenant: range.tenant,
      client_id: range.client_id,
      from_date: range.from?.toISOString() ?? null,
      to_date: range.to?.toISOString() ?? null,
      as_of: range.as_of,
      marked,
      by,
    }).execute();
    return marked;
  });
}

/** The range's conditions on `ledger_entries` (`alias.` before each column when joined). */
function rangeConditions(range: ExportRange, alias: string | null): RawBuilder<SqlBool>[] {
  const col = (name: string) => sql.ref(alias ? `${alias}.${name}` : name);
  const conditions = [
    sql<SqlBool>`${col("tenant")} = ${range.tenant}`,
    sql<SqlBool>`${col("created_at")} <= ${range.as_of}`,
  ];
  if (range.client_id !== null) {
    conditions.push(sql<SqlBool>`${col("client_id")} = ${range.client_id}`);
  }
  if (range.from !== null) conditions.push(sql<SqlBool>`${col("created_at")} >= ${range.from}`);
  if (range.to !== null) conditions.push(sql<SqlBool>`${col("created_at")} <= ${range.to}`);
  return conditions;
}

/**
 * The entries a POST takes (when pending): those of its range, and those dated before its `from`
 * that an earlier export's range covered: they reached the query side after that export, and no
 * later range would hold them.
 */
function takenConditions(range: ExportRange, alias: string): RawBuilder<SqlBool> {
  const within = sql.join(rangeConditions(range, alias), sql` and `);
  if (range.from === null) return sql<SqlBool>`(${within})`;
  const upTo = sql.join(rangeConditions({ ...range, from: null }, alias), sql` and `);
  return sql<SqlBool>`((${within}) or (${upTo} and ${carriedOver(alias)}))`;
}

/** An earlier export's range covers the entry's date (the entry, still pending, missed it). */
function carriedOver(alias: string): RawBuilder<SqlBool> {
  const col = (name: string) => sql.ref(`${alias}.${name}`);
  return sql<SqlBool>`exists (
    select 1 from billing_exports x
    where x.tenant = ${col("tenant")}
      and (x.client_id is null or x.client_id = ${col("client_id")})
      and (x.from_date is null or x.from_date::timestamptz <= ${col("created_at")})
      and ${col("created_at")} <= least(x.as_of, coalesce(x.to_date::timestamptz, x.as_of)))`;
}

/**
 * A POST's file (`exportId`): its range in stored states, less the entries it found pending but
 * did not take (they reached the query side after its marking: the next export takes them, so
 * they are in one file, not two), plus those it carried over from before its range.
 */
function fileConditions(range: ExportRange, exportId: string | null): RawBuilder<SqlBool> {
  const within = sql.join(rangeConditions(range, "le"), sql` and `);
  if (exportId === null) return sql<SqlBool>`(${within})`;
  return sql<SqlBool>`((${within} and not (le.export_state = 'pending'
    and le.status <> 'unresolved_fx')) or le.exported_by = ${exportId})`;
}

interface FileRow {
  created_at: Date;
  client_id: string;
  client_code: string | null;
  shipment: string | null;
  external_customer_code: string | null;
  external_billing_reference: string | null;
  reference: string;
  kind: string;
  amount_minor: number | string;
  currency: string;
  tax_minor: number | string | null;
  status: string;
  payer: string;
  recoverable: boolean;
  reason: string | null;
  source_event: string | null;
  corrects: string | null;
  original_amount_minor: number | string | null;
  original_currency: string | null;
  fx_rate: string | null;
  invoice_id: string | null;
  shipment_status: string | null;
  delivered_at: number | string | null;
  export_state: string;
  event_state: string | null;
  reported_state: string | null;
  external_references: unknown;
  resolved_reported_state: string | null;
  resolved_external_references: unknown;
}

/**
 * The file of a range as a stream of CSV text: the header, then one row per entry, oldest first,
 * each in its stored state (a POST's own file, made after its marking, shows its entries exported:
 * courier 3.1, pending to exported, one CSV row per entry).
 * A POST's file is that of its export (`fileConditions`); a preview's (`exportId` null), the range.
 * Answers once the query has given its first rows: a query that fails does so before the
 * answer's 200 is sent, not as a file cut short after its header.
 */
export async function billingCsvStream(
  db: Kysely<Database>,
  range: ExportRange,
  exportId: string | null = null,
): Promise<ReadableStream<Uint8Array>> {
  const encoder = new TextEncoder();
  const query = ledgerWithEvents(db)
    // The client's code and the shipment's references come from their read tables (the
    // snapshot's top level has no references: they sit under `references`).
    .leftJoin(
      "courier_clients as c",
      (j) => j.onRef("c.id", "=", "le.client_id").onRef("c.tenant", "=", "le.tenant"),
    )
    .leftJoin(
      "shipments as sh",
      (j) => j.onRef("sh.id", "=", "le.shipment").onRef("sh.tenant", "=", "le.tenant"),
    )
    .select([
      "le.created_at",
      "le.client_id",
      "c.code as client_code",
      "le.shipment",
      "sh.external_customer_code",
      "sh.external_billing_reference",
      "le.reference",
      "le.kind",
      "le.amount_minor",
      "le.currency",
      sql<string | null>`case when le.kind = 'shipment' then sh.tax_minor end`.as("tax_minor"),
      "le.status",
      "le.payer",
      "le.recoverable",
      "le.reason",
      "le.source_event",
      "le.corrects",
      "le.original_amount_minor",
      "le.original_currency",
      "le.fx_rate",
      "le.invoice_id",
      "sh.status as shipment_status",
      "sh.delivered_at",
      "le.export_state",
      ...eventColumns(),
    ])
    .where(fileConditions(range, exportId));
  const rows = query.orderBy("le.created_at").orderBy("le.client_id").orderBy("le.seq")
    .stream(EXPORT_CHUNK_ROWS)[Symbol.asyncIterator]();
  let ahead: IteratorResult<unknown> | null = await rows.next();
  let headerSent = false;
  let chunk: string[][] = [];
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!headerSent) {
        headerSent = true;
        controller.enqueue(encoder.encode(csvLines([BILLING_CSV_COLUMNS])));
        return;
      }
      // One database chunk per pull: memory stays at one chunk, however long the file.
      while (chunk.length < EXPORT_CHUNK_ROWS) {
        const next = ahead ?? await rows.next();
        ahead = null;
        if (next.done) break;
        chunk.push(billingCsvRow(factsOf(next.value as FileRow)));
      }
      if (chunk.length > 0) controller.enqueue(encoder.encode(csvLines(chunk)));
      if (chunk.length < EXPORT_CHUNK_ROWS) controller.close();
      chunk = [];
    },
    async cancel() {
      await rows.return?.();
    },
  });
}

function factsOf(r: FileRow) {
  const report = eventReportOf(r);
  const numberOrNull = (v: number | string | null) => v === null ? null : Number(v);
  return {
    ...r,
    amount_minor: Number(r.amount_minor),
    tax_minor: numberOrNull(r.tax_minor),
    original_amount_minor: numberOrNull(r.original_amount_minor),
    delivered_at: numberOrNull(r.delivered_at),
    export_state: r.export_state as ExportState,
    reported_state: report?.reported_state ?? null,
    external_references: report?.external_references ?? null,
  };
}
