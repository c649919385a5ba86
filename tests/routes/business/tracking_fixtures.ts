/** A booked trip accepted by a pool driver, for the tracking and chat tests (Business API 2.4). */
import assert from "node:assert/strict";
import { tripActor, type TripDriver } from "../../../actors/business/trip/mod.ts";
import { type CreatedPoolDriver, onlineDriverAt } from "../../helpers/pool_drivers.ts";
import type { CreatedBusiness, TestEnv } from "../../helpers/test_env.ts";
import { book, fundedBusiness, PARCEL } from "./trips_fixtures.ts";

export interface BookedTrip {
  readonly business: CreatedBusiness;
  // deno-lint-ignore no-explicit-any
  readonly trip: any;
  /** The tracking token: the last segment of tracking_url. */
  readonly token: string;
}

export function tokenOf(trackingUrl: string): string {
  return trackingUrl.slice(trackingUrl.lastIndexOf("/") + 1);
}

/** A delivery booked by a new business, with one stop on the way. */
export async function bookedTrip(t: TestEnv, body: Record<string, unknown> = {}): Promise<
  BookedTrip
> {
  const business = await fundedBusiness(t);
  const r = await book(t, business.api_key, {
    ...PARCEL,
    stops: [{ address: "Game City", lat: -24.6282, lng: 25.9231 }],
    ...body,
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return { business, trip: r.body.data, token: tokenOf(r.body.data.tracking_url) };
}

/** What the trip keeps of the pool driver created by onlineDriverAt. */
export function tripDriverOf(d: CreatedPoolDriver): TripDriver {
  return {
    id: d.id,
    name: "Neo Kgosi",
    phone: "+26771234567",
    plate: "B 123 ABC",
    color: "red",
    vehicle_type_id: 1,
  };
}

/** Accepts the trip for the driver by asking the trip actor itself. */
export async function acceptBy(t: TestEnv, b: BookedTrip, d: CreatedPoolDriver): Promise<void> {
  const r = await t.env.runtime.ask(tripActor, b.business.id, b.trip.reference, {
    kind: "accept",
    driver: tripDriverOf(d),
  });
  assert.ok(r.ok, JSON.stringify(r));
}

/** A booked trip accepted by a driver on shift near the pickup. */
export async function acceptedTrip(
  t: TestEnv,
): Promise<BookedTrip & { driver: CreatedPoolDriver }> {
  const b = await bookedTrip(t);
  const driver = await onlineDriverAt(t, -24.66, 25.9);
  // Later than that first ping: positions reported from now on are newer than it.
  t.clock.advanceBy(1_000);
  await acceptBy(t, b, driver);
  return { ...b, driver };
}

/** POST /driver/positions of one position observed now. */
export async function report(t: TestEnv, token: string, lat: number, lng: number): Promise<void> {
  const at = new Date(t.clock.now()).toISOString();
  const r = await t.call("POST", "/driver/positions", {
    bearer: token,
    body: { positions: [{ lat, lng, accuracy: 5, heading: 90, at }] },
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
}
