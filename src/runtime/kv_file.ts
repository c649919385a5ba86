/**
 * The Deno KV file under the actor store (kv_store.ts): made with a page size of our choosing,
 * and another process's hold of its write lock waited out rather than taken for a failure.
 */
import { DatabaseSync } from "node:sqlite";

/** Two processes on one KV file take turns at SQLite's write lock; about two seconds of tries. */
const LOCKED_RETRIES_MAX = 40;

function isLocked(error: unknown): boolean {
  return error instanceof Error && /database is locked|busy/i.test(error.message);
}

/**
 * `write` again while another process (a second instance on the same KV file) holds the SQLite
 * write lock: a lock is transient, never the write's outcome (issue 43: a recovery sweep failed on
 * it instead of waiting).
 */
export async function lockRetried<T>(write: () => Promise<T>): Promise<T> {
  for (let attempt = 0;; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (!(await waitedOutLock(error, attempt))) throw error;
    }
  }
}

/** Waits before another try when `error` is a lock and tries remain; answers whether it did. */
export async function waitedOutLock(error: unknown, attempt: number): Promise<boolean> {
  if (!isLocked(error) || attempt >= LOCKED_RETRIES_MAX) return false;
  await new Promise((r) => setTimeout(r, 2 ** Math.min(attempt, 6)));
  return true;
}

/** A local KV file that does not exist yet (not `:memory:`, not a KV Connect URL). */
export function isNewLocalFile(path: string): boolean {
  if (path === ":memory:" || /^[a-z][a-z0-9+.-]*:\/\//i.test(path)) return false;
  try {
    Deno.statSync(path);
    return false;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return true;
    throw e;
  }
}

/**
 * Deno KV keeps SQLite's default 4 KiB page, which a booking's values (a shipment record and its
 * event, 3 KB each) overflow: every write also reads and writes overflow pages, and the store's
 * thread spends a third more per booking. A database's page size is fixed when its first table is
 * made, and Deno KV keeps the one it finds: so a new file is made first, with KV_PAGE_BYTES pages
 * and write-ahead logging as Deno KV would set. A file made meanwhile by another process keeps
 * its own page size (SQLite ignores the pragma once the file has tables).
 */
export function createWithPageSize(path: string, pageBytes: number): void {
  const db = new DatabaseSync(path);
  try {
    db.exec(`PRAGMA page_size = ${pageBytes}; PRAGMA journal_mode = WAL;`);
    // The page size is written with the first page: make one, and leave the file empty.
    db.exec("CREATE TABLE IF NOT EXISTS page_size_set (x); DROP TABLE page_size_set;");
  } finally {
    db.close();
  }
}
