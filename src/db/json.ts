/** Binding JSON the same way on every driver. */
import { type Kysely, type RawBuilder, sql } from "kysely";
import type { Database } from "./schema.ts";

/**
 * A jsonb value bound as text and cast in SQL. postgres.js stringifies anything bound to a
 * jsonb parameter (a string twice) while PGlite passes strings through, and neither can bind
 * JSON `null`; binding text sidesteps all three.
 */
export function jsonb<T>(value: T): RawBuilder<T> {
  const text = JSON.stringify(value);
  if (text === undefined) throw new TypeError(`value is not JSON: ${typeof value}`);
  return sql<T>`cast(${text} as text)::jsonb`;
}

/** A JSON text made already (as JSON.stringify answers it), bound as jsonb() binds a value. */
export function jsonbText<T>(text: string): RawBuilder<T> {
  return sql<T>`cast(${text} as text)::jsonb`;
}

/**
 * An INSERT of `rows` into `table` (their keys are its columns; their values as JSON has them,
 * Dates as ISO text, a jsonb column's value as it is) that reads them from one JSON parameter
 * with the table's own row type, so the statement's text is one whatever the number of rows. A
 * VALUES list written out is a text for each count, which postgres.js prepares and keeps once per
 * pooled connection, as each Postgres backend keeps its plan: a batch writer's hundreds of counts
 * made both grow for as long as the process ran, and each count new to a connection cost a round
 * trip to describe it.
 */
export function insertRows<T extends keyof Database & string>(
  db: Kysely<Database>,
  table: T,
  rows: readonly object[],
  /** Columns whose value is worked out in SQL from the row `r` rather than read from it. */
  computed: Readonly<Record<string, RawBuilder<unknown>>> = {},
) {
  const first = rows[0];
  if (first === undefined) throw new RangeError(`no rows to insert into ${table}`);
  const columns = [...new Set([...Object.keys(first), ...Object.keys(computed)])];
  const read = sql.join(columns.map((c) => computed[c] ?? sql.ref(`r.${c}`)));
  return db.insertInto(table).columns(columns as never).expression(
    sql`select ${read} from jsonb_populate_recordset(null::${sql.table(table)}, ${jsonb(rows)}) r`,
  );
}
