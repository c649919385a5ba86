/**
 * Typed read tables: one row per actor with real columns for the filters and sorts of the lists
 * that read it (ARCHITECTURE 6), projected from the actors' snapshots on the bus. A feature
 * declares its tables (which actor type, which columns, how a snapshot maps to a row); this
 * projection writes them, keyed by id and version, so a replayed, duplicated or reordered change
 * never moves a row back.
 */
import { type Kysely, sql } from "kysely";
import type { ActorChange } from "../bus/bus.ts";
import { BusProjection, parseChange, type ProjectionOptions } from "./bus_projection.ts";
import { jsonb } from "./json.ts";
import type { Database, ParkedChangeTable } from "./schema.ts";

/** How a column is written from its JSON value. */
export type ColumnKind = "text" | "bigint" | "integer" | "text[]" | "jsonb";

/** One read table: the actor type it follows and how a snapshot becomes its row (but its key). */
export interface ReadTable<R extends object> {
  readonly table: keyof Database & string;
  readonly actorType: string;
  readonly columns: { readonly [K in keyof R]-?: ColumnKind };
  /**
   * The row of a snapshot, or null when the table keeps none for it; throws a TypeError when the
   * snapshot is not of the actor's shape.
   */
  rowOf(snapshot: Readonly<Record<string, unknown>>): R | null;
}

// deno-lint-ignore no-explicit-any
export type AnyReadTable = ReadTable<any>;

/** Changes written together when a backlog builds up. */
const READ_TABLES_BATCH_MAX = 500;

/** Projects the snapshots of the declared actor types into their read tables. */
export class ReadTablesProjection extends BusProjection<ActorChange> {
  constructor(
    options: ProjectionOptions,
    name: ParkedChangeTable["projection"],
    tables: readonly AnyReadTable[],
  ) {
    const byType = new Map(tables.map((t) => [t.actorType, t]));
    const statistics = new Statistics();
    super(options, {
      name,
      type: "*",
      limits: { itemsMax: READ_TABLES_BATCH_MAX },
      take: (change) => byType.has(change.type) ? change : null,
      write: async (changes) => {
        const written = await writeReadTables(options.db, byType, changes);
        await statistics.wrote(options.db, written);
      },
      // A parked change is the change as the bus carried it.
      parked: (change) => change,
      unparked: parseChange,
    });
  }
}

/**
 * Writes each actor's newest snapshot of the batch into its table, one statement per table, in
 * one transaction (one table: its statement alone, atomic by itself, one round trip instead of
 * three); answers how many rows each table took.
 */
export async function writeReadTables(
  db: Kysely<Database>,
  tables: ReadonlyMap<string, AnyReadTable>,
  changes: readonly ActorChange[],
): Promise<Map<string, number>> {
  const newest = new Map<string, ActorChange>();
  for (const change of changes) {
    if (!tables.has(change.type) || !isRecord(change.snapshot)) continue;
    const key = `${change.type}\u0000${change.id}`;
    const seen = newest.get(key);
    if (!seen || seen.version < change.version) newest.set(key, change);
  }
  const byTable = new Map<AnyReadTable, KeyedRow[]>();
  for (const change of newest.values()) {
    const table = tables.get(change.type)!;
    const row = keyedRow(table, change);
    if (row === null) continue;
    const rows = byTable.get(table) ?? [];
    rows.push(row);
    byTable.set(table, rows);
  }
  const written = new Map<string, number>();
  if (byTable.size === 0) return written;
  if (byTable.size === 1) {
    const [table, rows] = [...byTable][0]!;
    written.set(table.table, await upsertNewer(db, table, rows));
    return written;
  }
  await db.transaction().execute(async (trx) => {
    for (const [table, rows] of byTable) {
      written.set(table.table, await upsertNewer(trx, table, rows));
    }
  });
  return written;
}

/** Rows written since a table's last ANALYZE before it is analyzed again: at least. */
const ANALYZE_ROWS_MIN = 500;
/** ... and this share of the rows it had then (as Postgres' autovacuum_analyze_scale_factor). */
const ANALYZE_SHARE = 0.1;

/**
 * The planner's statistics of the read tables. Embedded PGlite runs no autovacuum, so a table
 * filled after it was made keeps the statistics of an empty table for ever, and the planner
 * reads a courier's 50,000 open shipments to find one reference. The projection analyzes a table
 * once enough of it was written since (on Postgres autovacuum does too; an extra ANALYZE that
 * rarely is cheap).
 */
export class Statistics {
  readonly #written = new Map<string, number>();
  readonly #rows = new Map<string, number>();

  async wrote(db: Kysely<Database>, written: ReadonlyMap<string, number>): Promise<void> {
    for (const [table, n] of written) {
      const since = (this.#written.get(table) ?? 0) + n;
      this.#written.set(table, since);
      if (since < ANALYZE_ROWS_MIN + ANALYZE_SHARE * (this.#rows.get(table) ?? 0)) continue;
      this.#written.set(table, 0);
      try {
        this.#rows.set(table, await analyze(db, table));
      } catch (error) {
        // Only the plans suffer: the rows are written, and the next writes try again.
        console.warn(`analyze ${table} failed:`, error);
      }
    }
  }
}

/** Analyzes the table; answers how many rows it holds, as the statistics now say. */
export async function analyze(db: Kysely<Database>, table: string): Promise<number> {
  await sql`analyze ${sql.table(table)}`.execute(db);
  const { rows } = await sql<{ n: number }>`select reltuples::bigint as n from pg_class
    where oid = to_regclass(${table})`.execute(db);
  return Math.max(0, Number(rows[0]?.n ?? 0));
}

interface KeyedRow {
  readonly id: string;
  readonly tenant: string;
  readonly version: number;
}

function keyedRow(table: AnyReadTable, change: ActorChange): KeyedRow | null {
  if (!Number.isSafeInteger(change.version) || change.version < 0) {
    throw new RangeError(
      `${table.table} version must be a non-negative integer: ${change.version}`,
    );
  }
  const row = table.rowOf(change.snapshot as Record<string, unknown>);
  if (row === null) return null;
  return { ...row, id: change.id, tenant: change.tenant, version: change.version };
}

/**
 * Writes each row unless the stored one is as new or newer, in one statement whose rows go in
 * one JSON parameter (one statement text whatever the count, planned once).
 */
export async function upsertNewer(
  db: Kysely<Database>,
  table: AnyReadTable,
  rows: readonly KeyedRow[],
): Promise<number> {
  if (rows.length === 0) return 0;
  const columns = Object.keys(table.columns);
  const names = ["id", "tenant", "version", ...columns].map((c) => sql.id(c));
  const values = [
    sql`r->>'id'`,
    sql`r->>'tenant'`,
    sql`(r->>'version')::bigint`,
    ...columns.map((c) => valueOf(c, table.columns[c]!)),
  ];
  const updates = ["tenant", "version", ...columns].map((c) =>
    sql`${sql.id(c)} = excluded.${sql.id(c)}`
  );
  const result = await sql`
    insert into ${sql.table(table.table)} (${sql.join(names)})
    select ${sql.join(values)} from jsonb_array_elements(${jsonb(rows)}) r
    on conflict (id) do update set ${sql.join(updates)}
    where ${sql.table(table.table)}.version < excluded.version`.execute(db);
  return Number(result.numAffectedRows ?? 0n);
}

function valueOf(column: string, kind: ColumnKind) {
  const name = sql.lit(column);
  switch (kind) {
    case "text":
      return sql`r->>${name}`;
    case "bigint":
      return sql`(r->>${name})::bigint`;
    case "integer":
      return sql`(r->>${name})::integer`;
    case "text[]":
      return sql`array(select jsonb_array_elements_text(r->${name}))`;
    case "jsonb":
      return sql`nullif(r->${name}, 'null'::jsonb)`;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
