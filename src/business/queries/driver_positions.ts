/**
 * The pool drivers' stored positions (migration 0023's `driver_positions`, written in batches by
 * LivePositions): a driver's newest one, for an instance that did not hear the ping itself, and a
 * trip's breadcrumb (Business API 2.4 route_polyline). Both read the table's (driver_id, at) key.
 */
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { Position } from "../reactors/live_positions.ts";

/**
 * Points a breadcrumb reads at most: a driver pinging every 5 s for over 4 hours. A longer trip
 * shows its first points; the live position is shown beside it anyway.
 */
export const BREADCRUMB_POINTS_MAX = 3_000;

/** The driver's newest stored position, or null. */
export async function newestStoredPosition(
  db: Kysely<Database>,
  driverId: string,
): Promise<Position | null> {
  const row = await db.selectFrom("driver_positions")
    .select(["lat", "lng", "accuracy", "heading", "at"])
    .where("driver_id", "=", driverId)
    .orderBy("at", "desc")
    .limit(1)
    .executeTakeFirst();
  return row ? { ...row, at: Number(row.at) } : null;
}

/** The driver's stored positions observed from `from` to `to` (inclusive), oldest first. */
export async function breadcrumb(
  db: Kysely<Database>,
  driverId: string,
  from: number,
  to: number,
): Promise<{ lat: number; lng: number; at: number }[]> {
  const rows = await db.selectFrom("driver_positions")
    .select(["lat", "lng", "at"])
    .where("driver_id", "=", driverId)
    .where("at", ">=", from)
    .where("at", "<=", to)
    .orderBy("at", "asc")
    .limit(BREADCRUMB_POINTS_MAX)
    .execute();
  return rows.map((r) => ({ lat: r.lat, lng: r.lng, at: Number(r.at) }));
}
