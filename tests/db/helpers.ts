/**
 * A fresh database for one test: the real Postgres at DATABASE_URL when set, embedded PGlite
 * otherwise, in a schema of its own that is dropped when the test ends.
 */
import { sql } from "kysely";
import { type DatabaseHandle, openDatabase } from "../../src/db/db.ts";
import { dropSchema } from "../../src/db/migrate.ts";
import "../helpers/pglite_reuse.ts";

export interface TestDatabase extends DatabaseHandle, AsyncDisposable {
  readonly schema: string;
}

export function uniqueSchema(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(6));
  return `t_${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/** Use with `await using`, so the schema is dropped and connections closed even on failure. */
export async function openTestDatabase(): Promise<TestDatabase> {
  const schema = uniqueSchema();
  const url = Deno.env.get("DATABASE_URL");
  const handle = await openDatabase({ ...(url ? { url } : {}), schema });
  return {
    ...handle,
    schema,
    async [Symbol.asyncDispose]() {
      try {
        await dropSchema(handle.db, schema);
      } finally {
        await handle.close();
      }
    },
  };
}

/** Tables of `schema`, sorted by name. */
export async function tablesIn(t: TestDatabase, schema: string): Promise<string[]> {
  const { rows } = await sql<{ table_name: string }>`
    select table_name from information_schema.tables
    where table_schema = ${schema} order by table_name`.execute(t.db);
  return rows.map((r) => r.table_name);
}

/**
 * Holds an exclusive lock on one table (on PGlite: the one connection) until released, so
 * writes queue up behind it.
 */
export async function blockTable(
  t: TestDatabase,
  table: "snapshots" | "ledger_entries",
): Promise<{ release(): Promise<void> }> {
  const taken = Promise.withResolvers<void>();
  const held = Promise.withResolvers<void>();
  const done = t.db.transaction().execute(async (trx) => {
    await sql`lock table ${sql.table(table)} in exclusive mode`.execute(trx);
    taken.resolve();
    await held.promise;
  });
  await Promise.race([taken.promise, done]);
  return {
    release: async () => {
      held.resolve();
      await done;
    },
  };
}

/** Whether the promise has settled yet, asked later. */
export function settled(p: Promise<unknown>): () => boolean {
  let done = false;
  p.finally(() => done = true);
  return () => done;
}

export const macrotask = (ms = 0) => new Promise((resolve) => setTimeout(resolve, ms));

/** Every migration, in the order they apply (src/db/migrate.ts). */
export const MIGRATIONS = [
  "0001_initial",
  "0002_ledger",
  "0003_billing_outbox",
  "0004_client_lists",
  "0005_ledger_entry_kind",
  "0006_shipment_external_reference",
  "0007_payment_allocations",
  "0008_booking_charges",
  "0009_shipment_closed",
  "0010_charge_events",
  "0011_resolution_events",
  "0012_resolved_charges",
  "0013_ledger_watermarks",
  "0014_parked_changes",
  "0015_parked_ledger_holds",
  "0016_read_tables",
  "0017_more_read_tables",
  "0018_rate_counters",
  "0019_business_trips",
  "0020_outbound_log",
  "0021_business_trips_type",
  "0022_search_prefixes",
  "0023_trip_drivers",
  "0024_pool_drivers",
  "0025_sandbox_inbox_readiness",
  "0026_business_subscriptions",
  "0027_business_batches",
  "0028_business_checkouts",
  "0029_shared_counters",
  "0030_recipient_rate_counters",
  "0031_drop_actor_events",
  "0032_waiting_charge_events",
  "0033_trip_offer_due",
  "0034_trip_search_stops",
  "0035_sandbox_inbox_order",
  "0036_trip_batch",
];

/** The migrations after `name`, as a schema migrated to it applies them to reach the latest. */
export function after(name: string): string[] {
  return MIGRATIONS.slice(MIGRATIONS.indexOf(name) + 1);
}
