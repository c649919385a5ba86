/**
 * GET /business/trips/{id} (Business API 4.1: "one trip, with receipt and route"): the trip of
 * 2.2, its receipt (the fare's lines as billed, adding up to billing_amount, and the receipt PDF's
 * address) and its route (the places in the driving order, the road distance the fare counted,
 * the planned line through them and the path driven so far, as encoded polylines).
 */
import type { Context } from "hono";
import polyline from "@mapbox/polyline";
import { FARE_LINE_CODES } from "../../../src/business/rules/fare.ts";
import type { TripDetail } from "../../../src/business/flows/trip_detail.ts";
import { decimal } from "../../../src/domain/money.ts";
import { type AppEnv, publicBaseUrl } from "../../../src/http/context.ts";
import { z } from "../../../src/http/route.ts";
import { orNull } from "../../../src/http/schemas.ts";
import { PlaceAnswer, TripAnswer, tripView } from "./trips.ts";

const Receipt = z.object({
  currency: z.string(),
  lines: z.array(z.object({ code: z.enum(FARE_LINE_CODES), amount: z.number() })).openapi({
    description: "The fare as billed: its lines add up to total exactly",
  }),
  total: z.number().openapi({ description: "The trip's billing_amount" }),
  refund_status: z.enum(["not_charged", "charged", "pending", "refunded"]),
  document_url: z.string().openapi({ description: "The receipt as an A4 PDF" }),
});

const Route = z.object({
  places: z.array(PlaceAnswer.extend({ kind: z.enum(["pickup", "stop", "dropoff"]) })).openapi({
    description: "Pickup, the stops in the driving order, then the destination",
  }),
  distance_km: z.number().openapi({ description: "The road distance the fare counted" }),
  planned_polyline: z.string().openapi({
    description: "The places in order, as an encoded polyline (precision 5)",
  }),
  travelled_polyline: orNull(z.string()).openapi({
    description: "The driver's stored positions since the trip began (2.4 route_polyline); " +
      "null before any",
  }),
});

export const TripDetailAnswer = TripAnswer.extend({ receipt: Receipt, route: Route });

export function tripDetailView(
  c: Context<AppEnv>,
  d: TripDetail,
): z.infer<typeof TripDetailAnswer> {
  const { trip: t } = d;
  const view = tripView(c, t);
  const places = [
    { kind: "pickup" as const, ...t.pickup },
    ...t.stops.map((s) => ({ kind: "stop" as const, address: s.address, lat: s.lat, lng: s.lng })),
    { kind: "dropoff" as const, ...t.dest },
  ].map(({ kind, address, lat, lng }) => ({ kind, address, lat, lng }));
  const encoded = (points: readonly { lat: number; lng: number }[]) =>
    polyline.encode(points.map((p) => [p.lat, p.lng]));
  return {
    ...view,
    receipt: {
      currency: t.billing_currency,
      lines: (t.fare_lines ?? []).map((l) => ({
        code: l.code,
        amount: decimal(l.amount_minor, t.billing_currency),
      })),
      total: view.billing_amount,
      refund_status: view.refund_status,
      document_url: `${publicBaseUrl(c)}/api/business/trips/${t.reference}/receipt`,
    },
    route: {
      places,
      distance_km: view.distance_km,
      planned_polyline: encoded(places),
      travelled_polyline: d.travelled.length === 0 ? null : encoded(d.travelled),
    },
  };
}
