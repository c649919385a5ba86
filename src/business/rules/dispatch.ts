/**
 * Dispatch's pure rules (Business API 1.2, 3.1): which vehicle may take a trip, and when a trip
 * may first be offered.
 */
import { BODY_TYPES, CAPACITY_CLASSES, type VehicleType } from "./catalogue.ts";
import type { VehicleFields } from "./vehicle.ts";

/** What a trip needs of a vehicle: its resolved class, and passengers for a ride. */
export interface VehicleNeed {
  readonly type: "ride" | "parcel";
  readonly vehicle: Pick<VehicleFields, "vehicle_class" | "cargo_body_type">;
}

const rank = (c: VehicleType["capacity_class"]) => c === null ? -1 : CAPACITY_CLASSES.indexOf(c);
const bodyRank = (b: VehicleType["body_type"]) => BODY_TYPES.indexOf(b);

/**
 * spec: business 1.2: the driver's vehicle fits when it is the resolved vehicle or a larger one:
 * a payload and capacity class at least the resolved vehicle's, a body at least the resolved
 * body type, and seats for a ride. `resolved`: the catalogue's entry for the trip's vehicle.
 */
export function vehicleFits(
  driver: VehicleType,
  resolved: VehicleType,
  need: VehicleNeed,
): boolean {
  if (driver.id === resolved.id) return true;
  const body = need.vehicle.cargo_body_type ?? resolved.body_type;
  return driver.payload_kg >= resolved.payload_kg &&
    rank(driver.capacity_class) >= rank(resolved.capacity_class) &&
    bodyRank(driver.body_type) >= bodyRank(body) &&
    (need.type !== "ride" || driver.passenger_seats >= 1);
}

/** What of a trip decides when it is first offered. */
export interface OfferTiming {
  readonly created_at: number;
  readonly scheduled_at: number | null;
  readonly prep_minutes: number | null;
  readonly ready_at: number | null;
}

/** The operator's leads (PUT /operator/settings). */
export interface Leads {
  readonly prep_offer_lead_minutes: number;
  readonly schedule_offer_lead_minutes: number;
}

const MINUTE_MS = 60_000;

/**
 * When the trip may first be offered; null when at once. spec: business 3.1: a merchant order
 * with prep_minutes at booking time + prep_minutes - prep_offer_lead_minutes, or at once once
 * ready; a scheduled trip schedule_offer_lead_minutes before scheduled_at, ready or not (its
 * readiness brings forward no offer: "scheduled: offered shortly before scheduled_at").
 */
export function offerDueAt(t: OfferTiming, s: Leads): number | null {
  if (t.scheduled_at !== null) return t.scheduled_at - s.schedule_offer_lead_minutes * MINUTE_MS;
  if (t.ready_at !== null) return null;
  if (t.prep_minutes !== null) {
    return t.created_at + (t.prep_minutes - s.prep_offer_lead_minutes) * MINUTE_MS;
  }
  return null;
}

/**
 * spec: business 3.1: when a trip waiting for a driver is due to be offered, as the dispatcher
 * reads it (the restart sweep's order): at once (its creation) when its offer time is not decided
 * yet (the dispatcher decides it), at once (its readiness) for a prep order marked ready, else the
 * offer time decided at booking (none: at once).
 */
export function offerDueOf(
  t: OfferTiming & {
    readonly dispatch?: {
      readonly offer_after: number | null;
      readonly window_ends_at: number | null;
    };
  },
): number {
  // A trip stored before its dispatch (or its window) was decided at booking may lack the fields
  // altogether: undecided, due at once (as migration 0033 reads it).
  const d = t.dispatch;
  if ((d?.window_ends_at ?? null) === null) return t.created_at;
  const ready = t.ready_at ?? null;
  if ((t.scheduled_at ?? null) === null && ready !== null) return ready;
  return d?.offer_after ?? t.created_at;
}

/** The operator's times a trip's dispatch is decided with at booking (PUT /operator/settings). */
export interface DispatchTimes extends Leads {
  readonly dispatch_window_minutes: number;
}

/**
 * spec: business 3.1 "pending, no driver answers: cancelled with cancelled_by system": the
 * dispatch window begins when the trip is first due to be offered (at once, the prep order's
 * offer time, the scheduled trip's offer time), whether or not any driver is there to offer it
 * to; never before (a prep order "stays pending and does not expire" until then).
 */
export function dispatchWindow(
  t: OfferTiming,
  s: DispatchTimes,
): { readonly offer_after: number | null; readonly window_ends_at: number } {
  const due = offerDueAt(t, s);
  const offerAfter = due !== null && due > t.created_at ? due : null;
  const window = s.dispatch_window_minutes * MINUTE_MS;
  // Marked ready, a prep order is due from then.
  const readyAt = t.scheduled_at === null ? t.ready_at ?? 0 : 0;
  const began = offerAfter ?? Math.max(t.created_at, readyAt);
  return { offer_after: offerAfter, window_ends_at: began + window };
}
