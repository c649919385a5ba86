/**
 * What a business's dispatch board opens with (Business API 1.2 and 3.1; the board of issue 38):
 * the business's trips in progress (the `business_trips` read table), the pool drivers on shift
 * holding or offered one of them (the `pool_drivers` read table) with their newest positions
 * known here (none of a driver whose trips here wait queued behind another, nor of one merely
 * offered a trip here while carrying another business's, nor one observed before such a driver
 * last gave up a trip: rules/board_drivers),
 * and the vehicle types' names. The live socket brings every later change.
 */
import type { Trip } from "../../../actors/business/trip/mod.ts";
import { type PoolDriver, poolDriverActor } from "../../../actors/business/pool_driver.ts";
import { newestStoredPosition } from "../queries/driver_positions.ts";
import {
  PLATFORM_SETTINGS_ID,
  PLATFORM_TENANT,
  platformSettingsActor,
} from "../../../actors/platform/platform_settings.ts";
import { orRefuse } from "../../runtime/actor.ts";
import type { Deps } from "../../environment.ts";
import { type OnlineDriver, onlineDrivers, storedPositions } from "../queries/pool_drivers.ts";
import { tripPage } from "../queries/trips.ts";
import type { LivePositions, Position } from "../reactors/live_positions.ts";
import { BoardDrivers, offeredSince } from "../rules/board_drivers.ts";
import { catalogueOf } from "./fares.ts";

/** Trips a board opens with: its list page's largest; later ones arrive live. */
export const BOARD_TRIPS_MAX = 500;

export interface DispatchBoardState {
  readonly trips: readonly Trip[];
  readonly drivers: readonly (OnlineDriver & { readonly position: Position | null })[];
  readonly vehicle_types: readonly { readonly id: number; readonly name: string }[];
  /** spec: business 2.4 rule 3: the age past which a position is shown as last known. */
  readonly position_fresh_seconds: number;
}

export async function dispatchBoardState(
  deps: Pick<Deps, "db" | "runtime">,
  positions: LivePositions,
  tenant: string,
): Promise<DispatchBoardState> {
  const [trips, catalogue, settings] = await Promise.all([
    tripsInProgress(deps, tenant),
    catalogueOf(deps),
    deps.runtime.read(platformSettingsActor, PLATFORM_TENANT, PLATFORM_SETTINGS_ID, {
      kind: "get",
    }),
  ]);
  // Only the drivers on the business's trips: where another's driver is is not its to see.
  const board = new BoardDrivers();
  for (const t of trips) board.trip(t);
  await tellCarrying(deps, board, tenant);
  const drivers = await onlineDrivers(deps.db, board.ids());
  // Memory first (this instance's pings, newest); the stored batches for the others.
  const unheard = drivers.filter((d) => positions.latest(d.id) === null).map((d) => d.id);
  const stored = await storedPositions(deps.db, unheard);
  const seen = (d: OnlineDriver) => {
    const p = positions.latest(d.id) ?? stored.get(d.id) ?? null;
    // spec: business 3.1 queued: none observed on the driver's trip under way, maybe another's.
    return p !== null && board.sees(d.id, p.at) ? p : null;
  };
  return {
    trips,
    drivers: drivers.map((d) => ({ ...d, position: seen(d) })),
    vehicle_types: catalogue.vehicle_types.map((v) => ({ id: v.id, name: v.name })),
    position_fresh_seconds: orRefuse(settings).position_fresh_seconds,
  };
}

/**
 * Tells the board what its merely offered drivers carry (spec: business 3.1; tenant isolation):
 * one carrying another business's trip, or unreadable now, stays without a position, and one who
 * gave up a trip is seen only where observed since (offeredSince).
 */
async function tellCarrying(
  deps: Pick<Deps, "runtime">,
  board: BoardDrivers,
  tenant: string,
): Promise<void> {
  await Promise.all(
    board.offered().map(async (id) => {
      const r = await deps.runtime.read(poolDriverActor, PLATFORM_TENANT, id, { kind: "get" });
      if (r.ok && r.reply !== null) board.carrying(id, offeredSince(r.reply, tenant));
    }),
  );
}

/** The business's trips in progress a board opens with (and its feed learns its drivers from). */
export async function tripsInProgress(
  deps: Pick<Deps, "db">,
  tenant: string,
): Promise<readonly Trip[]> {
  const page = await tripPage(deps.db, tenant, { active: true }, {
    limit: BOARD_TRIPS_MAX,
    after: null,
  });
  return page.rows;
}

/**
 * A pool driver who came onto the board (a trip of the business offered to them or accepted by
 * them): who they are and their newest position, or null when off shift or unknown.
 */
export async function boardDriver(
  deps: Pick<Deps, "db" | "runtime">,
  positions: LivePositions,
  driverId: string,
): Promise<{ readonly driver: PoolDriver; readonly position: Position | null } | null> {
  const r = await deps.runtime.read(poolDriverActor, PLATFORM_TENANT, driverId, { kind: "get" });
  if (!r.ok || !r.reply.online) return null;
  return { driver: r.reply, position: await newestPosition(deps, positions, driverId) };
}

/** The driver's newest position: this instance's, else the newest stored one. */
export async function newestPosition(
  deps: Pick<Deps, "db">,
  positions: LivePositions,
  driverId: string,
): Promise<Position | null> {
  return positions.latest(driverId) ?? await newestStoredPosition(deps.db, driverId);
}
