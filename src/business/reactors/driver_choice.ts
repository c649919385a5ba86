/**
 * The dispatcher's choice (Business API 3.1): the nearest free fitting driver for a trip's
 * pickup, found through the spatial index, and the offer made to that driver.
 */
import type { Trip } from "../../../actors/business/trip/mod.ts";
import type { PlatformSettings } from "../../../actors/platform/platform_settings.ts";
import { type Catalogue, vehicleTypeOf, zoneAt } from "../rules/catalogue.ts";
import { vehicleFits } from "../rules/dispatch.ts";
import { freshAfter } from "../rules/tracking.ts";
import { newOfferId } from "../flows/dispatch.ts";
import type { FirstOffer } from "../flows/complete_booking.ts";
import type { DriverIndex } from "./driver_index.ts";

/** What the choice is made for: a trip's pickup and vehicle, and the drivers it may not go to. */
export type ChoiceFor = Pick<Trip, "pickup" | "type" | "vehicle"> & {
  readonly excluded: readonly string[];
};

/**
 * The zone of the pickup and its nearest free fitting driver (null: none); null: no zone.
 * `busy`: a driver already held for another trip's offer.
 */
export function nearestDriver(
  index: DriverIndex,
  t: ChoiceFor,
  options: {
    readonly settings: PlatformSettings;
    readonly catalogue: Catalogue;
    readonly now: number;
    readonly busy: (driverId: string) => boolean;
  },
): { zone: string; driver: string | null } | null {
  const { settings: s, catalogue, now, busy } = options;
  const zone = zoneAt(catalogue, t.pickup.lat, t.pickup.lng);
  const resolved = vehicleTypeOf(catalogue, t.vehicle.vehicle_class.id);
  if (!zone || !resolved) return null;
  const driver = index.nearest({
    zone_id: zone.id,
    lat: t.pickup.lat,
    lng: t.pickup.lng,
    max_km: zone.area.radius_km * 2,
    fresh_after: freshAfter(now, s.position_fresh_seconds),
    now,
    accept: (c) => {
      const v = vehicleTypeOf(catalogue, c.vehicle_type_id);
      return !busy(c.id) && c.online && !c.full &&
        !t.excluded.includes(c.id) && !!v && vehicleFits(v, resolved, t);
    },
  });
  return { zone: zone.id, driver };
}

/** spec: business 3.1: an offer to `driver` now, its expiry and the window it opens if first. */
export function offerOf(
  t: { readonly business_id: string; readonly reference: string },
  driver: string,
  s: PlatformSettings,
  now: number,
): FirstOffer {
  return {
    offer: {
      offer_id: newOfferId(t.business_id, t.reference),
      driver_id: driver,
      expires_at: now + s.dispatch_offer_seconds * 1000,
    },
    window_ends_at: now + s.dispatch_window_minutes * 60_000,
  };
}
