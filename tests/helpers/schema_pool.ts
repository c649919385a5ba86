/**
 * The tests' Postgres schemas, kept migrated from one test environment to the next instead of
 * made and dropped by each: migrating a schema costs about half a second, and dropping one a
 * little less, both under the lock every process takes in turn (src/db/migrate.ts), against one
 * TRUNCATE of its tables. A schema is claimed with a session advisory lock held for the
 * environment's life (released with its connection, even when the process dies), checked against
 * the shape it was migrated to, and emptied when claimed, so rows a crashed test left are never
 * seen. Its name carries the digest of the code that migrates it: other migrations, other schemas.
 */
import { Kysely, sql } from "kysely";
import { PostgresJSDialect } from "kysely-postgres-js";
import postgres from "postgres";
import { catalogShape } from "../../src/db/catalog_shape.ts";
import { emptyingStatement } from "../../src/db/emptying.ts";
import { dropSchema, migrateToLatest } from "../../src/db/migrate.ts";
import { templateDigest } from "../../src/db/pglite_template_cache.ts";
import { hex } from "../../src/domain/secrets.ts";

/**
 * Schemas of one version at most (more than the environments open at once across the test
 * processes); beyond, an environment makes a schema of its own, as without a pool.
 */
const POOL_SCHEMAS_MAX = 32;
/** The pool's advisory locks' first key ("pool"); the second is the schema name's hash. */
const POOL_LOCK_KEY = 0x706f6f6c;
const POOL_PREFIX = "tpool_";
const POOL_NAME = /^tpool_[0-9a-f]{16}_\d+$/;
/**
 * How long another version's schema lies unclaimed before a new schema of this version drops it:
 * long enough that two checkouts testing side by side on one server do not drop each other's.
 */
const STALE_VERSION_MS = 60 * 60 * 1000;

export interface ClaimedSchema {
  readonly schema: string;
  /** Hands the schema back; its rows stay until the next claim empties it. */
  release(): Promise<void>;
}

type PoolDb = Kysely<unknown>;

/**
 * A pooled schema, migrated and empty, the caller's until it releases it; null when all are
 * claimed or the code cannot be digested (the caller makes a schema of its own).
 */
export async function claimSchema(
  url: string,
  options: {
    /** 16 hex digits naming the pool (a test of the pool: one of its own); default: the code's. */
    readonly version?: string;
  } = {},
): Promise<ClaimedSchema | null> {
  const version = options.version ?? await poolVersion();
  if (version === null) return null;
  // One connection, holding the claim's session lock for as long as the schema is used.
  const client = postgres(url, { max: 1, onnotice: () => {} });
  const db: PoolDb = new Kysely({ dialect: new PostgresJSDialect({ postgres: client }) });
  const release = async () => {
    await db.destroy();
    await client.end();
  };
  try {
    for (let n = 0; n < POOL_SCHEMAS_MAX; n++) {
      const schema = `${POOL_PREFIX}${version}_${n}`;
      if (!await tryLock(db, schema)) continue;
      await prepare(db, client, schema, version);
      return { schema, release };
    }
  } catch (error) {
    await release();
    throw error;
  }
  await release();
  return null;
}

let version: Promise<string | null> | null = null;

function poolVersion(): Promise<string | null> {
  version ??= templateDigest().then((d) => d?.slice(0, 16) ?? null);
  return version;
}

async function tryLock(db: PoolDb, schema: string): Promise<boolean> {
  const { rows } = await sql<{ ok: boolean }>`
    select pg_try_advisory_lock(${sql.lit(POOL_LOCK_KEY)}, hashtext(${schema})) as ok`
    .execute(db);
  return rows[0]?.ok === true;
}

/**
 * Makes the claimed schema fit: (re)migrated unless it still has the shape recorded when it was
 * migrated (a test that altered its catalog and failed leaves it unfit), then emptied.
 */
async function prepare(
  db: PoolDb,
  client: postgres.Sql,
  schema: string,
  version: string,
): Promise<void> {
  const { rows } = await sql<{ mark: string | null }>`
    select obj_description(oid, 'pg_namespace') as mark from pg_namespace
    where nspname = ${schema}`.execute(db);
  const shape = markOf(rows[0]?.mark ?? null)?.shape;
  const fit = shape !== undefined && shape === await shapeDigest(client, schema);
  if (!fit) {
    await dropSchema(db, schema);
    // As the environment's connections have it (db.ts): some migrations name tables unqualified.
    await sql`set search_path to ${sql.id(schema)}`.execute(db);
    await migrateToLatest(db, schema);
  }
  // Marked last: a schema without its mark (a crash while migrating) is made again.
  const mark = `${fit ? shape : await shapeDigest(client, schema)} ${Date.now()}`;
  await sql`comment on schema ${sql.id(schema)} is ${sql.lit(mark)}`.execute(db);
  if (!fit) await dropOtherVersions(db, version);
  await empty(client, schema);
}

/** A schema's mark: the digest of the shape it was migrated to, and when it was last claimed. */
function markOf(mark: string | null): { shape: string; claimedAt: number } | null {
  const [shape, at] = mark?.split(" ") ?? [];
  const claimedAt = Number(at);
  return shape && Number.isSafeInteger(claimedAt) ? { shape, claimedAt } : null;
}

async function shapeDigest(client: postgres.Sql, schema: string): Promise<string> {
  const query = async (
    text: string,
    params: readonly string[],
  ) => [...await client.unsafe<{ x: string }[]>(text, [...params])];
  const shape = await catalogShape(query, schema);
  const bytes = new TextEncoder().encode(shape);
  return hex(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)));
}

/** Every table but the migrations' bookkeeping emptied, as in a new schema (emptying.ts). */
async function empty(client: postgres.Sql, schema: string): Promise<void> {
  const query = async <R>(
    text: string,
    params: readonly string[],
  ) => [...await client.unsafe<R[]>(text, [...params])];
  const truncate = await emptyingStatement(query, schema);
  if (truncate !== null) await client.unsafe(truncate);
}

/**
 * Drops the pool's schemas of other versions (made by other migrations) that nobody holds and
 * nobody claimed for STALE_VERSION_MS, when this version's pool grows.
 */
async function dropOtherVersions(db: PoolDb, version: string): Promise<void> {
  const { rows } = await sql<{ name: string; mark: string | null }>`
    select nspname as name, obj_description(oid, 'pg_namespace') as mark from pg_namespace
    where starts_with(nspname, ${POOL_PREFIX})`.execute(db);
  const stale = rows.filter(({ name, mark }) =>
    POOL_NAME.test(name) && !name.startsWith(`${POOL_PREFIX}${version}_`) &&
    (markOf(mark)?.claimedAt ?? 0) < Date.now() - STALE_VERSION_MS
  );
  for (const { name } of stale) {
    if (!await tryLock(db, name)) continue;
    try {
      await dropSchema(db, name);
    } finally {
      await sql`select pg_advisory_unlock(${sql.lit(POOL_LOCK_KEY)}, hashtext(${name}))`
        .execute(db);
    }
  }
}
