/**
 * Geocoding for a business (Business API 4.1 POST /business/geocode, 2.1): its saved addresses
 * (the address book its bookings fill) and the gazetteer, without network access. A booking's
 * place without coordinates is geocoded the same way, or refused naming the stop.
 */
import { addressBookActor } from "../../../actors/business/address_book.ts";
import type { Deps } from "../../environment.ts";
import { invalidFields, orRefuse, Refused } from "../../runtime/actor.ts";
import type { Point } from "../../domain/geo.ts";
import { gazetteer } from "../gazetteer.ts";
import {
  BOOKING_GEOCODE_CONFIDENCE_MIN,
  type Candidate,
  forwardGeocode,
  reverseGeocode,
  type SavedPlace,
} from "../rules/geocode.ts";

export type GeocodeQuery =
  | { readonly kind: "forward"; readonly text: string; readonly country: string | null }
  | { readonly kind: "reverse"; readonly at: Point };

async function savedPlaces(deps: Pick<Deps, "runtime">, business: string) {
  const r = await deps.runtime.read(addressBookActor, business, business, { kind: "get" });
  return orRefuse(r).places;
}

/** The candidates for a text or a point, best first. */
export async function geocode(
  deps: Pick<Deps, "runtime">,
  business: string,
  query: GeocodeQuery,
  limit?: number,
): Promise<Candidate[]> {
  const [saved, g] = await Promise.all([savedPlaces(deps, business), gazetteer()]);
  const sources = { saved, gazetteer: g };
  const options = limit === undefined ? {} : { limit };
  return query.kind === "forward"
    ? forwardGeocode(query.text, sources, { ...options, country: query.country })
    : reverseGeocode(query.at, sources, options);
}

/** A place of a booking: its address, and its coordinates when sent. */
export interface PlaceToLocate {
  /** Its address field in the request (`dest_address`, `stops.0.address`), for the refusal. */
  readonly path: string;
  readonly address: string;
  readonly lat?: number | undefined;
  readonly lng?: number | undefined;
}

/**
 * spec: business 2.1: a place sent without coordinates takes its best candidate when that is
 * confident enough; otherwise the booking is refused 422 `address_not_found`, naming the stop.
 */
export async function locatePlaces(
  deps: Pick<Deps, "runtime">,
  business: string,
  places: readonly PlaceToLocate[],
): Promise<SavedPlace[]> {
  const out: SavedPlace[] = [];
  for (const p of places) {
    if (p.lat !== undefined && p.lng !== undefined) {
      out.push({ address: p.address, lat: p.lat, lng: p.lng });
      continue;
    }
    const [best] = await geocode(deps, business, {
      kind: "forward",
      text: p.address,
      country: null,
    }, 1);
    if (!best || best.confidence < BOOKING_GEOCODE_CONFIDENCE_MIN) {
      const found = best ? `best candidate ${best.address} at ${best.confidence}` : "no candidate";
      throw new Refused({
        ...invalidFields([{
          path: p.path,
          message: `cannot be placed on the map, send its lat and lng: ${found}`,
        }]),
        code: "address_not_found",
      });
    }
    out.push({ address: p.address, lat: best.lat, lng: best.lng });
  }
  return out;
}
