/**
 * Shipments by closing time (courier 6.1): the sweep that makes the completion billing events a
 * failure kept from being made reads the shipments closed in the last week, page by page in
 * closing order, and no other snapshots.
 * Frozen in time: never import app code here.
 */
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index snapshots_shipment_closed_idx
    on snapshots (((data->>'closed_at')::bigint), id)
    where type = 'shipment' and data->>'closed_at' is not null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index snapshots_shipment_closed_idx`.execute(db);
}
