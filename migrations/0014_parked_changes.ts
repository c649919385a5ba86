/**
 * Changes a projection could not write for a lasting reason (a value a table refuses, a defect a
 * later release fixes) are kept here instead of dropped (product rule: nothing is ever lost):
 * written again at every sweep round until they go in, and listed for the operator. One row per
 * projection and change (`digest` of its JSON), however often it failed. The change is JSON text,
 * not jsonb: jsonb refuses a `\u0000` in a string, which JSON text keeps escaped.
 * Frozen in time: never import app code here.
 */
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("parked_changes")
    .addColumn("projection", "text", (c) => c.notNull())
    .addColumn("digest", "text", (c) => c.notNull())
    .addColumn("subject", "text", (c) => c.notNull())
    .addColumn("payload", "text", (c) => c.notNull())
    .addColumn("error", "text", (c) => c.notNull())
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("parked_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("failed_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint("parked_changes_pkey", ["projection", "digest"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("parked_changes").execute();
}
