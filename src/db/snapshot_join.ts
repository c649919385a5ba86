/**
 * An actor's snapshot read by its primary key beside a read table's row: the table's columns
 * filter, sort and page a list, and only the rows of the page are read whole, for the views that
 * show an actor's summary as it was projected. Null while the snapshot is not written yet.
 */
import { type Kysely, type RawBuilder, sql } from "kysely";
import type { Database } from "./schema.ts";

/** The snapshot of the actor of `type` whose id is the column `idRef` (`alerts.id`). */
export function snapshotData(type: string, idRef: string): RawBuilder<unknown> {
  return sql<unknown>`(select s.data from snapshots s where s.type = ${type}
    and s.id = ${sql.ref(idRef)})`;
}

/** The rows whose snapshot is written, as their snapshots. */
export function snapshotsOf<T>(rows: readonly { readonly data: unknown }[]): T[] {
  return rows.flatMap((r) => r.data === null || r.data === undefined ? [] : [r.data as T]);
}

/** Which of these actors of `type` the query side holds a snapshot of (by primary key). */
export async function snapshotsHeld(
  db: Kysely<Database>,
  type: string,
  ids: readonly string[],
): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db.selectFrom("snapshots").select("id")
    .where("type", "=", type)
    .where("id", "in", ids)
    .execute();
  return new Set(rows.map((r) => r.id));
}
