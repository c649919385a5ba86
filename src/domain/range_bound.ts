/**
 * One edge of a date range a caller names (an export's `from` and `to`): a calendar day
 * `YYYY-MM-DD`, read as the whole day in UTC, or an ISO 8601 instant with its offset, read as it
 * is (without one, at the days' offset). Shared by the exports so that every file reads its
 * range the same way.
 */
import { EXPORT_BOUND_YEAR_MAX, EXPORT_BOUND_YEAR_MIN } from "../limits.ts";

const DAY = /^\d{4}-\d{2}-\d{2}$/;
/** An ISO 8601 date and time without an offset (`2026-11-30T18:00`, seconds optional). */
const LOCAL_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?$/;

export type RangeBound =
  | { readonly ok: true; readonly at: Date }
  | { readonly ok: false; readonly message: string };

/**
 * A day or an instant; a day starts at 00:00 (`start`) or ends at 23:59:59.999 (`end`) at
 * `dayOffset` (UTC unless the document names its market's time, e.g. `+02:00`), where a time
 * without an offset is read too.
 */
export function rangeBound(text: string, edge: "start" | "end", dayOffset = "Z"): RangeBound {
  // A time without an offset is read at the days' offset too: `new Date` would read it in the
  // server's own zone, so the same query would name other hours on another machine.
  const date = DAY.test(text)
    ? new Date(`${text}T${edge === "start" ? "00:00:00.000" : "23:59:59.999"}${dayOffset}`)
    : LOCAL_TIME.test(text)
    ? new Date(`${text}${dayOffset}`)
    : new Date(text);
  if (Number.isNaN(date.getTime())) return { ok: false, message: "not a date" };
  // Date rolls 2026-11-31 into December: a "November" range would take December's rows.
  const [y, m, d] = text.slice(0, 10).split("-").map(Number) as [number, number, number];
  const day = new Date(Date.UTC(y, m - 1, d));
  if (day.getUTCMonth() !== m - 1 || day.getUTCDate() !== d) {
    return { ok: false, message: `no such day: ${text.slice(0, 10)}` };
  }
  // A time Postgres cannot hold would fail the query after the answer had begun.
  const year = date.getUTCFullYear();
  if (year < EXPORT_BOUND_YEAR_MIN || year > EXPORT_BOUND_YEAR_MAX) {
    return {
      ok: false,
      message: `a date from ${EXPORT_BOUND_YEAR_MIN} to ${EXPORT_BOUND_YEAR_MAX}: ${text}`,
    };
  }
  return { ok: true, at: date };
}
