/**
 * Keyset paging, written once for every list: a page is the rows after the last one of the page
 * before, by a time and then an id, so a page never skips or repeats a row when rows arrive
 * meanwhile (an offset would). The HTTP side turns a keyset into its opaque cursor
 * (src/http/cursor.ts); queries know only keysets.
 */
import { type SelectQueryBuilder, sql, type SqlBool } from "kysely";

/** Where a page ends: its last row's time (epoch ms, or any whole number) and id. */
export interface Keyset {
  readonly at: number;
  readonly id: string;
}

export interface KeysetPage<R> {
  readonly rows: R[];
  /** The keyset to ask the next page after; null on the last page. */
  readonly next: Keyset | null;
}

export interface PageRequest {
  readonly limit: number;
  /** The keyset of the page before; null for the first page. */
  readonly after: Keyset | null;
}

/**
 * One page of `q` ordered by `at` and then `id` (both descending: newest first, or ascending),
 * after `page.after`. The columns are references as the query names them (`a.raised_at`).
 */
export async function keysetPage<DB, TB extends keyof DB, R>(
  q: SelectQueryBuilder<DB, TB, R>,
  keys: { readonly at: string; readonly id: string; readonly order: "asc" | "desc" },
  page: PageRequest,
  keyOf: (row: R) => Keyset,
): Promise<KeysetPage<R>> {
  const at = sql.ref(keys.at);
  const id = sql.ref(keys.id);
  if (page.after !== null) {
    const past = keys.order === "desc" ? sql.raw("<") : sql.raw(">");
    q = q.where(
      sql<SqlBool>`(${at}, ${id}) ${past} (cast(${page.after.at} as bigint), ${page.after.id})`,
    );
  }
  // One row more than the page tells whether another page follows.
  const rows = await q.orderBy(at, keys.order).orderBy(id, keys.order).limit(page.limit + 1)
    .execute();
  const last = rows[page.limit - 1];
  return {
    rows: rows.slice(0, page.limit),
    next: rows.length > page.limit && last !== undefined ? keyOf(last) : null,
  };
}
