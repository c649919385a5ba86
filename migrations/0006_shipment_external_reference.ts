/**
 * A client's shipments by external reference (courier 4.2, `unique_external_reference`): a
 * booking under the flag looks for one booked before the flag was set. The expression is the
 * reference a booking claims: its client_order_reference, else its external_billing_reference;
 * the earliest such booking first.
 * Frozen in time: never import app code here.
 */
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index snapshots_shipment_external_reference_idx
    on snapshots (
      tenant,
      (data->>'client_id'),
      (coalesce(data->>'client_order_reference', data->>'external_billing_reference')),
      ((data->>'booked_at')::bigint)
    )
    where type = 'shipment'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index snapshots_shipment_external_reference_idx`.execute(db);
}
