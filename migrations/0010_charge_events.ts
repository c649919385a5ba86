/**
 * Charges by time (courier 6.1): the sweep that makes the billing events a crash kept from being
 * made reads the entries with an event made since its last round, in (time, event id) order, on
 * this index, instead of the whole ledger each minute.
 * Frozen in time: never import app code here.
 */
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index ledger_entries_event_created_idx
    on ledger_entries (created_at, event_id)
    where event_id is not null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index ledger_entries_event_created_idx`.execute(db);
}
