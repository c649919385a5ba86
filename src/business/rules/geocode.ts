/**
 * Geocoding without network access (Business API 4.1 POST /business/geocode, 2.1 bookings without
 * coordinates): the business's own saved places first, then a gazetteer of the world's towns
 * (GeoNames, shipped in a package). Candidates carry a `confidence` from 0 to 1, best first.
 */
import KDBush from "kdbush";
import { around } from "geokdbush";
import { greatCircleKm, type Point } from "../../domain/geo.ts";

/** At most this many candidates are answered. */
export const GEOCODE_CANDIDATES_MAX = 10;
/** A booking takes a geocoded stop only this confident or more; below it is refused (422). */
export const BOOKING_GEOCODE_CONFIDENCE_MIN = 0.6;
/** A reverse search looks for towns this far from the point, at most. */
export const REVERSE_RADIUS_KM = 50;

/** The source of a candidate: the business's own saved place or the gazetteer's town. */
export type CandidateSource = "saved_address" | "gazetteer";

export interface Candidate {
  readonly address: string;
  readonly lat: number;
  readonly lng: number;
  readonly confidence: number;
  readonly source: CandidateSource;
  /** ISO 3166-1 alpha-2, when known. */
  readonly country: string | null;
}

/** A town of the gazetteer. */
export interface Town {
  readonly name: string;
  readonly country: string;
  readonly population: number;
  readonly lat: number;
  readonly lng: number;
}

/** A place the business used before (a saved address), with its coordinates. */
export interface SavedPlace {
  readonly address: string;
  readonly lat: number;
  readonly lng: number;
}

/** The towns, by normalized name and by position. */
export interface Gazetteer {
  readonly towns: readonly Town[];
  readonly byName: ReadonlyMap<string, readonly number[]>;
  readonly index: KDBush;
}

/** Lower case, accents and punctuation dropped, spaces folded: how names are compared. */
export function normalize(text: string): string {
  return text.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ").trim();
}

export function buildGazetteer(towns: readonly Town[]): Gazetteer {
  const byName = new Map<string, number[]>();
  const index = new KDBush(towns.length);
  towns.forEach((t, i) => {
    const key = normalize(t.name);
    const same = byName.get(key);
    if (same) same.push(i);
    else byName.set(key, [i]);
    index.add(t.lng, t.lat);
  });
  index.finish();
  return { towns, byName, index };
}

const round = (x: number) => Math.round(x * 1_000) / 1_000;

/** Whether normalized `text` begins with the whole words of normalized `start`. */
function startsWithWords(text: string, start: string): boolean {
  return text.startsWith(`${start} `);
}

/**
 * Saved places whose address matches the text: the same address (in any case or punctuation) is
 * near certain; one that starts with the text, or that the text starts with, likely, by whole
 * words: "Plot 1" is not the start of "Plot 12" (a booking would be placed at the wrong plot).
 */
function savedMatches(text: string, saved: readonly SavedPlace[]): Candidate[] {
  const q = normalize(text);
  if (q === "") return [];
  const out: Candidate[] = [];
  for (const p of saved) {
    const a = normalize(p.address);
    const confidence = a === q ? 0.99 : startsWithWords(a, q) || startsWithWords(q, a) ? 0.85 : 0;
    if (confidence > 0) {
      out.push({ ...p, confidence, source: "saved_address", country: null });
    }
  }
  return out;
}

/**
 * The names a text may give a town by, each with how surely it is meant: the whole text (0.9), a
 * comma-separated part (0.7), the last one to three words of a part ("... Block 8 Gaborone", 0.6).
 */
function townNames(parts: readonly string[]): Map<string, number> {
  const names = new Map<string, number>();
  const offer = (name: string, base: number) => {
    if (name !== "" && (names.get(name) ?? 0) < base) names.set(name, base);
  };
  offer(parts.join(" "), 0.9);
  for (const part of parts) {
    offer(part, 0.7);
    const words = part.split(" ");
    for (let n = 1; n <= 3 && n < words.length; n++) offer(words.slice(-n).join(" "), 0.6);
  }
  return names;
}

/**
 * Towns named by the text. A town is a centroid, so a text that is only the town's name is
 * likelier meant than a street address in it; towns of one name share the confidence by
 * population, and a country named by the caller or by a part of the text keeps only its own.
 */
function townMatches(text: string, g: Gazetteer, country: string | null): Candidate[] {
  const parts = text.split(",").map(normalize).filter((p) => p !== "");
  const countries = new Set(parts.filter((p) => p.length === 2).map((p) => p.toUpperCase()));
  if (country) countries.add(country.toUpperCase());
  const out: Candidate[] = [];
  for (const [name, base] of townNames(parts)) {
    const ids = (g.byName.get(name) ?? []).filter((i) =>
      countries.size === 0 || countries.has(g.towns[i]!.country)
    );
    const total = ids.reduce((s, i) => s + Math.max(1, g.towns[i]!.population), 0);
    for (const i of ids) {
      const t = g.towns[i]!;
      const share = Math.max(1, t.population) / total;
      out.push({
        address: `${t.name}, ${t.country}`,
        lat: t.lat,
        lng: t.lng,
        confidence: round(base * (0.5 + 0.5 * share)),
        source: "gazetteer",
        country: t.country,
      });
    }
  }
  return out;
}

/** Best first; one candidate per place (the most confident), at most `limit`. */
function ranked(candidates: readonly Candidate[], limit: number): Candidate[] {
  const seen = new Set<string>();
  return [...candidates].sort((a, b) =>
    b.confidence - a.confidence || (a.source === "saved_address" ? -1 : 1)
  ).filter((c) => {
    const key = `${c.address}|${c.lat}|${c.lng}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  }).slice(0, limit);
}

/** Forward: the text's candidates, the business's saved places preferred at equal confidence. */
export function forwardGeocode(
  text: string,
  sources: { readonly saved: readonly SavedPlace[]; readonly gazetteer: Gazetteer },
  options: { readonly country?: string | null; readonly limit?: number } = {},
): Candidate[] {
  const all = [
    ...savedMatches(text, sources.saved),
    ...townMatches(text, sources.gazetteer, options.country ?? null),
  ];
  return ranked(all, options.limit ?? GEOCODE_CANDIDATES_MAX);
}

/** Confidence of a place `km` away from the point asked: 1 on it, falling to 0 at the radius. */
function nearness(km: number, radiusKm: number): number {
  return round(Math.max(0, 1 - km / radiusKm));
}

/**
 * Reverse: the saved places within 1 km (an address the business used there) and the nearest
 * towns within REVERSE_RADIUS_KM, nearest first.
 */
export function reverseGeocode(
  at: Point,
  sources: { readonly saved: readonly SavedPlace[]; readonly gazetteer: Gazetteer },
  options: { readonly limit?: number } = {},
): Candidate[] {
  const limit = options.limit ?? GEOCODE_CANDIDATES_MAX;
  const saved = sources.saved.map((p) => ({ p, km: greatCircleKm(at, p) }))
    .filter((x) => x.km <= 1)
    .map(({ p, km }): Candidate => ({
      ...p,
      confidence: nearness(km, 1),
      source: "saved_address",
      country: null,
    }));
  const g = sources.gazetteer;
  const ids = around(g.index, at.lng, at.lat, limit, REVERSE_RADIUS_KM);
  const towns = ids.map((i): Candidate => {
    const t = g.towns[i]!;
    return {
      address: `${t.name}, ${t.country}`,
      lat: t.lat,
      lng: t.lng,
      confidence: nearness(greatCircleKm(at, t), REVERSE_RADIUS_KM),
      source: "gazetteer",
      country: t.country,
    };
  });
  return ranked([...saved, ...towns], limit);
}
