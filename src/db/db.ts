/**
 * Opens the query side: Postgres when a URL is given, embedded PGlite otherwise, each confined
 * to one environment's schema and migrated before it is handed out.
 */
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { PGlite, type PGliteOptions } from "@electric-sql/pglite";
import { Kysely } from "kysely";
import { PostgresJSDialect } from "kysely-postgres-js";
import postgres from "postgres";
import { assertSchemaName, migrateToLatest } from "./migrate.ts";
import { PGliteDialect } from "./pglite_dialect.ts";
import type { Database } from "./schema.ts";

export interface OpenDatabaseOptions {
  /** A Postgres URL (`DATABASE_URL`); embedded PGlite when absent. */
  readonly url?: string;
  /** PGlite's data folder; in memory when absent. Ignored with `url`. */
  readonly dataDir?: string;
  /** The environment's schema: `public` for live, `sandbox` for sandbox. */
  readonly schema: string;
}

export interface DatabaseHandle {
  readonly db: Kysely<Database>;
  readonly kind: "postgres" | "pglite";
  /** Closes every connection (or PGlite itself). */
  close(): Promise<void>;
}

/** Connections postgres.js may hold per instance. */
const POSTGRES_POOL_MAX = 10;

const INT8_OID = 20;
const JSON_OID = 114;
const JSONB_OID = 3802;

/** int8 as a number when it fits exactly, else as a bigint (never a lossy number). */
export function parseInt8(text: string): number | bigint {
  const value = BigInt(text);
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(value)
    : value;
}

export async function openDatabase(options: OpenDatabaseOptions): Promise<DatabaseHandle> {
  assertSchemaName(options.schema);
  const handle = options.url === undefined
    ? await (options.dataDir === undefined
      ? openFromTemplate(options.schema)
      : openPGlite(options.schema, options.dataDir))
    : openPostgres(options.url, options.schema);
  try {
    await migrateToLatest(handle.db, options.schema);
  } catch (error) {
    await handle.close();
    throw error;
  }
  return handle;
}

function openPostgres(url: string, schema: string): DatabaseHandle {
  const client = postgres(url, {
    max: POSTGRES_POOL_MAX,
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

async function createPGlite(from: { dataDir?: string; loadDataDir?: Blob }): Promise<PGlite> {
  return await PGlite.create({
    ...from,
    ...await pgliteArtifacts(),
    parsers: { [INT8_OID]: parseInt8 },
    // As postgres.js does: a value bound to json is always stringified.
    serializers: { [JSON_OID]: stringify, [JSONB_OID]: stringify },
  });
}

type Artifacts = Pick<PGliteOptions, "pgliteWasmModule" | "initdbWasmModule" | "fsBundle">;
let artifacts: Promise<Artifacts> | null = null;

/**
 * PGlite's WebAssembly compiled and its file bundle read once per process, not at every open.
 * Where the package's files cannot be found, PGlite loads them itself.
 */
function pgliteArtifacts(): Promise<Artifacts> {
  artifacts ??= (async () => {
    const dist = pathToFileURL(createRequire(import.meta.url).resolve("@electric-sql/pglite"));
    const read = (name: string) => Deno.readFile(new URL(name, dist));
    const [pglite, initdb, bundle] = await Promise.all(
      ["pglite.wasm", "initdb.wasm", "pglite.data"].map(read),
    );
    return {
      pgliteWasmModule: await WebAssembly.compile(pglite!),
      initdbWasmModule: await WebAssembly.compile(initdb!),
      fsBundle: new Blob([bundle!]),
    };
  })().catch(() => ({}));
  return artifacts;
}

/** The schema an in-memory template is migrated in, renamed to the opener's schema on load. */
const TEMPLATE_SCHEMA = "pglite_template";
let template: Promise<Blob> | null = null;

/**
 * An in-memory database migrated once per process and dumped: each in-memory open loads the dump
 * instead of running initdb and every migration again (the tests open hundreds). The template's
 * schema takes the opener's name; functions that pinned their search_path pin the new name.
 */
async function openFromTemplate(schema: string): Promise<DatabaseHandle> {
  template ??= migratedTemplate().catch((error) => {
    template = null;
    throw error;
  });
  const pglite = await createPGlite({ loadDataDir: await template });
  try {
    await pglite.exec(`drop schema if exists ${schema} cascade;
      alter schema ${TEMPLATE_SCHEMA} rename to ${schema};`);
    const pinned = await pglite.query<{ f: string }>(
      `select p.oid::regprocedure::text as f from pg_proc p
        join pg_namespace n on n.oid = p.pronamespace
        where n.nspname = $1 and p.proconfig is not null`,
      [schema],
    );
    for (const { f } of pinned.rows) {
      await pglite.exec(`alter function ${f} set search_path to ${schema}`);
    }
  } catch (error) {
    await pglite.close();
    throw error;
  }
  return await sessionOf(pglite, schema);
}

async function migratedTemplate(): Promise<Blob> {
  const handle = await sessionOf(await createPGlite({}), TEMPLATE_SCHEMA);
  try {
    await migrateToLatest(handle.db, TEMPLATE_SCHEMA);
    return await handle.pglite.dumpDataDir("none");
  } finally {
    await handle.close();
  }
}

async function openPGlite(schema: string, dataDir: string): Promise<DatabaseHandle> {
  return await sessionOf(await createPGlite({ dataDir }), schema);
}

/** PGlite as the query side, confined to `schema`. */
async function sessionOf(
  pglite: PGlite,
  schema: string,
): Promise<DatabaseHandle & { pglite: PGlite }> {
  try {
    // One session for the process' life, so setting it once holds for every query.
    await pglite.query(`set search_path to ${schema}`);
  } catch (error) {
    await pglite.close();
    throw error;
  }
  const db = new Kysely<Database>({ dialect: new PGliteDialect({ pglite }) });
  const close = async () => {
    await db.destroy();
    if (!pglite.closed) await pglite.close(); // when Kysely never connected
  };
  return { db, kind: "pglite", close, pglite };
}

function stringify(value: unknown): string {
  const text = JSON.stringify(value);
  if (text === undefined) throw new TypeError(`value is not JSON: ${typeof value}`);
  return text;
}
