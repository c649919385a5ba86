/**
 * Business API 4.1 POST /business/geocode: forward (an address to candidates) and reverse (a point
 * to candidates), without network access, over the business's saved addresses and a gazetteer.
 */
import { geocode } from "../../src/business/flows/geocode.ts";
import { GEOCODE_CANDIDATES_MAX } from "../../src/business/rules/geocode.ts";
import { type Api, ok } from "../../src/http/app.ts";
import { define, z } from "../../src/http/route.ts";
import { business } from "../../src/platform/auth/auth.ts";
import { businessCall } from "../../src/platform/auth/caller.ts";
import { EVEN_WITH_BAD_FIELDS } from "../../src/http/schemas.ts";
import { GeocodeAnswer, geocodeView } from "./answers/geocode.ts";

const GeocodeRequest = z.object({
  address: z.string().trim().min(1).max(300).optional().openapi({
    description: "Forward: the text to place (an address, a town, `town, country`)",
    example: "Plot 9, Block 8, Gaborone",
  }),
  country: z.string().regex(/^[A-Za-z]{2}$/, "an ISO 3166-1 alpha-2 code").optional().openapi({
    description: "Forward: keep only towns of this country",
    example: "BW",
  }),
  lat: z.number().min(-90).max(90).optional().openapi({ description: "Reverse, with lng" }),
  lng: z.number().min(-180).max(180).optional(),
  limit: z.number().int().min(1).max(GEOCODE_CANDIDATES_MAX).optional(),
}).superRefine((b, ctx) => {
  const reverse = b.lat !== undefined || b.lng !== undefined;
  if (reverse && b.address !== undefined) {
    ctx.addIssue({ code: "custom", path: ["address"], message: "send address or lat and lng" });
  } else if (reverse) {
    for (const f of ["lat", "lng"] as const) {
      if (b[f] === undefined) ctx.addIssue({ code: "custom", path: [f], message: "required" });
    }
  } else if (b.address === undefined) {
    ctx.addIssue({ code: "custom", path: ["address"], message: "required (or lat and lng)" });
  }
}, EVEN_WITH_BAD_FIELDS).openapi({
  example: { address: "Plot 9, Block 8, Gaborone", country: "BW", limit: 3 },
});

export function geocodeRoutes(api: Api): void {
  define(api, {
    method: "post",
    path: "/business/geocode",
    summary: "Place an address on the map, or name the place at a point",
    description: "Forward with `address`, reverse with `lat` and `lng`; no network is used. " +
      "Candidates come best first with a `confidence` from 0 to 1. The business's saved " +
      "addresses (the places its bookings named, most recent 100) come before the gazetteer: the " +
      "same address is 0.99, one starting with the text's whole words (or that the text starts " +
      "with) 0.85. Gazetteer towns (GeoNames) named by " +
      "the whole text score up to 0.9, by one comma-separated part up to 0.7, shared by " +
      "population between towns of one name. Reverse: saved addresses within 1 km and towns " +
      "within 50 km, confidence falling with distance. POST /business/book places a stop sent " +
      "without coordinates by the best forward candidate when its confidence is 0.6 or more.",
    tag: "Bookings and trips",
    security: "business",
    // spec: business 5: the deliveries scope reaches POST /business/geocode.
    middleware: [business({ scope: "deliveries" })],
    body: GeocodeRequest,
    response: GeocodeAnswer,
    refusals: {},
  }, async (c, { body }) => {
    const { env, tenant } = businessCall(c);
    const query = body.address !== undefined
      ? { kind: "forward" as const, text: body.address, country: body.country ?? null }
      : { kind: "reverse" as const, at: { lat: body.lat!, lng: body.lng! } };
    return ok(c, geocodeView(await geocode(env, tenant, query, body.limit)));
  });
}
