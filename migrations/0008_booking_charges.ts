/**
 * Booking charges by time (courier 4.1): the sweep that completes bookings charged without their
 * shipment reads the charges of the last month, and no other entries.
 * Frozen in time: never import app code here.
 */
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index ledger_entries_booking_created_idx
    on ledger_entries (created_at)
    where kind = 'shipment'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index ledger_entries_booking_created_idx`.execute(db);
}
