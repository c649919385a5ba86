/**
 * The Business API's trips export (4.1 GET /business/trips/export) filters on the trip's `type`:
 * a column of the trips' read table, filled from the snapshots already projected, with an index
 * for the export's filter and order (oldest first).
 * Frozen in time: never import app code here.
 */
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("business_trips").addColumn("type", "text").execute();
  await sql`update business_trips b set type = s.data->>'type'
    from snapshots s
    where s.type = 'business_trip' and s.id = b.id and jsonb_typeof(s.data) = 'object'`
    .execute(db);
  await sql`update business_trips set type = 'parcel' where type is null`.execute(db);
  await sql`alter table business_trips alter column type set not null`.execute(db);
  await sql`create index business_trips_type_idx on business_trips (tenant, type, created_at, id)`
    .execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index business_trips_type_idx`.execute(db);
  await db.schema.alterTable("business_trips").dropColumn("type").execute();
}
