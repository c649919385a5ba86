/**
 * Billing events and exports (courier 3.1, 4.3): each ledger entry names the billing event that
 * reports it, and the export that first took it; exports are listed. Frozen in time: never import
 * app code here.
 */
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("ledger_entries").addColumn("event_id", "text").execute();
  await db.schema.alterTable("ledger_entries").addColumn("exported_by", "text").execute();
  await db.schema
    .createIndex("ledger_entries_tenant_created_client_idx")
    .on("ledger_entries")
    .columns(["tenant", "client_id", "created_at"])
    .execute();
  await db.schema
    .createTable("billing_exports")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("tenant", "text", (c) => c.notNull())
    .addColumn("client_id", "text")
    .addColumn("from_date", "text")
    .addColumn("to_date", "text")
    .addColumn("as_of", "timestamptz", (c) => c.notNull())
    .addColumn("marked", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("by", "text", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex("billing_exports_tenant_idx")
    .on("billing_exports")
    .columns(["tenant", "created_at"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("billing_exports").execute();
  await db.schema.dropIndex("ledger_entries_tenant_created_client_idx").execute();
  await db.schema.alterTable("ledger_entries").dropColumn("exported_by").execute();
  await db.schema.alterTable("ledger_entries").dropColumn("event_id").execute();
}
