// The dispatch board's map: trips' places and drivers' positions drawn in SVG from their
// coordinates, an equirectangular projection fitted to what is shown (no tiles, no requests).
const SVG = "http://www.w3.org/2000/svg";
const WIDTH = 800;
const HEIGHT = 520;
const MARGIN = 30;
/** The smallest span shown, in degrees (about 1 km): one point is not a division by zero. */
const SPAN_MIN = 0.01;

function svg(tag, attrs, title) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  if (title) {
    const t = document.createElementNS(SVG, "title");
    t.textContent = title;
    node.append(t);
  }
  return node;
}

/** x, y of (lat, lng) in a view fitted to `points`: east is right, north is up. */
export function projection(points) {
  if (points.length === 0) return () => [WIDTH / 2, HEIGHT / 2];
  const lats = points.map((p) => p.lat);
  const lngs = points.map((p) => p.lng);
  const midLat = (Math.min(...lats) + Math.max(...lats)) / 2;
  // A degree of longitude is shorter away from the equator.
  const kx = Math.cos((midLat * Math.PI) / 180);
  const west = Math.min(...lngs) * kx;
  const east = Math.max(...lngs) * kx;
  const south = Math.min(...lats);
  const north = Math.max(...lats);
  const span = Math.max(east - west, north - south, SPAN_MIN);
  const scale = Math.min((WIDTH - 2 * MARGIN) / span, (HEIGHT - 2 * MARGIN) / span);
  const cx = (west + east) / 2;
  const cy = (south + north) / 2;
  return (lat, lng) => [
    WIDTH / 2 + (lng * kx - cx) * scale,
    HEIGHT / 2 - (lat - cy) * scale,
  ];
}

/** Draws the trips (pickup, stops, destination joined) and the drivers (fresh or not). */
export function drawMap(trips, drivers, isFresh, elTrips, elDrivers) {
  const points = [];
  for (const t of trips) points.push(t.pickup, ...t.stops, t.dest);
  for (const d of drivers) if (d.position) points.push(d.position);
  const at = projection(points);
  const tripNodes = [];
  for (const t of trips) {
    const places = [t.pickup, ...t.stops, t.dest].map((p) => at(p.lat, p.lng));
    const g = svg("g", { class: `map-trip status-${t.status}`, "data-map-trip": t.reference });
    g.append(svg("polyline", { points: places.map(([x, y]) => `${x},${y}`).join(" ") }));
    const [px, py] = places[0];
    const [dx, dy] = places[places.length - 1];
    g.append(svg("circle", { class: "pickup", cx: px, cy: py, r: 6 }, `${t.reference} pickup`));
    g.append(
      svg(
        "rect",
        { class: "dest", x: dx - 5, y: dy - 5, width: 10, height: 10 },
        `${t.reference} destination`,
      ),
    );
    tripNodes.push(g);
  }
  const driverNodes = [];
  for (const d of drivers) {
    if (!d.position) continue;
    const [x, y] = at(d.position.lat, d.position.lng);
    const fresh = isFresh(d.position);
    const g = svg("g", {
      class: `map-driver${fresh ? "" : " stale"}`,
      "data-map-driver": d.id,
      "data-lat": d.position.lat,
      "data-lng": d.position.lng,
      transform: `translate(${x} ${y}) rotate(${d.position.heading ?? 0})`,
    }, d.name);
    g.append(svg("path", { d: "M0,-9 L6,7 L0,3 L-6,7 Z" }));
    driverNodes.push(g);
  }
  elTrips.replaceChildren(...tripNodes);
  elDrivers.replaceChildren(...driverNodes);
}
