/**
 * Counters every instance of a deployment shares (issue 43 item 4): failed sign-ins per account,
 * address or person (`login_throttles`, one row per key: its failures, the wait they impose and
 * the attempts still being checked, instants in epoch ms), and an index on the day of the rate
 * counters so the rows of days gone are swept without reading the others. Frozen in time: never
 * import app code here.
 */
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("login_throttles")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("failures", "integer", (c) => c.notNull())
    .addColumn("last_failure_at", "bigint", (c) => c.notNull())
    .addColumn("wait_until", "bigint", (c) => c.notNull())
    .addColumn("pending", "integer", (c) => c.notNull())
    .addColumn("pending_since", "bigint", (c) => c.notNull())
    .execute();
  await sql`create index login_throttles_last_failure_idx
    on login_throttles (last_failure_at)`.execute(db);
  await sql`create index rate_counters_day_idx on rate_counters (day_window)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index rate_counters_day_idx`.execute(db);
  await db.schema.dropTable("login_throttles").execute();
}
