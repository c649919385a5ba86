/**
 * What the dispatch board is shown (issue 38 item 7; Business API 1.2, 3.1): the business's trips
 * by status with their places, driver and waiting offer; the pool's drivers on shift with their
 * newest position. One view each, for the opening state and the live socket's messages alike.
 * Never a fare, a phone or a token.
 */
import type { Place, Trip } from "../../../actors/business/trip/mod.ts";
import type { OnlineDriver } from "../../../src/business/queries/pool_drivers.ts";
import type { Position } from "../../../src/business/reactors/live_positions.ts";
import { TRIP_STATUSES } from "../../../src/business/rules/trip_status.ts";
import { iso } from "../../../src/domain/iso.ts";
import { z } from "../../../src/http/route.ts";
import { UtcInstant } from "../../../src/http/schemas.ts";
import { PlaceAnswer } from "./trips.ts";

export const BoardOfferAnswer = z.object({
  offer_id: z.string(),
  driver_id: z.string(),
  expires_at: UtcInstant,
}).openapi("DispatchBoardOffer");

export const BoardTripAnswer = z.object({
  reference: z.string(),
  id: z.number().int(),
  type: z.string(),
  status: z.enum(TRIP_STATUSES),
  created_at: UtcInstant,
  scheduled_at: UtcInstant.nullable(),
  passenger_name: z.string().nullable(),
  pickup: PlaceAnswer,
  stops: z.array(PlaceAnswer),
  dest: PlaceAnswer,
  driver: z.object({ id: z.string(), name: z.string(), vehicle_type_id: z.number().int() })
    .nullable(),
  offer: BoardOfferAnswer.nullable().openapi({
    description: "The offer waiting for a driver's answer now; null when none",
  }),
}).openapi("DispatchBoardTrip");

export const BoardPositionAnswer = z.object({
  lat: z.number(),
  lng: z.number(),
  accuracy: z.number().nullable(),
  heading: z.number().nullable(),
  at: UtcInstant.openapi({ description: "When the device observed it" }),
}).openapi("DispatchBoardPosition");

export const BoardDriverAnswer = z.object({
  id: z.string(),
  name: z.string(),
  vehicle_type_id: z.number().int(),
  zone_id: z.string(),
  online: z.boolean(),
  position: BoardPositionAnswer.nullable(),
}).openapi("DispatchBoardDriver");

export const DispatchBoardAnswer = z.object({
  at: UtcInstant,
  trips: z.array(BoardTripAnswer).openapi({ description: "Trips in progress, newest first" }),
  drivers: z.array(BoardDriverAnswer).openapi({ description: "Pool drivers on shift" }),
  vehicle_types: z.array(z.object({ id: z.number().int(), name: z.string() })),
  position_fresh_seconds: z.number().int().openapi({
    description: "Positions older than this are shown as last known, not live (2.4 rule 3)",
  }),
}).openapi("DispatchBoard");

/** The offer a trip waits on; read when present (dispatch sets it: `Trip.offer`). */
interface OfferSnapshot {
  readonly offer_id: string;
  readonly driver_id: string;
  readonly expires_at: number;
}

function placeView(p: Place): z.infer<typeof PlaceAnswer> {
  return { address: p.address, lat: p.lat, lng: p.lng };
}

export function boardTripView(
  t: Trip & { readonly offer?: OfferSnapshot | null },
): z.infer<typeof BoardTripAnswer> {
  const offer = t.offer ?? null;
  return {
    reference: t.reference,
    id: t.id,
    type: t.type,
    status: t.status,
    created_at: iso(t.created_at),
    scheduled_at: t.scheduled_at === null ? null : iso(t.scheduled_at),
    passenger_name: t.passenger_name,
    pickup: placeView(t.pickup),
    stops: t.stops.map(placeView),
    dest: placeView(t.dest),
    driver: t.driver === null
      ? null
      : { id: t.driver.id, name: t.driver.name, vehicle_type_id: t.driver.vehicle_type_id },
    offer: offer === null
      ? null
      : { offer_id: offer.offer_id, driver_id: offer.driver_id, expires_at: iso(offer.expires_at) },
  };
}

export function boardPositionView(p: Position): z.infer<typeof BoardPositionAnswer> {
  return { lat: p.lat, lng: p.lng, accuracy: p.accuracy, heading: p.heading, at: iso(p.at) };
}

export function boardDriverView(
  d: Omit<OnlineDriver, "version"> & { readonly online: boolean },
  position: Position | null,
): z.infer<typeof BoardDriverAnswer> {
  return {
    id: d.id,
    name: d.name,
    vehicle_type_id: d.vehicle_type_id,
    zone_id: d.zone_id,
    online: d.online,
    position: position === null ? null : boardPositionView(position),
  };
}
