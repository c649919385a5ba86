/**
 * The sandbox twin's inbox and going-live readiness (Business API 4.4, appendix 3):
 * `sandbox_inbox`, one row per delivery the built-in inbox received (its exact raw body and
 * headers), listed newest first per business; `sandbox_receiver_steps`, one row per webhook a
 * business's own receiver answered 2xx that a going-live flow needs, keyed by its event id.
 * Frozen in time: never import app code here.
 */
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createTable("sandbox_inbox")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("tenant", "text", (c) => c.notNull())
    .addColumn("version", "bigint", (c) => c.notNull())
    .addColumn("event", "text", (c) => c.notNull())
    .addColumn("event_id", "text", (c) => c.notNull())
    .addColumn("received_at", "bigint", (c) => c.notNull())
    .addColumn("headers", "jsonb", (c) => c.notNull())
    .addColumn("body", "text", (c) => c.notNull())
    .execute();
  await sql`create index sandbox_inbox_newest_idx
    on sandbox_inbox (tenant, received_at desc, id desc)`.execute(db);
  await db.schema.createTable("sandbox_receiver_steps")
    .addColumn("event_id", "text", (c) => c.notNull())
    .addColumn("tenant", "text", (c) => c.notNull())
    .addColumn("step", "text", (c) => c.notNull())
    .addColumn("trip_reference", "text", (c) => c.notNull())
    .addColumn("delivered_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("sandbox_receiver_steps_pk", ["tenant", "event_id"])
    .execute();
  await sql`create index sandbox_receiver_steps_step_idx
    on sandbox_receiver_steps (tenant, step, delivered_at)`.execute(db);
  await sql`create index sandbox_receiver_steps_trip_idx
    on sandbox_receiver_steps (tenant, trip_reference)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("sandbox_receiver_steps").execute();
  await db.schema.dropTable("sandbox_inbox").execute();
}
