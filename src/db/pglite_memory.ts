/**
 * In-memory PGlite (the tests and the bench open hundreds): each open loads a database migrated
 * once per process instead of running initdb and every migration again, and where the process
 * asks for it (the tests), an instance its opener closed is kept, emptied, for the next opener
 * when nothing but rows changed in it.
 */
import type { PGlite } from "@electric-sql/pglite";
import { catalogShape } from "./catalog_shape.ts";
import { emptyingStatement } from "./emptying.ts";
import { migrateToLatest } from "./migrate.ts";
import { closePGlite, createPGlite, type PGliteSession, sessionOf } from "./pglite.ts";
import { type PGliteWorkerSession, workerSessionOf } from "./pglite_worker_session.ts";
import type { PGliteTarget } from "./pglite_dialect.ts";
import { cachedTemplate } from "./pglite_template_cache.ts";

/** The schema the template is migrated in; an opener's schema takes its place by renaming. */
const TEMPLATE_SCHEMA = "pglite_template";
/** The schema of an instance kept for the next opener. */
const IDLE_SCHEMA = "pglite_idle";
/**
 * Instances kept; each holds its WebAssembly memory, and a kept instance keeps the process
 * running, so none are kept unless asked (keepClosedInstances).
 */
let idleMax = 0;

/** Keeps up to `max` instances closed by their openers for the next (tests: one per worker). */
export function keepClosedInstances(max: number): void {
  idleMax = max;
}

/** Where the migrated template is kept between processes; unset: made once per process. */
let templateDir: string | null = null;

/**
 * Keeps the migrated template in `dir` for other processes and isolates (the tests: each test
 * file would otherwise migrate its own); pglite_template_cache.ts.
 */
export function keepTemplateIn(dir: string): void {
  templateDir = dir;
}

interface Template {
  readonly dump: Blob;
  /** The shape of its catalog (fingerprint), which a kept instance must still have. */
  readonly shape: string;
}

let template: Promise<Template> | null = null;
const idle: PGlite[] = [];

export async function openInMemory(schema: string): Promise<PGliteSession> {
  const { dump, shape } = await migrated();
  const kept = idle.pop();
  const pglite = kept ?? await createPGlite({ loadDataDir: dump });
  try {
    await takeSchema(pglite, kept ? IDLE_SCHEMA : TEMPLATE_SCHEMA, schema);
  } catch (error) {
    await pglite.close();
    throw error;
  }
  return await sessionOf(pglite, schema, (p) => keepOrClose(p, schema, shape));
}

function migrated(): Promise<Template> {
  const dir = templateDir;
  template ??= (dir === null ? migratedTemplate() : cachedTemplate(dir, migratedTemplate)).catch(
    (error) => {
      template = null;
      throw error;
    },
  );
  return template;
}

/**
 * PGlite in a worker started from the migrated template: in memory (the bench's embedded
 * defaults), or in a data folder that is empty (tests of a server's worker, without initdb).
 */
export async function openWorkerFromTemplate(
  options: { readonly schema: string; readonly dataDir?: string },
): Promise<PGliteWorkerSession> {
  const { dump } = await migrated();
  const session = await workerSessionOf({ ...options, loadDataDir: dump });
  try {
    await takeSchema(session.worker, TEMPLATE_SCHEMA, options.schema);
  } catch (error) {
    await session.close();
    throw error;
  }
  return session;
}

async function migratedTemplate(): Promise<Template> {
  const pglite = await createPGlite({});
  const handle = await sessionOf(pglite, TEMPLATE_SCHEMA, async () => {});
  try {
    await migrateToLatest(handle.db, TEMPLATE_SCHEMA);
    await pglite.exec("discard all");
    await dropTemplateDatabases(pglite);
    const shape = await fingerprint(pglite, TEMPLATE_SCHEMA);
    return { dump: await pglite.dumpDataDir("none"), shape };
  } finally {
    await handle.close();
    await pglite.close();
  }
}

/**
 * initdb's template databases, which an instance in memory never uses (its one session is in
 * `postgres`, and nothing here creates a database): without them the dump is 27 MB instead of 42,
 * and an instance opens from it in about half the time. The checkpoint writes out what the drops
 * changed, so an instance opened from the dump has no log to replay.
 */
async function dropTemplateDatabases(pglite: PGlite): Promise<void> {
  for (const name of ["template0", "template1"]) {
    await pglite.exec(`alter database ${name} is_template false`);
    await pglite.exec(`drop database ${name}`); // alone: not inside a transaction block
  }
  await pglite.exec("checkpoint");
}

/** `from` takes the opener's name; functions that pinned their search_path pin the new name. */
async function takeSchema(
  pglite: Pick<PGliteTarget, "query">,
  from: string,
  schema: string,
): Promise<void> {
  await pglite.query(`drop schema if exists ${schema} cascade`);
  await pglite.query(`alter schema ${from} rename to ${schema}`);
  const pinned = await pglite.query<{ f: string }>(
    `select p.oid::regprocedure::text as f from pg_proc p
      join pg_namespace n on n.oid = p.pronamespace
      where n.nspname = $1 and p.proconfig is not null`,
    [schema],
  );
  for (const { f } of pinned.rows) {
    await pglite.query(`alter function ${f} set search_path to ${schema}`);
  }
}

/** Kept for the next opener if there is room and it empties cleanly; closed otherwise. */
async function keepOrClose(pglite: PGlite, schema: string, shape: string): Promise<void> {
  if (pglite.closed) return;
  if (idle.length < idleMax && await emptied(pglite, schema, shape)) {
    idle.push(pglite);
    return;
  }
  await closePGlite(pglite);
}

/**
 * Empties the instance for another opener: its session as new (DISCARD ALL closes cursors and
 * resets settings, and refuses inside a transaction), its catalog as the template's (a test that
 * added a constraint or a table leaves it unfit), every table but the migrations' emptied
 * (emptying.ts).
 */
async function emptied(pglite: PGlite, schema: string, shape: string): Promise<boolean> {
  try {
    await pglite.exec("discard all");
    if (await fingerprint(pglite, schema) !== shape) return false;
    const query = async <R>(text: string, params: readonly string[]) =>
      (await pglite.query<R>(text, [...params])).rows;
    const truncate = await emptyingStatement(query, schema);
    await pglite.exec(`${truncate ?? ""};
      alter schema ${schema} rename to ${IDLE_SCHEMA};`);
    return true;
  } catch {
    return false;
  }
}

/** The catalog's shape (catalog_shape.ts), with its schemas: the instance is the tests' alone. */
async function fingerprint(pglite: PGlite, schema: string): Promise<string> {
  const query = async (text: string, params: readonly string[]) =>
    (await pglite.query<{ x: string }>(text, [...params])).rows;
  return await catalogShape(query, schema, { schemas: true });
}
