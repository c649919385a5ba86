/**
 * Opens the query side: Postgres when a URL is given, embedded PGlite otherwise, each confined
 * to one environment's schema and migrated before it is handed out.
 */
import { Kysely } from "kysely";
import { PostgresJSDialect } from "kysely-postgres-js";
import postgres from "postgres";
import { assertSchemaName, migrateToLatest } from "./migrate.ts";
import { createPGlite, INT8_OID, parseInt8, sessionOf } from "./pglite.ts";
import { workerSessionOf } from "./pglite_worker_session.ts";
import { openInMemory, openWorkerFromTemplate } from "./pglite_memory.ts";
import type { Database } from "./schema.ts";

export interface OpenDatabaseOptions {
  /** A Postgres URL (`DATABASE_URL`); embedded PGlite when absent. */
  readonly url?: string;
  /** PGlite's data folder; in memory when absent. Ignored with `url`. */
  readonly dataDir?: string;
  /** The environment's schema: `public` for live, `sandbox` for sandbox. */
  readonly schema: string;
  /**
   * PGlite in a worker, off the calling thread (a server: its queries never wait on the
   * projections' writes). Default: on with `dataDir`, off in memory (the tests' pooled
   * instances). Ignored with `url`.
   */
  readonly worker?: boolean;
  /** Connections postgres.js may hold (default POSTGRES_POOL_MAX). Ignored without `url`. */
  readonly poolMax?: number;
}

export interface DatabaseHandle {
  readonly db: Kysely<Database>;
  readonly kind: "postgres" | "pglite";
  /** Closes every connection (or hands PGlite back). */
  close(): Promise<void>;
}

/** Connections postgres.js may hold per instance. */
const POSTGRES_POOL_MAX = 10;

export async function openDatabase(options: OpenDatabaseOptions): Promise<DatabaseHandle> {
  assertSchemaName(options.schema);
  const handle = options.url === undefined
    ? await openPGlite(options)
    : openPostgres(options.url, options.schema, options.poolMax ?? POSTGRES_POOL_MAX);
  try {
    await migrateToLatest(handle.db, options.schema);
  } catch (error) {
    await handle.close();
    throw error;
  }
  return handle;
}

/** PGlite runs in a worker when asked, and by default when it has a data folder (a server). */
export function pgliteInWorker(o: Pick<OpenDatabaseOptions, "dataDir" | "worker">): boolean {
  return o.worker ?? o.dataDir !== undefined;
}

async function openPGlite(o: OpenDatabaseOptions): Promise<DatabaseHandle> {
  const { dataDir, schema } = o;
  if (pgliteInWorker(o)) {
    return await (dataDir === undefined
      ? openWorkerFromTemplate({ schema })
      : workerSessionOf({ schema, dataDir }));
  }
  return await (dataDir === undefined
    ? openInMemory(schema)
    : sessionOf(await createPGlite({ dataDir }), schema));
}

function openPostgres(url: string, schema: string, max: number): DatabaseHandle {
  const client = postgres(url, {
    max,
    // A startup parameter, so every pooled connection, new or reconnected, uses the schema.
    connection: { search_path: schema },
    types: {
      bigint: {
        to: INT8_OID,
        from: [INT8_OID],
        serialize: (value: number | bigint) => String(value),
        parse: parseInt8,
      },
    },
    // `create schema if not exists` and friends notice; they are not worth a log line.
    onnotice: () => {},
  });
  const db = new Kysely<Database>({ dialect: new PostgresJSDialect({ postgres: client }) });
  const close = async () => {
    await db.destroy();
    await client.end(); // when Kysely never connected, destroy() leaves the client alone
  };
  return { db, kind: "postgres", close };
}
