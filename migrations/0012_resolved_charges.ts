/**
 * A conversion resolved after it was posted is booked when resolved (courier 2.6 rule 4, 3.1):
 * its row moves to the resolution's time and period, and keeps when the charge arose here. No
 * backfill: an entry resolved before was booked in the period it arose in (its invoice and
 * exports say so), so its `created_at` is still when it arose and this stays null.
 * Frozen in time: never import app code here.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("ledger_entries").addColumn("charged_at", "timestamptz").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("ledger_entries").dropColumn("charged_at").execute();
}
