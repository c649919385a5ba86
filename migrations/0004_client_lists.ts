/**
 * The client's own lists (courier 4.6): shipments newest first, claims, stores, addresses are all
 * read by courier and client from the snapshots. Without these every list scans the courier's
 * snapshots of that type. Frozen in time: never import app code here.
 */
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index snapshots_client_idx
    on snapshots (type, tenant, (data->>'client_id'))`.execute(db);
  await sql`create index snapshots_client_shipments_booked_idx
    on snapshots (tenant, (data->>'client_id'), ((data->>'booked_at')::bigint) desc, id desc)
    where type = 'shipment'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index snapshots_client_shipments_booked_idx`.execute(db);
  await sql`drop index snapshots_client_idx`.execute(db);
}
