/**
 * The query side's first tables: actor snapshots, the actor event log and the audit log.
 * Frozen in time: never import app code here; a later change is a new migration.
 */
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("snapshots")
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("id", "text", (c) => c.notNull())
    .addColumn("tenant", "text", (c) => c.notNull())
    .addColumn("version", "bigint", (c) => c.notNull())
    .addColumn("data", "jsonb", (c) => c.notNull())
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint("snapshots_pkey", ["type", "id"])
    .execute();
  await db.schema
    .createIndex("snapshots_tenant_type_idx")
    .on("snapshots")
    .columns(["tenant", "type"])
    .execute();

  await db.schema
    .createTable("actor_events")
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("id", "text", (c) => c.notNull())
    .addColumn("tenant", "text", (c) => c.notNull())
    .addColumn("seq", "integer", (c) => c.notNull())
    .addColumn("at", "timestamptz", (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("event", "jsonb", (c) => c.notNull())
    .addPrimaryKeyConstraint("actor_events_pkey", ["type", "id", "seq"])
    .execute();
  await db.schema
    .createIndex("actor_events_tenant_at_idx")
    .on("actor_events")
    .columns(["tenant", "at"])
    .execute();

  await db.schema
    .createTable("audit_log")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("tenant", "text", (c) => c.notNull())
    .addColumn("at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("actor", "text", (c) => c.notNull())
    .addColumn("action", "text", (c) => c.notNull())
    .addColumn("detail", "jsonb", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("audit_log_tenant_at_idx")
    .on("audit_log")
    .columns(["tenant", "at"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("audit_log").execute();
  await db.schema.dropTable("actor_events").execute();
  await db.schema.dropTable("snapshots").execute();
}
