/**
 * Business API 4.1 GET /business/trip/fare-estimate: what a booking of these details would be
 * billed now, by the calculator the booking uses (src/business/rules/fare.ts), with the vehicle it
 * would get (2.2 declared and resolved fields, 3.2 the account's upgrade policy).
 */
import { EXAMPLE_ROUTE, Text } from "../../src/business/booking_schema.ts";
import { BODY_TYPES, CAPACITY_CLASSES } from "../../src/business/rules/catalogue.ts";
import { BOOKING_STOPS_MAX } from "../../src/business/rules/fare.ts";
import { estimateFare } from "../../src/business/flows/fares.ts";
import { type Api, ok } from "../../src/http/app.ts";
import { define, z } from "../../src/http/route.ts";
import { decimalNumber, decimalOf, wholeNumber } from "../../src/http/schemas.ts";
import { business } from "../../src/platform/auth/auth.ts";
import { businessCall } from "../../src/platform/auth/caller.ts";
import { FareEstimateAnswer, fareEstimateView } from "./answers/reference_data.ts";

/** A coordinate of the query, with the documents' example route's (a served zone's) as example. */
const Latitude = (example: number) => decimalNumber(-90, 90).openapi({ example });
const Longitude = (example: number) => decimalNumber(-180, 180).openapi({ example });

/** `lat,lng;lat,lng`: the stops between pickup and destination, in order. */
const Stops = z.string().max(200).transform((text, ctx) => {
  const stops = text.split(";").map((pair) => pair.split(",").map((x) => x.trim()));
  const points = stops.map(([lat = "", lng = "", ...rest]) => {
    const [y, x] = [decimalOf(lat), decimalOf(lng)];
    const good = rest.length === 0 && y !== null && x !== null && Math.abs(y) <= 90 &&
      Math.abs(x) <= 180;
    return good ? { lat: y, lng: x } : null;
  });
  if (points.length > BOOKING_STOPS_MAX || points.some((p) => p === null)) {
    ctx.addIssue({
      code: "custom",
      message: `up to ${BOOKING_STOPS_MAX} stops as lat,lng separated by ;: ${text.slice(0, 60)}`,
    });
    return z.NEVER;
  }
  return points.filter((p) => p !== null);
}).openapi({ type: "string", example: "-24.65,25.91;-24.66,25.93" });

const FareQuery = z.object({
  type: z.enum(["parcel", "ride"]).optional().openapi({
    description: "As when booking: a ride needs a vehicle that takes passengers. Default parcel",
  }),
  pickup_lat: Latitude(EXAMPLE_ROUTE.pickup_lat),
  pickup_lng: Longitude(EXAMPLE_ROUTE.pickup_lng),
  dest_lat: Latitude(EXAMPLE_ROUTE.dest_lat),
  dest_lng: Longitude(EXAMPLE_ROUTE.dest_lng),
  vehicle_type_id: wholeNumber(1, 1_000_000).optional(),
  stops: Stops.optional(),
  // Read as POST /business/book reads them (booking_schema.ts): the same details price alike.
  parcel_size: Text(32).optional(),
  parcel_weight_kg: decimalNumber(0, 100_000).refine((kg) => kg > 0, {
    error: (issue) => `must be above 0: ${String(issue.input)}`,
  }).optional(),
  cargo_body_type: z.enum(BODY_TYPES).optional(),
  cargo_capacity_class: z.enum(CAPACITY_CLASSES).optional(),
});

export function fareRoutes(api: Api): void {
  define(api, {
    method: "get",
    path: "/business/trip/fare-estimate",
    summary: "The fare and vehicle a booking of these details would get now",
    description: "The same calculator as POST /business/book: the pickup's zone prices the " +
      "resolved vehicle class and parcel band over the road distance (great-circle distance " +
      "times the road factor) and the stops, in the zone's currency. Without goods declared the " +
      "smallest band and vehicle are priced; a vehicle_type_id smaller than the goods need " +
      "follows the account's vehicle_upgrade_policy.",
    tag: "Bookings and trips",
    security: "business",
    // spec: business 5: the deliveries scope reaches GET /business/trip/fare-estimate.
    middleware: [business({ scope: "deliveries" })],
    query: FareQuery,
    response: FareEstimateAnswer,
    refusals: {
      outside_service_area: "no zone serves the pickup (GET /business/zones)",
      vehicle_upgrade_refused: "vehicle_type_id is too small for the goods and the account's " +
        "vehicle_upgrade_policy refuses the upgrade (or caps it at one size): the reason is given",
      no_vehicle_fits: "no vehicle type can carry the goods declared",
    },
  }, async (c, { query }) => {
    const { env, tenant } = businessCall(c);
    const price = await estimateFare(env, tenant, {
      route: {
        pickup: { lat: query.pickup_lat, lng: query.pickup_lng },
        stops: query.stops ?? [],
        dest: { lat: query.dest_lat, lng: query.dest_lng },
      },
      declared: {
        type: query.type,
        vehicle_type_id: query.vehicle_type_id,
        parcel_size: query.parcel_size,
        parcel_weight_kg: query.parcel_weight_kg,
        cargo_body_type: query.cargo_body_type,
        cargo_capacity_class: query.cargo_capacity_class,
      },
    });
    return ok(c, fareEstimateView(price));
  });
}
