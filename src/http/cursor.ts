/**
 * Keyset cursors of newest-first lists: the last row's time and id, opaque to the client
 * (`meta.next_cursor`), so a page never skips or repeats a row when new ones arrive.
 */
import { validationFailed } from "./errors.ts";

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
    if (Number.isSafeInteger(at) && typeof id === "string") return { at: at as number, id };
  } catch {
    // falls through to the refusal
  }
  throw validationFailed([{ path: "cursor", message: "not a cursor this list gave" }]);
}
