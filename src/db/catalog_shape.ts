/**
 * The shape of one schema's catalog (a fingerprint): its relations, columns, constraints,
 * triggers and functions, whatever the schema is called. A database reused by the tests (an
 * emptied PGlite, a pooled Postgres schema) is fit for the next test only while its shape is the
 * migrations'; a test that added a constraint and failed before dropping it leaves it unfit.
 */

/** Runs one query with positional parameters, answering its rows. */
export type ShapeQuery = (text: string, params: readonly string[]) => Promise<{ x: string }[]>;

export async function catalogShape(
  query: ShapeQuery,
  schema: string,
  options: {
    /**
     * The database's other schemas too (an embedded PGlite is the tests' alone); never on a
     * shared Postgres, where other tests' schemas come and go.
     */
    readonly schemas?: boolean;
  } = {},
): Promise<string> {
  const schemas = options.schemas
    ? `select 'n ' || nspname as x from pg_namespace
        where nspname not like 'pg\\_%' and nspname <> 'information_schema'
      union all `
    : "";
  const rows = await query(
    `with s as (select oid from pg_namespace where nspname = $1)
    select x from (
      ${schemas}select 'r ' || relname || ' ' || relkind::text as x from pg_class
        where relnamespace = (select oid from s)
      union all select 'a ' || c.relname || '.' || a.attname || ' ' ||
          format_type(a.atttypid, a.atttypmod) || ' ' || a.attnotnull::text
        from pg_attribute a join pg_class c on c.oid = a.attrelid
        where c.relnamespace = (select oid from s) and a.attnum > 0 and not a.attisdropped
      union all select 'c ' || conname || ' ' || pg_get_constraintdef(oid) from pg_constraint
        where connamespace = (select oid from s)
      union all select 't ' || t.tgname || ' ' || c.relname from pg_trigger t
        join pg_class c on c.oid = t.tgrelid where c.relnamespace = (select oid from s)
      union all select 'f ' || proname || ' ' || md5(prosrc) from pg_proc
        where pronamespace = (select oid from s)
    ) shape`,
    [schema],
  );
  return rows.map((r) => r.x.replaceAll(schema, "<schema>")).sort().join("\n");
}
