/**
 * Vehicle resolution (Business API 2.2, 3.2): the smallest vehicle that can do the job. Weight and
 * declared size disagreeing, the larger wins; volumetric weight counts for the band; a cargo body
 * type and capacity class are minimums; a named vehicle_type_id too small for the goods follows
 * the account's vehicle_upgrade_policy.
 */
import { type FieldError, invalidFields, reject, type Rejection } from "../../runtime/actor.ts";
import {
  atMost,
  ceilScaled,
  type Decimal,
  decimalOf,
  productOf,
  sumOf,
} from "../../domain/decimal.ts";
import {
  BODY_TYPES,
  type BodyType,
  CAPACITY_CLASSES,
  type CapacityClass,
  type Catalogue,
  type ParcelSize,
  type VehicleType,
  vehicleTypeOf,
} from "./catalogue.ts";

/** spec: business 3.2; the account's setting (actors/platform/business VEHICLE_UPGRADE_POLICIES). */
export type UpgradePolicy = "upgrade" | "upgrade_one_size" | "refuse";

/** One goods line (business 2.5): its weight and outer dimensions. */
export interface GoodsLine {
  readonly weight_kg?: number | undefined;
  readonly length_cm: number;
  readonly width_cm: number;
  readonly height_cm: number;
  /** Must travel standing: its height stays the height. */
  readonly upright?: boolean | undefined;
}

/** What a booking declares about its load (business 2.1), all optional. */
export interface Declared {
  /** spec: business 2.1 type; a ride needs a vehicle that takes passengers. Default parcel. */
  readonly type?: "ride" | "parcel" | undefined;
  readonly parcel_weight_kg?: number | undefined;
  readonly parcel_size?: string | undefined;
  readonly goods?: readonly GoodsLine[] | undefined;
  readonly cargo_body_type?: BodyType | undefined;
  readonly cargo_capacity_class?: CapacityClass | undefined;
  readonly vehicle_type_id?: number | undefined;
}

/** The declared and resolved fields of business 2.2. */
export interface Resolution {
  readonly parcel_size: ParcelSize;
  readonly cargo_body_type: BodyType | null;
  readonly cargo_capacity_class: CapacityClass | null;
  /** Null when no goods line states dimensions. */
  readonly volumetric_weight_kg: number | null;
  readonly vehicle: VehicleType;
  readonly vehicle_upgraded: boolean;
  readonly vehicle_upgrade_reason: string | null;
}

/** The declared and resolved fields of business 2.2, as a trip keeps and echoes them. */
export interface VehicleFields {
  readonly parcel_size: string;
  readonly parcel_size_label: string;
  readonly parcel_weight_min_kg: number;
  readonly parcel_weight_max_kg: number;
  readonly cargo_body_type: BodyType | null;
  readonly cargo_capacity_class: CapacityClass | null;
  readonly volumetric_weight_kg: number | null;
  readonly vehicle_class: Pick<VehicleType, "id" | "name" | "body_type" | "capacity_class">;
  readonly vehicle_upgraded: boolean;
  readonly vehicle_upgrade_reason: string | null;
}

export function vehicleFields(r: Resolution): VehicleFields {
  const { id, name, body_type, capacity_class } = r.vehicle;
  return {
    parcel_size: r.parcel_size.size_key,
    parcel_size_label: r.parcel_size.label,
    parcel_weight_min_kg: r.parcel_size.min_kg,
    parcel_weight_max_kg: r.parcel_size.max_kg,
    cargo_body_type: r.cargo_body_type,
    cargo_capacity_class: r.cargo_capacity_class,
    volumetric_weight_kg: r.volumetric_weight_kg,
    vehicle_class: { id, name, body_type, capacity_class },
    vehicle_upgraded: r.vehicle_upgraded,
    vehicle_upgrade_reason: r.vehicle_upgrade_reason,
  };
}

export type Resolved = { readonly ok: true; readonly resolution: Resolution } | Rejection;

/** The load in numbers the checks compare. */
interface Need {
  readonly band: ParcelSize;
  readonly grams: number;
  readonly lines: readonly GoodsLine[];
  readonly body: BodyType | undefined;
  readonly capacity: CapacityClass | undefined;
  readonly ride: boolean;
}

/**
 * The declared fields that name nothing in the catalogue (parcel_size, vehicle_type_id), each
 * named: a booking refuses them together with its other bad fields (spec: business 2.1, 7).
 */
export function unknownDeclared(c: Catalogue, d: Declared): FieldError[] {
  const problems: FieldError[] = [];
  if (d.parcel_size !== undefined && !c.parcel_sizes.some((s) => s.size_key === d.parcel_size)) {
    const keys = c.parcel_sizes.map((s) => s.size_key).join(", ");
    problems.push({ path: "parcel_size", message: `one of ${keys}: ${d.parcel_size}` });
  }
  if (d.vehicle_type_id !== undefined && !vehicleTypeOf(c, d.vehicle_type_id)) {
    problems.push({
      path: "vehicle_type_id",
      message: `no vehicle type ${d.vehicle_type_id}: see GET /business/vehicle-types`,
    });
  }
  return problems;
}

export function resolveVehicle(c: Catalogue, d: Declared, policy: UpgradePolicy): Resolved {
  const unknown = unknownDeclared(c, d);
  if (unknown.length > 0) return invalidFields(unknown);
  const need = needOf(c, d);
  if (!need.ok) return need;
  const { value: n, volumetricGrams } = need;
  const ladder = ladderOf(c);
  const requested = d.vehicle_type_id === undefined
    ? undefined
    : vehicleTypeOf(c, d.vehicle_type_id);
  const done = (vehicle: VehicleType, reason: string | null): Resolved => ({
    ok: true,
    resolution: {
      parcel_size: n.band,
      cargo_body_type: n.body ?? null,
      cargo_capacity_class: n.capacity ?? null,
      volumetric_weight_kg: volumetricGrams === null ? null : volumetricGrams / 1_000,
      vehicle,
      vehicle_upgraded: reason !== null,
      vehicle_upgrade_reason: reason,
    },
  });
  if (requested && whyNot(requested, n) === null) return done(requested, null);
  const floor = requested ? sizeRank(ladder, requested) : 0;
  const chosen = ladder.find((v) => sizeRank(ladder, v) >= floor && whyNot(v, n) === null);
  if (!chosen) return noVehicle(ladder, n);
  if (!requested) return done(chosen, null);
  const reason = `${whyNot(requested, n)}: ${chosen.name} instead`;
  if (policy === "refuse") {
    return upgradeRefused(requested, `${reason}; the account refuses vehicle upgrades`);
  }
  if (policy === "upgrade_one_size" && sizeRank(ladder, chosen) > floor + 1) {
    return upgradeRefused(
      requested,
      `${reason}, more than one size up; the account caps ` +
        "upgrades at one size",
    );
  }
  return done(chosen, reason);
}

function upgradeRefused(requested: VehicleType, reason: string): Rejection {
  return reject("vehicle_upgrade_refused", `vehicle type ${requested.id} refused: ${reason}`, {
    vehicle_type_id: requested.id,
    reason,
  });
}

/** Why no vehicle of the catalogue can do it: what stops the largest. */
function noVehicle(ladder: readonly VehicleType[], n: Need): Rejection {
  const largest = ladder.at(-1);
  const why = largest ? whyNot(largest, n) : "the catalogue has no vehicles";
  return reject("no_vehicle_fits", `no vehicle can carry these goods: ${why}`);
}

/** The band and the load the goods declare; the band is the larger of weight's and size's. */
function needOf(
  c: Catalogue,
  d: Declared,
): { ok: true; value: Need; volumetricGrams: number | null } | Rejection {
  const lines = d.goods ?? [];
  const lineGrams = lines.reduce((sum, l) => sum + grams(l.weight_kg ?? 0), 0);
  const actual = Math.max(grams(d.parcel_weight_kg ?? 0), lineGrams);
  // Exact from the centimetres sent: added in floating point, goods of exactly a band's top
  // weighed a gram more and were billed the next band (spec: business 2.5, 3.2).
  const volumetricGrams = lines.length === 0
    ? null
    : Number(ceilScaled(volumeOf(lines), 1_000n, BigInt(c.volumetric_divisor)));
  const chargeable = Math.max(actual, volumetricGrams ?? 0);
  const byWeight = c.parcel_sizes.findIndex((s) => chargeable <= grams(s.max_kg));
  if (byWeight < 0) {
    const top = c.parcel_sizes.at(-1)?.max_kg ?? 0;
    return reject(
      "no_vehicle_fits",
      `no vehicle can carry these goods: ${chargeable / 1_000} kg (volumetric weight included) ` +
        `is above the largest parcel size's ${top} kg`,
    );
  }
  // A parcel_size the catalogue lacks was refused first (unknownDeclared).
  const bySize = Math.max(0, c.parcel_sizes.findIndex((s) => s.size_key === d.parcel_size));
  const bandIndex = Math.max(byWeight, bySize);
  return {
    ok: true,
    volumetricGrams,
    value: {
      band: c.parcel_sizes[bandIndex]!,
      grams: actual,
      lines,
      body: d.cargo_body_type,
      capacity: d.cargo_capacity_class,
      ride: d.type === "ride",
    },
  };
}

/** Why the vehicle cannot do the job, or null when it can. */
function whyNot(v: VehicleType, n: Need): string | null {
  if (n.ride && v.passenger_seats < 1) return `the ${v.name} takes no passengers`;
  if (n.grams > grams(v.payload_kg)) {
    return `the goods weigh ${n.grams / 1_000} kg, above the ${v.name}'s payload of ` +
      `${v.payload_kg} kg`;
  }
  if (!n.band.eligible_vehicle_type_ids.includes(v.id)) {
    return `${v.name} does not carry the ${n.band.size_key} parcel size`;
  }
  if (n.body && BODY_TYPES.indexOf(v.body_type) < BODY_TYPES.indexOf(n.body)) {
    return `the goods need a ${n.body} body; the ${v.name}'s is ${v.body_type}`;
  }
  if (n.capacity && capacityRank(v.capacity_class) < capacityRank(n.capacity)) {
    return `the goods need at least ${n.capacity}; the ${v.name} is ` +
      `${v.capacity_class ?? "below half_ton"}`;
  }
  const line = n.lines.find((l) => !fits(l, v));
  if (line) {
    return `an item of ${line.length_cm} x ${line.width_cm} x ${line.height_cm} cm does not fit ` +
      `the ${v.name}'s load space of ${v.load_length_cm} x ${v.load_width_cm} x ` +
      `${v.load_height_cm} cm`;
  }
  const volume = volumeOf(n.lines);
  const space = [v.load_length_cm, v.load_width_cm, v.load_height_cm];
  if (!atMost(volume, productOf(space.map(decimalOf)))) {
    return `the goods take ${cubicMetres(volume)} m³, more than the ${v.name}'s load space of ` +
      `${cubicMetres(productOf(space.map(decimalOf)))} m³`;
  }
  return null;
}

/** One item in the load space, turned as allowed: any way, or standing when upright. */
function fits(l: GoodsLine, v: VehicleType): boolean {
  const floor = (a: number, b: number, x: number, y: number) =>
    (a <= x && b <= y) || (a <= y && b <= x);
  if (l.upright) {
    return l.height_cm <= v.load_height_cm &&
      floor(l.length_cm, l.width_cm, v.load_length_cm, v.load_width_cm);
  }
  const item = [l.length_cm, l.width_cm, l.height_cm].sort((a, b) => a - b);
  const space = [v.load_length_cm, v.load_width_cm, v.load_height_cm].sort((a, b) => a - b);
  return item.every((d, i) => d <= space[i]!);
}

/**
 * The catalogue's vehicles, smallest first: by payload, then the plainest body (a refrigerated
 * van is not sent for dry goods), then load space.
 */
export function ladderOf(c: Catalogue): readonly VehicleType[] {
  return [...c.vehicle_types].sort((a, b) =>
    a.payload_kg - b.payload_kg ||
    BODY_TYPES.indexOf(a.body_type) - BODY_TYPES.indexOf(b.body_type) ||
    spaceOf(a) - spaceOf(b) || a.id - b.id
  );
}

/** A vehicle's size: the rank of its payload among the catalogue's payloads (one size = one step). */
export function sizeRank(ladder: readonly VehicleType[], v: VehicleType): number {
  return new Set(ladder.filter((o) => o.payload_kg < v.payload_kg).map((o) => o.payload_kg)).size;
}

function capacityRank(c: CapacityClass | null): number {
  return c === null ? -1 : CAPACITY_CLASSES.indexOf(c);
}

function spaceOf(v: VehicleType): number {
  return v.load_length_cm * v.load_width_cm * v.load_height_cm;
}

/** The goods' cm³ added up exactly, from the centimetres as sent. */
function volumeOf(lines: readonly GoodsLine[]): Decimal {
  return sumOf(lines.map((l) => productOf([l.length_cm, l.width_cm, l.height_cm].map(decimalOf))));
}

function grams(kg: number): number {
  return Math.round(kg * 1_000);
}

/** cm³ as m³ to two decimals, for a message. */
function cubicMetres(cm3: Decimal): number {
  return Math.round(Number(cm3.units) * 10 ** cm3.exponent / 10_000) / 100;
}
