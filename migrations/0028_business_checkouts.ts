/**
 * The Business API's checkouts list (4.1 GET /business/checkouts): a typed read table of the
 * checkout actor's snapshots, with the columns of its filters (status, cart_reference) and its
 * sort (newest first). Rebuilt from snapshots already projected.
 * Frozen in time: never import app code here.
 */
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createTable("business_checkouts")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("tenant", "text", (c) => c.notNull())
    .addColumn("version", "bigint", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("cart_reference", "text")
    .execute();
  await sql`create index business_checkouts_newest_idx
    on business_checkouts (tenant, created_at, id)`.execute(db);
  await sql`create index business_checkouts_status_idx
    on business_checkouts (tenant, status, created_at, id)`.execute(db);
  await sql`create index business_checkouts_cart_idx
    on business_checkouts (tenant, cart_reference)`.execute(db);
  await sql`insert into business_checkouts (id, tenant, version, created_at, status, cart_reference)
    select s.id, s.tenant, s.version, (s.data->>'created_at')::bigint, s.data->>'status',
      s.data->>'cart_reference'
    from snapshots s
    where s.type = 'business_checkout' and jsonb_typeof(s.data) = 'object'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("business_checkouts").execute();
}
