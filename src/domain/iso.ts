/**
 * Times in answers: ISO 8601 in UTC (`2026-11-23T09:30:00.000Z`), null where no time is known.
 * State keeps epoch milliseconds; every answer formats them here.
 */
export function iso(ms: number): string;
export function iso(ms: number | null | undefined): string | null;
export function iso(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : new Date(ms).toISOString();
}
