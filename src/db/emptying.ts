/**
 * Empties one schema's tables for a database reused by the tests (an emptied PGlite, a pooled
 * Postgres schema), as a new schema has them: every table but the migrations' bookkeeping.
 * Only the tables holding rows are truncated, in one TRUNCATE: truncating a table makes its
 * files anew, many times the cost of finding it empty (all 30 on PGlite: about 0.7 s), and a test
 * writes to a few of them.
 */

/** Runs one query with positional parameters, answering its rows. */
export type RowsQuery = <R>(text: string, params: readonly string[]) => Promise<R[]>;

/** The TRUNCATE emptying `schema` (its names qualified), or null when no table holds a row. */
export async function emptyingStatement(query: RowsQuery, schema: string): Promise<string | null> {
  const tables = await query<{ t: string }>(
    `select tablename as t from pg_tables
      where schemaname = $1 and tablename not like 'kysely\\_%'`,
    [schema],
  );
  if (tables.length === 0) return null;
  const names = tables.map(({ t }) => `${quoted(schema)}.${quoted(t)}`);
  const holding = await query<{ i: number }>(
    names.map((n, i) => `select ${i} as i where exists (select from ${n})`).join(" union all "),
    [],
  );
  if (holding.length === 0) return null;
  return `truncate ${holding.map(({ i }) => names[i]).join(", ")} restart identity`;
}

function quoted(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
