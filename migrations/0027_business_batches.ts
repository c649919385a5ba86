/**
 * The Business API's batches list (4.2 GET /business/batches): a typed read table of the batch
 * actor's snapshots, newest first, with the external_reference a caller looks one up by; each
 * stop's status is read from business_trips. Rebuilt from snapshots already projected.
 * Frozen in time: never import app code here.
 */
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createTable("business_batches")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("tenant", "text", (c) => c.notNull())
    .addColumn("version", "bigint", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("external_reference", "text")
    .addColumn("stop_count", "integer", (c) => c.notNull())
    .execute();
  await sql`create index business_batches_newest_idx on business_batches (tenant, created_at, id)`
    .execute(db);
  await sql`create index business_batches_reference_idx
    on business_batches (tenant, external_reference)`.execute(db);
  await sql`insert into business_batches (id, tenant, version, created_at, external_reference,
      stop_count)
    select s.id, s.tenant, s.version, (s.data->>'created_at')::bigint,
      coalesce(s.data->>'external_reference', s.data->>'batch_reference'),
      jsonb_array_length(s.data->'stops')
    from snapshots s
    where s.type = 'business_batch' and jsonb_typeof(s.data) = 'object'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("business_batches").execute();
}
