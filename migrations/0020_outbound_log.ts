/**
 * The delivery log of outbound events no actor holds (issue 36 item 2): an event delivered at its
 * first attempt is written here by its outbox's handler, with its body and its attempt, instead
 * of being made an actor; rows projected from actors leave these columns null.
 * Frozen in time: never import app code here.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("outbound_events")
    .addColumn("raw_body", "text")
    .addColumn("attempts", "jsonb")
    .addColumn("attempts_total", "integer")
    .addColumn("next_attempt_at", "bigint")
    .addColumn("entry", "jsonb")
    .addColumn("request_id", "text")
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const columns = ["raw_body", "attempts", "attempts_total", "next_attempt_at", "entry"];
  for (const column of [...columns, "request_id"]) {
    await db.schema.alterTable("outbound_events").dropColumn(column).execute();
  }
}
