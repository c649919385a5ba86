/**
 * Business API 8: each known caller's requests in the current minute and UTC day, one row per
 * caller (a business, a courier's client), shared by every instance of a deployment so a plan's
 * limit holds however requests are spread over them. Windows are numbers (minutes and days since
 * the epoch); `granted` is how many requests the row's last update let through, and `per_minute`
 * and `per_day` the limits it applied. Frozen in time: never import app code here.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("rate_counters")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("minute_window", "integer", (c) => c.notNull())
    .addColumn("minute_count", "integer", (c) => c.notNull())
    .addColumn("day_window", "integer", (c) => c.notNull())
    .addColumn("day_count", "integer", (c) => c.notNull())
    .addColumn("granted", "integer", (c) => c.notNull())
    .addColumn("per_minute", "integer", (c) => c.notNull())
    .addColumn("per_day", "integer", (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("rate_counters").execute();
}
