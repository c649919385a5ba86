/**
 * The sandbox's simulated driver (Business API 4.4 assign_driver; CONTRACT "Driver app": the
 * sandbox steps are the driver app's commands given by a simulated driver). One pool driver per
 * trip, registered on first use through the operator's flow (a driver holds one trip and one
 * queued, so trips run side by side need a driver each), off shift so the dispatcher never offers
 * it anything, with a vehicle that fits the trip's resolved vehicle. It takes the trip through the
 * driver app's own offer and acceptance.
 */
import { poolDriverActor } from "../../../actors/business/pool_driver.ts";
import { type Trip, tripActor } from "../../../actors/business/trip/mod.ts";
import {
  PLATFORM_SETTINGS_ID,
  PLATFORM_TENANT,
  platformSettingsActor,
} from "../../../actors/platform/platform_settings.ts";
import { derivedId } from "../../domain/secrets.ts";
import type { Deps } from "../../environment.ts";
import { orRefuse, refuse, Refused } from "../../runtime/actor.ts";
import { zoneAt } from "../rules/catalogue.ts";
import { followLead, leadingStop } from "./batch_dispatch.ts";
import { acceptOffer, newOfferId } from "./dispatch.ts";
import { catalogueOf } from "./fares.ts";
import { registerPoolDriver } from "./pool_drivers.ts";

type D = Pick<Deps, "runtime" | "clock" | "name" | "requestId">;

/**
 * The simulated driver of one sandbox trip: derived, so a retry finds the one registered. A
 * batch's stops share their batch's (spec: business 3.2: one driver collects the batch).
 */
export function simulatedDriverId(
  business: string,
  trip: Pick<Trip, "reference" | "batch">,
): string {
  const of = trip.batch === undefined ? trip.reference : `batch ${trip.batch.id}`;
  return derivedId("pdr", `sandbox driver\n${business}\n${of}`);
}

/** The simulated driver's details as the trip and its tracking show them. */
const SIMULATED = { name: "Sandbox Driver", phone: "+26770000000", plate: "SANDBOX" };

async function ensureDriver(deps: D, trip: Trip): Promise<string> {
  const id = simulatedDriverId(trip.business_id, trip);
  const got = await deps.runtime.read(poolDriverActor, PLATFORM_TENANT, id, { kind: "get" });
  if (got.ok) return id;
  const catalogue = await catalogueOf(deps);
  const zone = zoneAt(catalogue, trip.pickup.lat, trip.pickup.lng) ?? catalogue.zones[0];
  if (!zone) refuse("outside_service_area", "no zone serves the trip's pickup");
  try {
    await registerPoolDriver(deps, {
      id,
      ...SIMULATED,
      vehicle_type_id: trip.vehicle.vehicle_class.id,
      zone_id: zone.id,
    });
  } catch (e) {
    // Registered meanwhile by a concurrent step of the same trip (or of its batch).
    if (!(e instanceof Refused && e.rejection.code === "already_exists")) throw e;
  }
  return id;
}

/**
 * spec: business 4.4 assign_driver: the simulated driver accepts the trip's offer, made to them
 * by the trip's own command when none waits for them. A retry answers the trip as it is.
 */
export async function assignSimulatedDriver(deps: D, trip: Trip): Promise<Trip> {
  const driverId = await ensureDriver(deps, trip);
  if (trip.driver?.id === driverId) return trip;
  // spec: business 3.2, 4.2: one driver collects a batch: its driver takes the stop offered for
  // it, and the others follow that stop's driver, as the dispatcher's batches do.
  const lead = await leadingStop(deps, trip);
  if (lead === null) refuse("not_found", `trip not found: ${trip.reference}`);
  // A trip outside a batch, or the stop that leads one: taken as an offer is (refused when
  // another driver holds it: spec: business 3.1, a trip never has two drivers).
  if (lead.reference === trip.reference) return await takeWithBatch(deps, trip, driverId);
  if (lead.driver === null) await takeWithBatch(deps, lead, driverId);
  await followLead(deps, await tripNow(deps, trip));
  return await tripNow(deps, trip);
}

/**
 * The trip accepted by the simulated driver, and its batch's other stops given to them at once,
 * as the dispatcher gives them on hearing it (the same keys: given once).
 */
async function takeWithBatch(deps: D, trip: Trip, driverId: string): Promise<Trip> {
  const taken = await acceptAs(deps, trip, driverId);
  await followLead(deps, taken);
  return taken;
}

/** The simulated driver accepts the trip's offer, made to them when none waits for them. */
async function acceptAs(deps: D, trip: Trip, driverId: string): Promise<Trip> {
  const offerId = trip.offer?.driver_id === driverId
    ? trip.offer.offer_id
    : await offerTo(deps, trip, driverId);
  // The offer is new each time, and the key is scoped to it: a retry of this offer replays.
  return (await acceptOffer(deps, driverId, offerId, { idempotency_key: "assign_driver" })).trip;
}

/** The trip as it is now (a stop given to its batch's driver since it was read). */
async function tripNow(deps: D, trip: Trip): Promise<Trip> {
  const r = orRefuse(
    await deps.runtime.read(tripActor, trip.business_id, trip.reference, { kind: "get" }),
  );
  if (r.phase !== "booked") refuse("not_found", `trip not found: ${trip.reference}`);
  return r.trip;
}

/** spec: business 3.1: the offer as the dispatcher makes it, with the operator's times. */
async function offerTo(deps: D, trip: Trip, driverId: string): Promise<string> {
  const s = orRefuse(
    await deps.runtime.read(platformSettingsActor, PLATFORM_TENANT, PLATFORM_SETTINGS_ID, {
      kind: "get",
    }),
  );
  const now = deps.clock.now();
  const offer_id = newOfferId(trip.business_id, trip.reference);
  orRefuse(
    await deps.runtime.ask(tripActor, trip.business_id, trip.reference, {
      kind: "offer",
      offer: { offer_id, driver_id: driverId, expires_at: now + s.dispatch_offer_seconds * 1000 },
      window_ends_at: now + s.dispatch_window_minutes * 60_000,
    }, { requestId: deps.requestId }),
  );
  return offer_id;
}
