/**
 * The Business API's drivers (Business API 1.2, 2.4; CONTRACT "Driver app"): the trips' read
 * table names the driver holding each trip (a driver lists their own trips), and the drivers'
 * positions are kept, in batches, as the breadcrumb a trip's route_polyline is drawn from.
 * Frozen in time: never import app code here.
 */
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("business_trips").addColumn("driver_id", "text").execute();
  await sql`update business_trips b set driver_id = s.data->'driver'->>'id'
    from snapshots s
    where s.type = 'business_trip' and s.id = b.id and jsonb_typeof(s.data) = 'object'`
    .execute(db);
  await sql`create index business_trips_driver_idx on business_trips (driver_id, created_at, id)
    where driver_id is not null`.execute(db);
  await db.schema.createTable("driver_positions")
    .addColumn("driver_id", "text", (c) => c.notNull())
    .addColumn("at", "bigint", (c) => c.notNull())
    .addColumn("lat", "double precision", (c) => c.notNull())
    .addColumn("lng", "double precision", (c) => c.notNull())
    .addColumn("accuracy", "double precision")
    .addColumn("heading", "double precision")
    .addPrimaryKeyConstraint("driver_positions_pkey", ["driver_id", "at"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("driver_positions").execute();
  await sql`drop index business_trips_driver_idx`.execute(db);
  await db.schema.alterTable("business_trips").dropColumn("driver_id").execute();
}
