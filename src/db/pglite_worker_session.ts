/** The query side on PGlite in a worker: Kysely over the proxy (pglite_proxy.ts). */
import { Kysely } from "kysely";
import { pgliteArtifacts } from "./pglite.ts";
import { PGliteDialect } from "./pglite_dialect.ts";
import { PGliteWorker, type PGliteWorkerOptions } from "./pglite_proxy.ts";
import type { Database } from "./schema.ts";

/**
 * PGlite in a worker as the query side (pglite_proxy.ts): the serving thread keeps only the
 * proxy; closing ends the worker.
 */
export async function workerSessionOf(
  options: Omit<PGliteWorkerOptions, "artifacts">,
): Promise<PGliteWorkerSession> {
  const worker = await PGliteWorker.open({ ...options, artifacts: await pgliteArtifacts() });
  let ended: Promise<void> | null = null;
  const end = () => ended ??= worker.close();
  const db = new Kysely<Database>({
    dialect: new PGliteDialect({ pglite: worker, release: end }),
  });
  const close = async () => {
    await db.destroy();
    await end();
  };
  return { db, kind: "pglite", close, worker };
}

/** A PGlite query side whose instance runs in a worker. */
export interface PGliteWorkerSession {
  readonly db: Kysely<Database>;
  readonly kind: "pglite";
  readonly worker: PGliteWorker;
  close(): Promise<void>;
}
