/**
 * A batch's plan (Business API 2.3, 4.2): one vehicle fitted to the largest stop, each stop priced
 * on its own size by the one fare calculator with that vehicle, and the driving order. Pure: the
 * flow claims and books what this decides; a stop no vehicle can carry refuses the whole batch,
 * naming the stop, before anything is created.
 */
import { reject, type Rejection } from "../../runtime/actor.ts";
import type { Point } from "../../domain/geo.ts";
import { sumMinor } from "../../domain/money.ts";
import type { BodyType, CapacityClass, Catalogue } from "./catalogue.ts";
import { priceTrip, type TripPrice } from "./fare.ts";
import {
  ladderOf,
  type Resolution,
  resolveVehicle,
  sizeRank,
  type UpgradePolicy,
} from "./vehicle.ts";
import { parcelSizeOf, stopOrder, type StopSize } from "./batch.ts";

export interface PlanStop {
  readonly pickup: Point;
  readonly dest: Point;
  readonly size: StopSize;
  readonly weight_kg?: number | undefined;
}

export interface PlanCargo {
  readonly cargo_body_type?: BodyType | undefined;
  readonly cargo_capacity_class?: CapacityClass | undefined;
}

export interface BatchPlan {
  /** spec: business 4.2: the one vehicle, fitted to the largest stop. */
  readonly vehicle: Resolution;
  /** Each stop's price, by its index in the request. */
  readonly prices: readonly TripPrice[];
  /** Indexes of the stops in the driving order. */
  readonly order: readonly number[];
  readonly currency: string;
  readonly total_minor: number;
}

/** A rejection naming the stop it is about (`stops.3: ...`). */
function ofStop(index: number, r: Rejection): Rejection {
  return reject(r.code, `stops.${index}: ${r.message}`, { ...r.details, stop: index });
}

/** The stop that needs the largest vehicle sets it: ranked by payload, then the ladder's order. */
function fittedVehicle(
  c: Catalogue,
  stops: readonly PlanStop[],
  cargo: PlanCargo,
): { ok: true; resolution: Resolution } | Rejection {
  const ladder = ladderOf(c);
  let best: Resolution | null = null;
  for (const [i, s] of stops.entries()) {
    const r = resolveVehicle(c, {
      type: "parcel",
      parcel_size: parcelSizeOf(s.size),
      parcel_weight_kg: s.weight_kg,
      ...cargo,
    }, "upgrade");
    if (!r.ok) return ofStop(i, r);
    const rank = (v: Resolution) => sizeRank(ladder, v.vehicle) * 1_000 + ladder.indexOf(v.vehicle);
    if (best === null || rank(r.resolution) > rank(best)) best = r.resolution;
  }
  if (best === null) return reject("validation_failed", "a batch needs at least one stop");
  return { ok: true, resolution: best };
}

/** Plans a batch, or answers why it cannot be served (nothing is created then). */
export function planBatch(
  c: Catalogue,
  stops: readonly PlanStop[],
  cargo: PlanCargo,
  policy: UpgradePolicy,
): { ok: true; plan: BatchPlan } | Rejection {
  const fitted = fittedVehicle(c, stops, cargo);
  if (!fitted.ok) return fitted;
  const prices: TripPrice[] = [];
  for (const [i, s] of stops.entries()) {
    const p = priceTrip(c, { pickup: s.pickup, stops: [], dest: s.dest }, {
      type: "parcel",
      vehicle_type_id: fitted.resolution.vehicle.id,
      parcel_size: parcelSizeOf(s.size),
      parcel_weight_kg: s.weight_kg,
      ...cargo,
    }, policy);
    if (!p.ok) return ofStop(i, p);
    prices.push(p.price);
  }
  const { currency, zone_id: zone } = prices[0]!.fare;
  // spec: business 3.2, 4.2: one driver in one vehicle collects every stop, so every pickup is in
  // the first's zone (and so priced in its currency); a batch across zones (Gaborone and
  // Francistown, 400 km apart) cannot be served, and nothing is created.
  const elsewhere = prices.flatMap((p, i) => p.fare.zone_id === zone ? [] : [i]);
  if (elsewhere.length > 0) {
    const errors = elsewhere.map((i) => ({
      path: `stops.${i}.pickup_lat`,
      message: `picked up in zone ${prices[i]!.fare.zone_id}, the first stop in ${zone}: one ` +
        "driver collects every stop of a batch",
    }));
    return reject(
      "validation_failed",
      `a batch's pickups are in one zone: ${errors.map((e) => e.path).join(", ")} outside ${zone}`,
      { errors },
    );
  }
  return {
    ok: true,
    plan: {
      vehicle: fitted.resolution,
      prices,
      order: stopOrder(stops[0]!.pickup, stops.map((s) => s.dest)),
      currency,
      total_minor: sumMinor(prices.map((p) => p.fare.amount_minor)),
    },
  };
}
