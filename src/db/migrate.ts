/**
 * Runs the query side's migrations in one environment's schema (live: `public`, sandbox:
 * `sandbox`, a test: its own). Migrations are listed here explicitly, oldest first.
 */
import { type Kysely, sql } from "kysely";
import { type Migration, type MigrationResultSet, Migrator } from "kysely/migration";
import * as m0001 from "../../migrations/0001_initial.ts";
import * as m0002 from "../../migrations/0002_ledger.ts";
import * as m0003 from "../../migrations/0003_billing_outbox.ts";
import * as m0004 from "../../migrations/0004_client_lists.ts";
import * as m0005 from "../../migrations/0005_ledger_entry_kind.ts";
import * as m0006 from "../../migrations/0006_shipment_external_reference.ts";
import * as m0007 from "../../migrations/0007_payment_allocations.ts";
import * as m0008 from "../../migrations/0008_booking_charges.ts";
import * as m0009 from "../../migrations/0009_shipment_closed.ts";
import * as m0010 from "../../migrations/0010_charge_events.ts";
import * as m0011 from "../../migrations/0011_resolution_events.ts";
import * as m0012 from "../../migrations/0012_resolved_charges.ts";
import * as m0013 from "../../migrations/0013_ledger_watermarks.ts";
import * as m0014 from "../../migrations/0014_parked_changes.ts";
import * as m0015 from "../../migrations/0015_parked_ledger_holds.ts";
import * as m0016 from "../../migrations/0016_read_tables.ts";
import * as m0017 from "../../migrations/0017_more_read_tables.ts";
import * as m0018 from "../../migrations/0018_rate_counters.ts";
import * as m0019 from "../../migrations/0019_business_trips.ts";
import * as m0020 from "../../migrations/0020_outbound_log.ts";
import * as m0021 from "../../migrations/0021_business_trips_type.ts";
import * as m0022 from "../../migrations/0022_search_prefixes.ts";
import * as m0023 from "../../migrations/0023_trip_drivers.ts";
import * as m0024 from "../../migrations/0024_pool_drivers.ts";
import * as m0025 from "../../migrations/0025_sandbox_inbox_readiness.ts";
import * as m0026 from "../../migrations/0026_business_subscriptions.ts";
import * as m0027 from "../../migrations/0027_business_batches.ts";
import * as m0028 from "../../migrations/0028_business_checkouts.ts";
import * as m0029 from "../../migrations/0029_shared_counters.ts";
import * as m0030 from "../../migrations/0030_recipient_rate_counters.ts";
import * as m0031 from "../../migrations/0031_drop_actor_events.ts";
import * as m0032 from "../../migrations/0032_waiting_charge_events.ts";
import * as m0033 from "../../migrations/0033_trip_offer_due.ts";
import * as m0034 from "../../migrations/0034_trip_search_stops.ts";
import * as m0035 from "../../migrations/0035_sandbox_inbox_order.ts";
import * as m0036 from "../../migrations/0036_trip_batch.ts";

/** Every migration, oldest first; each name starts with a sortable number. */
const MIGRATIONS: readonly (readonly [string, Migration])[] = [
  ["0001_initial", m0001],
  ["0002_ledger", m0002],
  ["0003_billing_outbox", m0003],
  ["0004_client_lists", m0004],
  ["0005_ledger_entry_kind", m0005],
  ["0006_shipment_external_reference", m0006],
  ["0007_payment_allocations", m0007],
  ["0008_booking_charges", m0008],
  ["0009_shipment_closed", m0009],
  ["0010_charge_events", m0010],
  ["0011_resolution_events", m0011],
  ["0012_resolved_charges", m0012],
  ["0013_ledger_watermarks", m0013],
  ["0014_parked_changes", m0014],
  ["0015_parked_ledger_holds", m0015],
  ["0016_read_tables", m0016],
  ["0017_more_read_tables", m0017],
  ["0018_rate_counters", m0018],
  ["0019_business_trips", m0019],
  ["0020_outbound_log", m0020],
  ["0021_business_trips_type", m0021],
  ["0022_search_prefixes", m0022],
  ["0023_trip_drivers", m0023],
  ["0024_pool_drivers", m0024],
  ["0025_sandbox_inbox_readiness", m0025],
  ["0026_business_subscriptions", m0026],
  ["0027_business_batches", m0027],
  ["0028_business_checkouts", m0028],
  ["0029_shared_counters", m0029],
  ["0030_recipient_rate_counters", m0030],
  ["0031_drop_actor_events", m0031],
  ["0032_waiting_charge_events", m0032],
  ["0033_trip_offer_due", m0033],
  ["0034_trip_search_stops", m0034],
  ["0035_sandbox_inbox_order", m0035],
  ["0036_trip_batch", m0036],
];

/** Kysely's bookkeeping table (its default name), in each migrated schema. */
const MIGRATION_TABLE = "kysely_migration";

/** Unquoted Postgres identifiers only, so a schema name never needs escaping anywhere. */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export function assertSchemaName(schema: string): void {
  if (!SCHEMA_NAME.test(schema)) {
    throw new RangeError(`schema name must match ${SCHEMA_NAME}: ${JSON.stringify(schema)}`);
  }
}

/** A migrator whose bookkeeping tables and migrated tables both live in `schema`. */
export function createMigrator<DB>(db: Kysely<DB>, schema: string): Migrator {
  assertSchemaName(schema);
  const migrations: Record<string, Migration> = {};
  for (const [name, migration] of MIGRATIONS) migrations[name] = inSchema(migration, schema);
  return new Migrator({
    db,
    provider: { getMigrations: () => Promise.resolve(migrations) },
    migrationTableSchema: schema,
    migrationTableName: MIGRATION_TABLE,
  });
}

/**
 * Migrations and schema drops take turns across processes, under one advisory lock: the migrator
 * looks at every schema's tables to find its own, and a schema dropped meanwhile (another
 * process's test ending) fails that look. Instances starting together migrate one at a time.
 */
export const SCHEMAS_LOCK_KEY = 0x6d696772;

/** Creates `schema` if missing and runs every pending migration; returns the names it ran. */
export async function migrateToLatest<DB>(db: Kysely<DB>, schema: string): Promise<string[]> {
  // Nothing pending (a restart, a test's pooled schema): answered without the lock, and without
  // the migrator's look at every schema's tables, which a schema dropped meanwhile fails.
  if (await migrated(db, schema)) return [];
  return await underSchemasLock(db, async (conn) => {
    await ensureSchema(conn, schema);
    const { error, results } = await createMigrator(conn, schema).migrateToLatest();
    if (error !== undefined) {
      const failed = results?.find((r) => r.status === "Error")?.migrationName;
      throw new Error(
        `migration failed in schema ${schema}: ${failed ?? "before any migration"}`,
        { cause: error },
      );
    }
    return (results ?? []).map((r) => r.migrationName);
  });
}

/**
 * Migrates `schema` up or down to `target` (tests of migrations), in turn with every other
 * process's migrations: a column dropped meanwhile fails their look at the catalog.
 */
export async function migrateSchemaTo<DB>(
  db: Kysely<DB>,
  schema: string,
  target: Parameters<Migrator["migrateTo"]>[0],
): Promise<MigrationResultSet> {
  return await underSchemasLock(db, (conn) => createMigrator(conn, schema).migrateTo(target));
}

/** Whether `schema` has run exactly every migration, in order (read without failing a query). */
async function migrated<DB>(db: Kysely<DB>, schema: string): Promise<boolean> {
  const table = `${schema}.${MIGRATION_TABLE}`;
  const found = await sql<{ found: boolean }>`
    select to_regclass(${table}) is not null as found`.execute(db);
  if (found.rows[0]?.found !== true) return false;
  const { rows } = await sql<{ name: string }>`
    select name from ${sql.table(table)} order by name`.execute(db);
  return rows.length === MIGRATIONS.length && rows.every((r, i) => r.name === MIGRATIONS[i]![0]);
}

/** Runs `fn` holding the schemas lock (SCHEMAS_LOCK_KEY) on one connection. */
async function underSchemasLock<DB, T>(
  db: Kysely<DB>,
  fn: (conn: Kysely<DB>) => Promise<T>,
): Promise<T> {
  // A session lock: held on one connection, released with it if this process dies meanwhile.
  return await db.connection().execute(async (conn) => {
    await sql`select pg_advisory_lock(${sql.lit(SCHEMAS_LOCK_KEY)})`.execute(conn);
    try {
      return await fn(conn);
    } finally {
      await sql`select pg_advisory_unlock(${sql.lit(SCHEMAS_LOCK_KEY)})`.execute(conn);
    }
  });
}

/** Drops `schema` and all in it, in turn with migrations (see SCHEMAS_LOCK_KEY): tests, benches. */
export async function dropSchema<DB>(db: Kysely<DB>, schema: string): Promise<void> {
  assertSchemaName(schema);
  await db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(${sql.lit(SCHEMAS_LOCK_KEY)})`.execute(trx);
    await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(trx);
  });
}

/** Qualifies every table a migration names with `schema`, whatever the search_path. */
function inSchema(migration: Migration, schema: string): Migration {
  const { down } = migration;
  return {
    up: (db) => migration.up(db.withSchema(schema)),
    ...(down ? { down: (db: Kysely<unknown>) => down(db.withSchema(schema)) } : {}),
  };
}

async function ensureSchema<DB>(db: Kysely<DB>, schema: string): Promise<void> {
  try {
    await sql`create schema if not exists ${sql.id(schema)}`.execute(db);
  } catch (error) {
    // Two instances starting together can race on the catalog; the loser sees it exist.
    const schemas = await db.introspection.getSchemas();
    if (!schemas.some((s) => s.name === schema)) throw error;
  }
}
