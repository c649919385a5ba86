/**
 * The Business API's trips list (4.1 GET /business/trips, /trips/active): a typed read table of
 * the trip actor's snapshots, with the columns of its filters (month, reference, search, test,
 * active) and its sort (newest first). Rebuilt from snapshots already projected.
 * Frozen in time: never import app code here.
 */
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createTable("business_trips")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("tenant", "text", (c) => c.notNull())
    .addColumn("version", "bigint", (c) => c.notNull())
    .addColumn("number", "bigint", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("month", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("active", "integer", (c) => c.notNull())
    .addColumn("is_test", "integer", (c) => c.notNull())
    .addColumn("external_reference", "text")
    .addColumn("search", "text", (c) => c.notNull())
    .execute();
  await sql`create index business_trips_newest_idx on business_trips (tenant, created_at, id)`
    .execute(db);
  await sql`create index business_trips_month_idx on business_trips (tenant, month, created_at, id)`
    .execute(db);
  await sql`create index business_trips_active_idx
    on business_trips (tenant, created_at, id) where active = 1`.execute(db);
  await sql`create index business_trips_external_reference_idx
    on business_trips (tenant, external_reference)`.execute(db);
  await sql`insert into business_trips (id, tenant, version, number, created_at, month, status,
      active, is_test, external_reference, search)
    select s.id, s.tenant, s.version, (s.data->>'id')::bigint, (s.data->>'created_at')::bigint,
      to_char(to_timestamp((s.data->>'created_at')::bigint / 1000.0) at time zone 'UTC',
        'YYYY-MM'),
      s.data->>'status',
      case when s.data->>'status' in ('completed', 'cancelled') then 0 else 1 end,
      case when (s.data->>'is_test')::boolean then 1 else 0 end,
      s.data->>'external_reference',
      lower(concat_ws(' ', s.data->>'reference', s.data->>'passenger_name',
        s.data->'pickup'->>'address', s.data->'dest'->>'address', s.data->>'external_reference'))
    from snapshots s
    where s.type = 'business_trip' and jsonb_typeof(s.data) = 'object'`.execute(db);
  // Changes parked for the snapshots are parked for this table too (as 0016 and 0017 did).
  await sql`insert into parked_changes (projection, digest, subject, payload, error, attempts,
      parked_at, failed_at)
    select 'business_read_tables', digest, subject, payload, error, attempts, parked_at,
      failed_at
    from parked_changes where projection = 'snapshots'
    on conflict do nothing`.execute(db);
  await sql`analyze business_trips`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("business_trips").execute();
}
