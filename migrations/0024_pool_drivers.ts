/**
 * The dispatch pool's drivers as the dispatch board lists them (Business API 1.2: drivers on
 * shift): a typed read table of the pool_driver actor's snapshots, with the on-shift flag its list
 * filters by. Rebuilt from snapshots already projected.
 * Frozen in time: never import app code here.
 */
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createTable("pool_drivers")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("tenant", "text", (c) => c.notNull())
    .addColumn("version", "bigint", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("vehicle_type_id", "integer", (c) => c.notNull())
    .addColumn("zone_id", "text", (c) => c.notNull())
    .addColumn("online", "integer", (c) => c.notNull())
    .execute();
  await sql`create index pool_drivers_online_idx on pool_drivers (tenant, id) where online = 1`
    .execute(db);
  await sql`insert into pool_drivers (id, tenant, version, name, vehicle_type_id, zone_id, online)
    select s.id, s.tenant, s.version, s.data->>'name', (s.data->>'vehicle_type_id')::integer,
      s.data->>'zone_id', case when (s.data->>'online')::boolean then 1 else 0 end
    from snapshots s
    where s.type = 'pool_driver' and jsonb_typeof(s.data) = 'object'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("pool_drivers").execute();
}
