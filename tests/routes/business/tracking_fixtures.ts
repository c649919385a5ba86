/**
 * A booked trip accepted by a pool driver, for the tracking and chat tests (Business API 2.4), and
 * a driver's trip of one business with another business's queued behind it (3.1 queued), with
 * what its tracking link and its business's board show of the driver.
 */
// @ts-types="@types/mapbox__polyline"
import polyline from "@mapbox/polyline";
import assert from "node:assert/strict";
import { tripActor, type TripDriver } from "../../../actors/business/trip/mod.ts";
import { DispatchBoardAnswer } from "../../../routes/business/answers/dispatch_board.ts";
import { documentedData } from "../../helpers/documented.ts";
import { act, pngFile } from "../../helpers/driver_trips.ts";
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

/** GET /driver/offers and accepts the offer waiting there; answers the trip accepted. */
// deno-lint-ignore no-explicit-any
export async function acceptWaiting(t: TestEnv, token: string): Promise<any> {
  await t.env.runtime.outboxesIdle();
  const o = await t.call("GET", "/driver/offers", { bearer: token });
  assert.ok(o.body.data.offer, JSON.stringify(o.body));
  const a = await t.call("POST", `/driver/offers/${o.body.data.offer.offer_id}/accept`, {
    bearer: token,
    body: { idempotency_key: crypto.randomUUID() },
  });
  assert.equal(a.status, 200, JSON.stringify(a.body));
  return a.body.data;
}

/** Business A's customer's door: where A's trip goes, which no one else may see. */
export const A_DOOR = { dest_address: "A's customer", dest_lat: -24.6401, dest_lng: 25.9402 };

/**
 * spec: business 3.1 queued: a pool driver on business A's trip who then accepted business B's,
 * which waits queued behind it, both dispatched through offers.
 */
export interface QueuedBehindAnother {
  readonly driver: CreatedPoolDriver;
  readonly a: BookedTrip;
  readonly b: BookedTrip;
}

export async function queuedBehindAnother(
  t: TestEnv,
  options: { readonly opened?: (b: CreatedBusiness) => Promise<void> } = {},
): Promise<QueuedBehindAnother> {
  const driver = await onlineDriverAt(t, PARCEL.pickup_lat, PARCEL.pickup_lng);
  const booked = async (dest: Record<string, unknown>): Promise<BookedTrip> => {
    const business = await fundedBusiness(t);
    // Before its booking: a board opened by the business, say.
    await options.opened?.(business);
    const r = await book(t, business.api_key, { ...PARCEL, ...dest });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return { business, trip: r.body.data, token: tokenOf(r.body.data.tracking_url) };
  };
  const a = await booked(A_DOOR);
  assert.equal((await acceptWaiting(t, driver.token)).status, "accepted");
  const b = await booked({});
  assert.equal((await acceptWaiting(t, driver.token)).status, "queued");
  return { driver, a, b };
}

/** The driver delivers the trip through the driver app: pickup, forced collection, the door. */
export async function deliverBy(t: TestEnv, d: CreatedPoolDriver, reference: string) {
  const step = async (action: string, body: Record<string, unknown> = {}) => {
    const r = await act(t, { reference, driver: d }, action, body);
    assert.equal(r.status, 200, JSON.stringify(r.body));
  };
  await step("arrive_pickup");
  await step("pick_up", { force_reason: "no label" });
  await step("arrive_dropoff");
  const proof = new FormData();
  proof.set("idempotency_key", "deliver-1");
  proof.set("proof_photo", pngFile("door.png"));
  proof.set("signature", pngFile("sig.png"));
  const done = await t.call("POST", `/driver/trips/${reference}/deliver`, {
    bearer: d.token,
    body: proof,
  });
  assert.equal(done.status, 200, JSON.stringify(done.body));
  assert.equal(done.body.data.status, "completed");
}

/** GET /trip-track/{token} (or a reference): the tracking view. */
// deno-lint-ignore no-explicit-any
export async function trackingView(t: TestEnv, token: string): Promise<any> {
  const r = await t.call("GET", `/trip-track/${token}`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data;
}

/** Every coordinate a tracking view gives of where the driver is or was. */
// deno-lint-ignore no-explicit-any
export function driverPoints(v: any): [number, number][] {
  const line: [number, number][] = v.route_polyline ? polyline.decode(v.route_polyline) : [];
  return v.driver_lat === null ? line : [...line, [v.driver_lat, v.driver_lng]];
}

/** The business's dispatch board state's entry for the driver (undefined: not on its board). */
// deno-lint-ignore no-explicit-any
export async function boardDriver(t: TestEnv, key: string, driverId: string): Promise<any> {
  const r = await t.call("GET", "/business/dispatch-board/state", { key });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const state = documentedData(DispatchBoardAnswer, r, "the dispatch board's state");
  return state.drivers.find((d: { id: string }) => d.id === driverId);
}
