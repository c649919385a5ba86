/**
 * Recurring deliveries as GET /business/subscriptions lists them (Business API 4.2): a typed read
 * table of the subscription actor's snapshots, newest first, with the status its list filters by.
 * Rebuilt from snapshots already projected.
 * Frozen in time: never import app code here.
 */
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createTable("business_subscriptions")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("tenant", "text", (c) => c.notNull())
    .addColumn("version", "bigint", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .execute();
  await sql`create index business_subscriptions_list_idx
    on business_subscriptions (tenant, created_at desc, id desc)`.execute(db);
  await sql`create index business_subscriptions_status_idx
    on business_subscriptions (tenant, status, created_at desc, id desc)`.execute(db);
  await sql`insert into business_subscriptions (id, tenant, version, created_at, status)
    select s.id, s.tenant, s.version, (s.data->>'created_at')::bigint, s.data->>'status'
    from snapshots s
    where s.type = 'business_subscription' and jsonb_typeof(s.data) = 'object'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("business_subscriptions").execute();
}
