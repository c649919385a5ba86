/**
 * Search finds (issue 42): `q` on the shipment search and the operations board (courier 4.1,
 * 4.4) matches a prefix of a waybill, an external reference, the consignee's name or the
 * client's name, in any case. The shipments table gains the consignee's name and the clients
 * table their name, rebuilt here from the snapshots already projected; each searched column gets
 * an index on its lower case with `text_pattern_ops`, so `lower(col) like 'abc%'` is a range
 * scan of that index under any collation, and the board's `q=` stays an index lookup.
 * Frozen in time: never import app code here.
 */
import { type Kysely, sql } from "kysely";

/** The shipments' searched columns (the waybill is the row's id). */
const SHIPMENT_COLUMNS = [
  "id",
  "external_customer_code",
  "external_billing_reference",
  "client_order_reference",
  "recipient_name",
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("shipments").addColumn("recipient_name", "text").execute();
  await db.schema.alterTable("courier_clients").addColumn("name", "text").execute();
  await sql`update shipments set recipient_name = s.data->'recipient'->>'name'
    from snapshots s
    where s.type = 'shipment' and jsonb_typeof(s.data) = 'object'
      and s.id = shipments.id and s.tenant = shipments.tenant`.execute(db);
  await sql`update courier_clients set name = s.data->>'name'
    from snapshots s
    where s.type = 'courier_client' and jsonb_typeof(s.data) = 'object'
      and s.id = courier_clients.id and s.tenant = courier_clients.tenant`.execute(db);
  for (const column of SHIPMENT_COLUMNS) {
    await sql`create index ${sql.id(`shipments_${column}_prefix_idx`)}
      on shipments (tenant, (lower(${sql.ref(column)})) text_pattern_ops)`.execute(db);
  }
  await sql`create index courier_clients_name_prefix_idx
    on courier_clients (tenant, (lower(name)) text_pattern_ops)`.execute(db);
  for (const table of ["shipments", "courier_clients"]) {
    await sql`analyze ${sql.table(table)}`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index courier_clients_name_prefix_idx`.execute(db);
  for (const column of SHIPMENT_COLUMNS) {
    await sql`drop index ${sql.id(`shipments_${column}_prefix_idx`)}`.execute(db);
  }
  await db.schema.alterTable("courier_clients").dropColumn("name").execute();
  await db.schema.alterTable("shipments").dropColumn("recipient_name").execute();
}
