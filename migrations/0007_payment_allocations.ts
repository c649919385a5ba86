/**
 * A payment's allocations by invoice (courier 2.5, 4.2), kept on its ledger row so the billing
 * view lists which invoices each payment paid. Null on rows projected before: not known here.
 * Frozen in time: never import app code here.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("ledger_entries").addColumn("allocations", "jsonb").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("ledger_entries").dropColumn("allocations").execute();
}
