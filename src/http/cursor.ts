/**
 * Keyset cursors of the lists: a page's last row's time and id (src/db/keyset.ts), opaque to the
 * client (`meta.next_cursor`), so a page never skips or repeats a row when new ones arrive.
 */
import type { Keyset } from "../db/keyset.ts";
import { validationFailed } from "./errors.ts";
import { storableText } from "./route.ts";

export function encodeCursor(at: number, id: string): string {
  return btoa(JSON.stringify([at, id])).replaceAll("=", "");
}

export function decodeCursor(cursor: string): Keyset {
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

/** The keyset a list's `cursor` query parameter asks the page after; null for the first. */
export function afterCursor(cursor: string | undefined): Keyset | null {
  return cursor ? decodeCursor(cursor) : null;
}

/** The `meta.next_cursor` of a page that ended at `next`; null on the last page. */
export function nextCursor(next: Keyset | null): string | null {
  return next === null ? null : encodeCursor(next.at, next.id);
}

/**
 * The billing event outbox's cursors (courier 4.3), `<created_at>|<event_id>` as they were first
 * given: integrators may hold them.
 */
export function afterPlainCursor(cursor: string | undefined): Keyset | null {
  if (!cursor) return null;
  const [at, id] = cursor.split("|");
  // A cursor this list never gave is bad input, 422 (CONTRACT errors): a time past any bigint
  // (20 digits) reached Postgres and answered 500.
  if (!at || !id || !/^\d+$/.test(at) || !Number.isSafeInteger(Number(at))) {
    throw validationFailed([{ path: "cursor", message: "not a cursor from this list" }]);
  }
  return { at: Number(at), id };
}

export function nextPlainCursor(next: Keyset | null): string | null {
  return next === null ? null : `${next.at}|${next.id}`;
}
