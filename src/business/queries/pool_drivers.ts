/**
 * The dispatch pool's drivers on shift (Business API 1.2), as the dispatch board lists them: the
 * `pool_drivers` read table (migration 0024), written by the business read tables' projection
 * from the pool_driver actor's snapshots.
 */
import type { Kysely } from "kysely";
import type { Position } from "../reactors/live_positions.ts";
import { PLATFORM_TENANT } from "../../../actors/platform/platform_settings.ts";
import type { ReadTable } from "../../db/read_tables.ts";
import type { Database } from "../../db/schema.ts";

interface PoolDriverValues {
  readonly name: string;
  readonly vehicle_type_id: number;
  readonly zone_id: string;
  readonly online: number;
}

export const poolDriversTable: ReadTable<PoolDriverValues> = {
  table: "pool_drivers",
  actorType: "pool_driver",
  columns: { name: "text", vehicle_type_id: "integer", zone_id: "text", online: "integer" },
  rowOf: (snapshot) => {
    const d = snapshot as Partial<Record<keyof PoolDriverValues, unknown>>;
    if (typeof d.name !== "string" || typeof d.vehicle_type_id !== "number") {
      throw new TypeError("a pool driver snapshot must have a name and a vehicle_type_id");
    }
    return {
      name: d.name,
      vehicle_type_id: d.vehicle_type_id,
      zone_id: String(d.zone_id),
      online: d.online === true ? 1 : 0,
    };
  },
};

/** A driver on shift as the board shows them (never the phone or the token). */
export interface OnlineDriver {
  readonly id: string;
  readonly version: number;
  readonly name: string;
  readonly vehicle_type_id: number;
  readonly zone_id: string;
}

/** Those of these drivers who are on shift, by id. */
export async function onlineDrivers(
  db: Kysely<Database>,
  driverIds: readonly string[],
): Promise<OnlineDriver[]> {
  if (driverIds.length === 0) return [];
  const rows = await db.selectFrom("pool_drivers")
    .select(["id", "version", "name", "vehicle_type_id", "zone_id"])
    .where("tenant", "=", PLATFORM_TENANT)
    .where("id", "in", [...driverIds])
    .where("online", "=", 1)
    .orderBy("id")
    .execute();
  return rows.map((r) => ({ ...r, version: Number(r.version) }));
}

/**
 * The newest stored position of each of these drivers (the batches of `driver_positions`): for
 * drivers whose pings reach another instance, or came before this one started.
 */
export async function storedPositions(
  db: Kysely<Database>,
  driverIds: readonly string[],
): Promise<Map<string, Position>> {
  if (driverIds.length === 0) return new Map();
  const rows = await db.selectFrom("driver_positions")
    .distinctOn("driver_id")
    .select(["driver_id", "at", "lat", "lng", "accuracy", "heading"])
    .where("driver_id", "in", [...driverIds])
    .orderBy("driver_id")
    .orderBy("at", "desc")
    .execute();
  return new Map(rows.map((r) => [r.driver_id, {
    lat: r.lat,
    lng: r.lng,
    accuracy: r.accuracy,
    heading: r.heading,
    at: Number(r.at),
  }]));
}
