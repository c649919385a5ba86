/**
 * The batches list (Business API 4.2 GET /business/batches) keeps the order batches were made in
 * within one millisecond by their stops' trip numbers (booking order): the trips' read table
 * names each trip's batch. Filled from the snapshots already projected.
 * Frozen in time: never import app code here.
 */
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("business_trips").addColumn("batch_id", "text").execute();
  await sql`update business_trips b set batch_id = s.data->'batch'->>'id'
    from snapshots s
    where s.type = 'business_trip' and s.id = b.id and jsonb_typeof(s.data) = 'object'
      and jsonb_typeof(s.data->'batch') = 'object'`.execute(db);
  await sql`create index business_trips_batch_idx on business_trips (tenant, batch_id, number)
    where batch_id is not null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index business_trips_batch_idx`.execute(db);
  await db.schema.alterTable("business_trips").dropColumn("batch_id").execute();
}
