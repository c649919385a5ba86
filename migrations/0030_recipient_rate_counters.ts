/**
 * The outbound backlog's pace shared by a deployment's instances (issue 43 item 4, issue 42 item
 * 4): per tenant and recipient, the pumped attempts granted in its latest second (`second`,
 * seconds since the epoch), and what the row's last update granted. Frozen in time: never import
 * app code here.
 */
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("recipient_rate_counters")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("second", "bigint", (c) => c.notNull())
    .addColumn("sent", "integer", (c) => c.notNull())
    .addColumn("granted", "integer", (c) => c.notNull())
    .execute();
  await sql`create index recipient_rate_counters_second_idx
    on recipient_rate_counters (second)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("recipient_rate_counters").execute();
}
