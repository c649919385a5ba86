/**
 * Typed read tables for the courier's lists (issue 34): the operations board and the shipment
 * lists, alerts, claims, a driver's runs and the outbound (billing) events. Lists read jsonb
 * before: every one scanned and detoasted each snapshot of the tenant, the board took 1.5 s at
 * 50,000 open shipments. Each table has real columns and the indexes of its list's filters and
 * sort, and is filled by a projection from the bus keyed by id and version (a replay never moves
 * a row back). Rebuilt here from the snapshots already projected, so a database of the code
 * before upgrades in place; changes parked for the snapshots are parked for these tables too,
 * so that what is written again later reaches both.
 * Frozen in time: never import app code here.
 */
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await createShipments(db);
  await createAlerts(db);
  await createClaims(db);
  await createRuns(db);
  await createOutboundEvents(db);
  await createQuotes(db);
  await createBoardCounts(db);
  await rebuildShipments(db);
  await rebuildAlerts(db);
  await rebuildClaims(db);
  await rebuildRuns(db);
  await rebuildOutboundEvents(db);
  await rebuildQuotes(db);
  // The planner's statistics of what the rebuild wrote (embedded PGlite runs no autovacuum).
  for (const table of READ_TABLES) await sql`analyze ${sql.table(table)}`.execute(db);
  await sql`insert into parked_changes (projection, digest, subject, payload, error, attempts,
      parked_at, failed_at, tenant, actor_id, holds_seq)
    select 'read_tables', digest, subject, payload, error, attempts, parked_at, failed_at,
      null, null, null
    from parked_changes where projection = 'snapshots'
    on conflict do nothing`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`delete from parked_changes where projection = 'read_tables'`.execute(db);
  await sql`drop trigger shipments_board_count on shipments`.execute(db);
  await sql`drop function shipments_board_count()`.execute(db);
  await db.schema.dropTable("board_counts").execute();
  for (const table of [...READ_TABLES].reverse()) await db.schema.dropTable(table).execute();
}

/** The typed read tables this migration makes (board_counts is kept from shipments). */
const READ_TABLES = ["shipments", "alerts", "claims", "network_runs", "outbound_events", "quotes"];

/** Every typed table starts with its actor's id, tenant and the version of the row. */
function keyed(db: Kysely<unknown>, table: string) {
  return db.schema.createTable(table)
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("tenant", "text", (c) => c.notNull())
    .addColumn("version", "bigint", (c) => c.notNull());
}

/**
 * Times are epoch milliseconds, as the actors keep them; dates are `YYYY-MM-DD` text. A field a
 * shipment stored long ago may lack is nullable, so no old snapshot can stop the upgrade.
 */
async function createShipments(db: Kysely<unknown>): Promise<void> {
  await keyed(db, "shipments")
    .addColumn("client_id", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("health", "text")
    .addColumn("health_reason", "text")
    .addColumn("external_customer_code", "text")
    .addColumn("external_billing_reference", "text")
    .addColumn("client_order_reference", "text")
    .addColumn("custody_holder", "text")
    .addColumn("custody_facility_id", "text")
    .addColumn("facility_ids", sql`text[]`, (c) => c.notNull())
    .addColumn("pieces_count", "integer", (c) => c.notNull())
    .addColumn("places_count", "integer", (c) => c.notNull())
    .addColumn("last_scan_event", "text")
    .addColumn("last_scan_at", "bigint")
    .addColumn("last_scan_facility_id", "text")
    .addColumn("last_scan_note", "text")
    .addColumn("next_milestone", "text")
    .addColumn("next_due_at", "bigint")
    .addColumn("next_owner", "text")
    .addColumn("first_due_at", "bigint")
    .addColumn("estimated_delivery_on", "text")
    .addColumn("earliest_delivery", "text")
    .addColumn("latest_delivery", "text")
    .addColumn("collection_on", "text")
    .addColumn("tax_minor", "bigint")
    .addColumn("booked_at", "bigint", (c) => c.notNull())
    .addColumn("closed_at", "bigint")
    .addColumn("delivered_at", "bigint")
    .execute();
  // The board (courier 4.4): open shipments, first due first; by health (its counts too).
  await sql`create index shipments_board_idx
    on shipments (tenant, first_due_at asc nulls last, id) where closed_at is null`.execute(db);
  await sql`create index shipments_board_health_idx
    on shipments (tenant, health, first_due_at asc nulls last, id) where closed_at is null`
    .execute(db);
  await sql`create index shipments_facility_idx on shipments using gin (facility_ids)`.execute(db);
  // Search and the client's list (courier 4.1, 4.6): newest booked first, by any reference.
  await sql`create index shipments_booked_idx on shipments (tenant, booked_at desc, id desc)`
    .execute(db);
  await sql`create index shipments_client_booked_idx
    on shipments (tenant, client_id, booked_at desc, id desc)`.execute(db);
  for (const column of REFERENCE_COLUMNS) {
    await sql`create index ${sql.id(`shipments_${column}_idx`)}
      on shipments (tenant, ${sql.ref(column)}) where ${sql.ref(column)} is not null`.execute(db);
  }
  // A booking under unique_external_reference (courier 4.2): the reference it claims.
  await sql`create index shipments_claimed_reference_idx
    on shipments (tenant, client_id,
      (coalesce(client_order_reference, external_billing_reference)), booked_at)`.execute(db);
  // The completion sweep (courier 6.1) and the report's deliveries of the day.
  await sql`create index shipments_closed_idx on shipments (closed_at, id)
    where closed_at is not null`.execute(db);
  await sql`create index shipments_delivered_idx on shipments (tenant, delivered_at)
    where delivered_at is not null`.execute(db);
}

const REFERENCE_COLUMNS = [
  "external_customer_code",
  "external_billing_reference",
  "client_order_reference",
] as const;

async function createAlerts(db: Kysely<unknown>): Promise<void> {
  await keyed(db, "alerts")
    .addColumn("waybill", "text")
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("owner", "text", (c) => c.notNull())
    .addColumn("raised_at", "bigint", (c) => c.notNull())
    .addColumn("resolved_at", "bigint")
    .execute();
  await sql`create index alerts_raised_idx on alerts (tenant, raised_at desc, id desc)`
    .execute(db);
  await sql`create index alerts_open_idx on alerts (tenant, waybill)
    where status <> 'resolved'`.execute(db);
  await sql`create index alerts_waybill_idx on alerts (tenant, waybill, raised_at desc)
    where waybill is not null`.execute(db);
  await sql`create index alerts_resolved_idx on alerts (tenant, resolved_at)
    where resolved_at is not null`.execute(db);
}

async function createClaims(db: Kysely<unknown>): Promise<void> {
  await keyed(db, "claims")
    .addColumn("client_id", "text", (c) => c.notNull())
    .addColumn("waybill", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("filed_at", "bigint", (c) => c.notNull())
    .execute();
  await sql`create index claims_filed_idx on claims (tenant, filed_at desc, id desc)`.execute(db);
  await sql`create index claims_client_filed_idx
    on claims (tenant, client_id, filed_at desc, id desc)`.execute(db);
  await sql`create index claims_waybill_idx on claims (tenant, waybill)`.execute(db);
}

async function createRuns(db: Kysely<unknown>): Promise<void> {
  await keyed(db, "network_runs")
    .addColumn("driver_id", "text")
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  // A driver's open runs (courier 4.5).
  await sql`create index network_runs_driver_idx on network_runs (tenant, driver_id, created_at)
    where status <> 'closed' and driver_id is not null`.execute(db);
}

async function createOutboundEvents(db: Kysely<unknown>): Promise<void> {
  await keyed(db, "outbound_events")
    .addColumn("stream", "text", (c) => c.notNull())
    .addColumn("event_type", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("client_id", "text")
    .addColumn("recipient_kind", "text")
    .addColumn("recipient_client_id", "text")
    .addColumn("endpoint_missing_at", "bigint")
    .addColumn("reported_state", "text")
    .addColumn("external_references", "jsonb")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  // The billing event outbox (courier 4.3), newest first.
  await sql`create index outbound_events_stream_idx
    on outbound_events (tenant, stream, created_at desc, id desc)`.execute(db);
  // Events waiting for an endpoint, made due when one is set (courier 3.1).
  await sql`create index outbound_events_waiting_idx
    on outbound_events (tenant, recipient_kind, recipient_client_id, id)
    where status = 'pending' and endpoint_missing_at is not null`.execute(db);
}

/**
 * The board's counts by health (courier 4.4 `meta.by_health`) of a courier's open shipments, by
 * next owner: counting 50,000 rows at every read took longer than the whole list may. Kept by
 * the database itself as each shipment row is written, in the same transaction, so they never
 * drift from the rows whoever writes them (the projection, this migration, a replay). A missing
 * health or owner is kept as ''.
 */
async function createBoardCounts(db: Kysely<unknown>): Promise<void> {
  await db.schema.createTable("board_counts")
    .addColumn("tenant", "text", (c) => c.notNull())
    .addColumn("health", "text", (c) => c.notNull())
    .addColumn("next_owner", "text", (c) => c.notNull())
    .addColumn("n", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("board_counts_pkey", ["tenant", "health", "next_owner"])
    .execute();
  // The function resolves board_counts in the schema it was made in, whatever the caller's path.
  await sql`create function shipments_board_count() returns trigger language plpgsql
    set search_path from current as $$
    begin
      if tg_op = 'UPDATE' and old.tenant = new.tenant
        and old.health is not distinct from new.health
        and old.next_owner is not distinct from new.next_owner
        and (old.closed_at is null) = (new.closed_at is null) then
        return null;
      end if;
      if tg_op in ('UPDATE', 'DELETE') and old.closed_at is null then
        update board_counts set n = n - 1
        where tenant = old.tenant and health = coalesce(old.health, '')
          and next_owner = coalesce(old.next_owner, '');
      end if;
      if tg_op in ('INSERT', 'UPDATE') and new.closed_at is null then
        insert into board_counts (tenant, health, next_owner, n)
        values (new.tenant, coalesce(new.health, ''), coalesce(new.next_owner, ''), 1)
        on conflict (tenant, health, next_owner) do update set n = board_counts.n + 1;
      end if;
      return null;
    end $$`.execute(db);
  await sql`create trigger shipments_board_count after insert or update or delete on shipments
    for each row execute function shipments_board_count()`.execute(db);
}

/** A client's saved quotations (courier 4.1), newest first. */
async function createQuotes(db: Kysely<unknown>): Promise<void> {
  await keyed(db, "quotes")
    .addColumn("client_id", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  await sql`create index quotes_client_idx on quotes (tenant, client_id, created_at desc, id desc)`
    .execute(db);
}

/** Snapshots `s` of one actor type whose data is an object (a projected null is no row). */
function isSnapshotOf(type: string) {
  return sql`s.type = ${type} and jsonb_typeof(s.data) = 'object'`;
}

/**
 * The custody shown is the most recently scanned piece's, the first such in piece order; places
 * are the distinct facility and holder pairs, a missing one read as `-`.
 */
async function rebuildShipments(db: Kysely<unknown>): Promise<void> {
  const pieces = sql`jsonb_array_elements(coalesce(s.data->'pieces', '[]'))`;
  await sql`insert into shipments (id, tenant, version, client_id, status, health, health_reason,
      external_customer_code, external_billing_reference, client_order_reference,
      custody_holder, custody_facility_id, facility_ids, pieces_count, places_count,
      last_scan_event, last_scan_at, last_scan_facility_id, last_scan_note,
      next_milestone, next_due_at, next_owner, first_due_at,
      estimated_delivery_on, earliest_delivery, latest_delivery, collection_on, tax_minor,
      booked_at, closed_at, delivered_at)
    select s.id, s.tenant, s.version, s.data->>'client_id', s.data->>'status',
      s.data->>'health', s.data->>'health_reason',
      s.data->>'external_customer_code', s.data->>'external_billing_reference',
      s.data->>'client_order_reference',
      latest.p->>'holder', latest.p->>'facility_id',
      array(select distinct f.piece->>'facility_id' from ${pieces} f(piece)
        where f.piece->>'facility_id' is not null),
      jsonb_array_length(coalesce(s.data->'pieces', '[]')),
      (select count(distinct coalesce(f.piece->>'facility_id', '-') || '|' ||
        coalesce(f.piece->>'holder', '-')) from ${pieces} f(piece)),
      s.data->'last_scan'->>'event', (s.data->'last_scan'->>'at')::bigint,
      s.data->'last_scan'->>'facility_id', s.data->'last_scan'->>'note',
      s.data->>'next_milestone', (s.data->>'next_due_at')::bigint, s.data->>'next_owner',
      (s.data->>'first_due_at')::bigint,
      s.data->>'estimated_delivery_on',
      s.data->'pricing'->'promise'->>'earliest_delivery',
      s.data->'pricing'->'promise'->>'latest_delivery',
      s.data->'pricing'->'promise'->>'collection_on',
      (s.data->'pricing'->>'tax_minor')::bigint,
      (s.data->>'booked_at')::bigint, (s.data->>'closed_at')::bigint,
      (s.data->>'delivered_at')::bigint
    from snapshots s
    left join lateral (
      select e.p from ${pieces} with ordinality e(p, n)
      order by coalesce((e.p->>'last_scan_at')::bigint, 0) desc, e.n limit 1
    ) latest on true
    where ${isSnapshotOf("shipment")}`.execute(db);
}

async function rebuildAlerts(db: Kysely<unknown>): Promise<void> {
  await sql`insert into alerts (id, tenant, version, waybill, kind, status, owner, raised_at,
      resolved_at)
    select s.id, s.tenant, s.version, s.data->>'waybill', s.data->>'kind', s.data->>'status',
      s.data->>'owner', (s.data->>'raised_at')::bigint, (s.data->>'resolved_at')::bigint
    from snapshots s where ${isSnapshotOf("alert")}`.execute(db);
}

async function rebuildClaims(db: Kysely<unknown>): Promise<void> {
  await sql`insert into claims (id, tenant, version, client_id, waybill, status, filed_at)
    select s.id, s.tenant, s.version, s.data->>'client_id', s.data->>'waybill',
      s.data->>'status', (s.data->>'filed_at')::bigint
    from snapshots s where ${isSnapshotOf("claim")}`.execute(db);
}

async function rebuildRuns(db: Kysely<unknown>): Promise<void> {
  await sql`insert into network_runs (id, tenant, version, driver_id, status, created_at)
    select s.id, s.tenant, s.version, s.data->>'driver_id', s.data->>'status',
      (s.data->>'created_at')::bigint
    from snapshots s where ${isSnapshotOf("network_run")}`.execute(db);
}

/** Events made before client_id was kept name the client in their entry only. */
async function rebuildOutboundEvents(db: Kysely<unknown>): Promise<void> {
  await sql`insert into outbound_events (id, tenant, version, stream, event_type, status,
      client_id, recipient_kind, recipient_client_id, endpoint_missing_at, reported_state,
      external_references, created_at)
    select s.id, s.tenant, s.version, s.data->>'stream', s.data->>'event_type',
      s.data->>'status', coalesce(s.data->>'client_id', s.data->'entry'->>'client_id'),
      s.data->'recipient'->>'kind', s.data->'recipient'->>'client_id',
      (s.data->>'endpoint_missing_at')::bigint,
      s.data->'acknowledgement'->>'reported_state',
      nullif(s.data->'acknowledgement'->'external_references', 'null'::jsonb),
      (s.data->>'created_at')::bigint
    from snapshots s where ${isSnapshotOf("outbound_event")}`.execute(db);
}

/** Only quotations are projected of the price offers. */
async function rebuildQuotes(db: Kysely<unknown>): Promise<void> {
  await sql`insert into quotes (id, tenant, version, client_id, created_at)
    select s.id, s.tenant, s.version, s.data->>'client_id', (s.data->>'created_at')::bigint
    from snapshots s where ${isSnapshotOf("price_offer")} and s.data->>'kind' = 'quote'`.execute(
    db,
  );
}
