/**
 * What a business's dispatch board opens with (Business API 1.2 and 3.1; the board of issue 38):
 * the business's trips in progress (the `business_trips` read table), the pool's drivers on shift
 * (the `pool_drivers` read table) with their newest positions known here, and the vehicle types'
 * names. The live socket brings every later change.
 */
import type { Trip } from "../../../actors/business/trip/mod.ts";
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
import { catalogueOf } from "./fares.ts";

/** Trips a board opens with: its list page's largest; later ones arrive live. */
export const BOARD_TRIPS_MAX = 500;
/** Drivers on shift a board opens with (the map's dots). */
export const BOARD_DRIVERS_MAX = 2_000;

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
  const [page, drivers, catalogue, settings] = await Promise.all([
    tripPage(deps.db, tenant, { active: true }, { limit: BOARD_TRIPS_MAX, after: null }),
    onlineDrivers(deps.db, BOARD_DRIVERS_MAX),
    catalogueOf(deps),
    deps.runtime.read(platformSettingsActor, PLATFORM_TENANT, PLATFORM_SETTINGS_ID, {
      kind: "get",
    }),
  ]);
  // Memory first (this instance's pings, newest); the stored batches for the others.
  const unheard = drivers.filter((d) => positions.latest(d.id) === null).map((d) => d.id);
  const stored = await storedPositions(deps.db, unheard);
  return {
    trips: page.rows,
    drivers: drivers.map((d) => ({
      ...d,
      position: positions.latest(d.id) ?? stored.get(d.id) ?? null,
    })),
    vehicle_types: catalogue.vehicle_types.map((v) => ({ id: v.id, name: v.name })),
    position_fresh_seconds: orRefuse(settings).position_fresh_seconds,
  };
}
