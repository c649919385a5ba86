/** Points on the map and the distance between them, without any network (Business API 5 fares). */

export interface Point {
  readonly lat: number;
  readonly lng: number;
}

/** Mean Earth radius (IUGG), the usual sphere for the haversine formula. */
const EARTH_RADIUS_KM = 6_371.0088;

/** Great-circle distance in kilometres, by the haversine formula. */
export function greatCircleKm(a: Point, b: Point): number {
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLng = (b.lng - a.lng) * rad;
  const h = Math.sin(dLat / 2) ** 2 +
    Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** The length of a path through the points in order, in kilometres. */
export function pathKm(points: readonly Point[]): number {
  let km = 0;
  for (let i = 1; i < points.length; i++) km += greatCircleKm(points[i - 1]!, points[i]!);
  return km;
}
