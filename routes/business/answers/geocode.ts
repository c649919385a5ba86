/** The answer of POST /business/geocode (Business API 4.1). */
import { z } from "../../../src/http/route.ts";
import type { Candidate } from "../../../src/business/rules/geocode.ts";

export const GeocodeCandidate = z.object({
  address: z.string(),
  lat: z.number(),
  lng: z.number(),
  confidence: z.number().min(0).max(1).openapi({
    description: "0 to 1: how surely this is the place meant; candidates come best first",
  }),
  source: z.enum(["saved_address", "gazetteer"]).openapi({
    description: "saved_address: a place this business's bookings named; gazetteer: a town " +
      "(GeoNames, towns of 1,000 people or more), its centre",
  }),
  country: z.string().nullable().openapi({ description: "ISO 3166-1 alpha-2, when known" }),
}).openapi("GeocodeCandidate");

export const GeocodeAnswer = z.object({
  candidates: z.array(GeocodeCandidate),
}).openapi("Geocode");

export function geocodeView(candidates: readonly Candidate[]): z.infer<typeof GeocodeAnswer> {
  return { candidates: candidates.map((c) => ({ ...c })) };
}
