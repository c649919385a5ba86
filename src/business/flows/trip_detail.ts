/**
 * One trip as GET /business/trips/{id} answers it (Business API 4.1: "one trip, with receipt and
 * route"): the trip, and the path its driver has driven so far (the stored breadcrumb the
 * tracking view encodes, spec 2.4 rule 4); the receipt is the trip's own fare lines.
 */
import type { Trip } from "../../../actors/business/trip/mod.ts";
import { askTrip } from "./trips.ts";
import type { Deps } from "../../environment.ts";
import { breadcrumbOf } from "./tracking.ts";

export interface TripDetail {
  readonly trip: Trip;
  /** The driver's stored positions since the trip began, oldest first; none before a driver. */
  readonly travelled: readonly { readonly lat: number; readonly lng: number }[];
}

/** The caller's trip with the path driven; another business's trip is not found. */
export async function tripDetail(
  deps: Pick<Deps, "runtime" | "db" | "clock">,
  business: string,
  idOrReference: string,
): Promise<TripDetail> {
  const { trip } = await askTrip(deps, business, idOrReference, { kind: "get" });
  const travelled = await breadcrumbOf(deps, trip, deps.clock.now());
  return { trip, travelled };
}
