/**
 * Typed read tables for the lists 0016 left on jsonb (issue 34): a shipment's customs crossings,
 * a client's saved addresses, stores and their packets by state, the courier's compliance
 * checklists, the operator's deferred work, and the courier's clients by code (the billing
 * export). Each with the columns and index of its list's
 * filter and order, filled by the read-tables projections keyed by id and version, and rebuilt
 * here from the snapshots already projected.
 * Frozen in time: never import app code here.
 */
import { type Kysely, sql } from "kysely";

/** The tables this migration makes, in the order they are made. */
const TABLES = [
  "customs_crossings",
  "client_addresses",
  "client_stores",
  "retail_packets",
  "checklists",
  "deferred_work",
  "courier_clients",
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  await keyed(db, "customs_crossings")
    .addColumn("waybill", "text", (c) => c.notNull())
    .addColumn("opened_at", "bigint", (c) => c.notNull())
    .execute();
  await sql`create index customs_crossings_waybill_idx
    on customs_crossings (tenant, waybill, opened_at, id)`.execute(db);
  await keyed(db, "client_addresses")
    .addColumn("client_id", "text", (c) => c.notNull())
    .addColumn("label", "text", (c) => c.notNull())
    .execute();
  await sql`create index client_addresses_label_idx
    on client_addresses (tenant, client_id, (lower(label)))`.execute(db);
  await keyed(db, "client_stores")
    .addColumn("client_id", "text", (c) => c.notNull())
    .addColumn("code", "text", (c) => c.notNull())
    .execute();
  await sql`create index client_stores_code_idx on client_stores (tenant, client_id, code)`
    .execute(db);
  await keyed(db, "retail_packets")
    .addColumn("client_id", "text", (c) => c.notNull())
    .addColumn("store_id", "text", (c) => c.notNull())
    .addColumn("state", "text", (c) => c.notNull())
    .execute();
  await sql`create index retail_packets_store_idx
    on retail_packets (tenant, client_id, store_id, state)`.execute(db);
  await keyed(db, "checklists")
    .addColumn("supplier", "text")
    .addColumn("code", "text", (c) => c.notNull())
    .execute();
  await sql`create index checklists_code_idx on checklists (tenant, code)`.execute(db);
  await keyed(db, "deferred_work")
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("deferred_at", "bigint")
    .execute();
  await sql`create index deferred_work_status_idx on deferred_work (status, deferred_at)`
    .execute(db);
  // Looked up by key only (the billing export's client code).
  await keyed(db, "courier_clients").addColumn("code", "text", (c) => c.notNull()).execute();
  await rebuild(db);
  // The planner's statistics of what the rebuild wrote (embedded PGlite runs no autovacuum).
  for (const table of TABLES) await sql`analyze ${sql.table(table)}`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [...TABLES].reverse()) await db.schema.dropTable(table).execute();
}

function keyed(db: Kysely<unknown>, table: string) {
  return db.schema.createTable(table)
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("tenant", "text", (c) => c.notNull())
    .addColumn("version", "bigint", (c) => c.notNull());
}

/** Snapshots `s` of one actor type whose data is an object (a projected null is no row). */
function isSnapshotOf(type: string) {
  return sql`s.type = ${type} and jsonb_typeof(s.data) = 'object'`;
}

async function rebuild(db: Kysely<unknown>): Promise<void> {
  await sql`insert into customs_crossings (id, tenant, version, waybill, opened_at)
    select s.id, s.tenant, s.version, s.data->>'waybill', (s.data->>'opened_at')::bigint
    from snapshots s where ${isSnapshotOf("customs_crossing")}`.execute(db);
  await sql`insert into client_addresses (id, tenant, version, client_id, label)
    select s.id, s.tenant, s.version, s.data->>'client_id', s.data->>'label'
    from snapshots s where ${isSnapshotOf("client_address")}`.execute(db);
  await sql`insert into client_stores (id, tenant, version, client_id, code)
    select s.id, s.tenant, s.version, s.data->>'client_id', s.data->>'code'
    from snapshots s where ${isSnapshotOf("client_store")}`.execute(db);
  await sql`insert into retail_packets (id, tenant, version, client_id, store_id, state)
    select s.id, s.tenant, s.version, s.data->>'client_id', s.data->>'store_id',
      s.data->>'state'
    from snapshots s where ${isSnapshotOf("retail_packet")}`.execute(db);
  await sql`insert into checklists (id, tenant, version, supplier, code)
    select s.id, s.tenant, s.version, s.data->>'supplier', s.data->>'code'
    from snapshots s where ${isSnapshotOf("compliance_checklist")}`.execute(db);
  await sql`insert into deferred_work (id, tenant, version, status, deferred_at)
    select s.id, s.tenant, s.version, s.data->>'status', (s.data->>'deferred_at')::bigint
    from snapshots s where ${isSnapshotOf("deferred_work")}`.execute(db);
  await sql`insert into courier_clients (id, tenant, version, code)
    select s.id, s.tenant, s.version, s.data->>'code'
    from snapshots s where ${isSnapshotOf("courier_client")}`.execute(db);
  // Changes parked for the snapshots are parked for the platform's read tables too (0016 did
  // the same for the courier's), so that what is written again later reaches them.
  await sql`insert into parked_changes (projection, digest, subject, payload, error, attempts,
      parked_at, failed_at)
    select 'platform_read_tables', digest, subject, payload, error, attempts, parked_at,
      failed_at
    from parked_changes where projection = 'snapshots'
    on conflict do nothing`.execute(db);
}
