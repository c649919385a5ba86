/**
 * Keyset cursors of newest-first lists: the last row's time and id, opaque to the client
 * (`meta.next_cursor`), so a page never skips or repeats a row when new ones arrive.
 */
import { type SelectQueryBuilder, sql } from "kysely";
import type { Database } from "../db/schema.ts";
import { validationFailed } from "./errors.ts";
import { storableText } from "./route.ts";

export interface Cursor {
  readonly at: number;
  readonly id: string;
}

export function encodeCursor(at: number, id: string): string {
  return btoa(JSON.stringify([at, id])).replaceAll("=", "");
}

export function decodeCursor(cursor: string): Cursor {
  try {
    const [at, id] = JSON.parse(atob(cursor)) as unknown[];
    if (Number.isSafeInteger(at) && typeof id === "string" && storableText(id)) {
      return { at: at as number, id };
    }
  } catch {
    // falls through to the refusal
  }
  throw validationFailed([{ path: "cursor", message: "not a cursor this list gave" }]);
}

/**
 * One page of a snapshot query, newest first by the data's `field` (epoch ms) and then by id:
 * the rows after `cursor` and the cursor of the page after them, null on the last page.
 */
export async function newestFirst<R extends { id: string; data: unknown }>(
  q: SelectQueryBuilder<Database, "snapshots", R>,
  field: "booked_at" | "created_at",
  page: { readonly limit: number; readonly cursor?: string | undefined },
): Promise<{ rows: R[]; next_cursor: string | null }> {
  const at = sql<number>`(data->>${sql.lit(field)})::bigint`;
  if (page.cursor) {
    const after = decodeCursor(page.cursor);
    q = q.where(sql<boolean>`(${at}, id) < (cast(${after.at} as bigint), ${after.id})`);
  }
  // One row more than the page tells whether another page follows.
  const rows = await q.orderBy(at, "desc").orderBy("id", "desc").limit(page.limit + 1).execute();
  const last = rows[page.limit - 1];
  const next = rows.length > page.limit && last
    ? encodeCursor(Number((last.data as Record<string, unknown>)[field]), last.id)
    : null;
  return { rows: rows.slice(0, page.limit), next_cursor: next };
}
