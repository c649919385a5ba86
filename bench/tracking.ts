/**
 * Live tracking (issue 38, Business API 2.4), figures only: GET /trip-track/{token} reads per
 * second against accepted trips whose drivers reported fresh positions, through the app in
 * process (no socket), 50 readers at once, each read from its own address (the public routes'
 * per-address limit is not what is measured). Each read looks the token up, reads the trip, the
 * platform settings and the catalogue, takes the position from memory and the breadcrumb query.
 */
import { tripActor } from "../actors/business/trip/mod.ts";
import { recordFigure } from "./summary.ts";
import { BENCH_OPERATOR, type BenchEnvironment, withBenchEnvironment } from "./bench_env.ts";

const TRIPS = Number(Deno.env.get("BENCH_TRACKED_TRIPS") ?? 200);
const READERS = 50;
const SECONDS = 5;

type App = BenchEnvironment["app"];

async function call(app: App, method: string, path: string, body: unknown, auth: HeadersInit) {
  const r = await app.request(`/api${path}`, {
    method,
    headers: { "Content-Type": "application/json", ...auth },
    body: JSON.stringify(body),
  });
  const json = await r.json();
  if (r.status >= 300) throw new Error(`${path}: ${r.status} ${JSON.stringify(json)}`);
  return json.data;
}

/** A funded business with TRIPS accepted trips, each driver with a fresh position. */
async function trackedTrips(o: BenchEnvironment): Promise<string[]> {
  const op = { Authorization: `Bearer ${BENCH_OPERATOR}` };
  const biz = await call(o.app, "POST", "/operator/businesses", {
    name: "Bench Deliveries",
    plan: "enterprise",
    currency: "BWP",
    country: "BW",
    owner_email: "bench-tracking@example.com",
  }, op);
  await call(o.app, "POST", `/operator/businesses/${biz.id}/wallet`, {
    amount: "1000000.00",
    currency: "BWP",
    reference: "bench-tracking",
  }, op);
  const key = { "X-Business-API-Key": biz.api_key };
  const tokens: string[] = [];
  for (let i = 0; i < TRIPS; i++) {
    const trip = await call(o.app, "POST", "/business/book", {
      type: "parcel",
      pickup_address: "Main Mall, Gaborone",
      pickup_lat: -24.6545,
      pickup_lng: 25.9086,
      dest_address: `Plot ${i}, Block 8`,
      dest_lat: -24.6019,
      dest_lng: 25.935,
    }, key);
    const d = await call(o.app, "POST", "/operator/drivers", {
      name: `Driver ${i}`,
      phone: "+26771234567",
      vehicle_type_id: 1,
      zone_id: "gaborone",
    }, op);
    const driver = { id: d.id, name: `Driver ${i}`, phone: null, plate: null, color: null };
    const r = await o.env.runtime.ask(tripActor, biz.id, trip.reference, {
      kind: "accept",
      driver: { ...driver, vehicle_type_id: 1 },
    });
    if (!r.ok) throw new Error(`accept: ${r.message}`);
    await call(o.app, "POST", "/driver/positions", {
      positions: [{ lat: -24.65 + i * 1e-5, lng: 25.91, at: new Date().toISOString() }],
    }, { Authorization: `Bearer ${d.token}` });
    tokens.push(trip.tracking_url.slice(trip.tracking_url.lastIndexOf("/") + 1));
  }
  await o.env.pump();
  return tokens;
}

export async function trackingBench(): Promise<void> {
  await withBenchEnvironment("live", async (o) => {
    const tokens = await trackedTrips(o);
    let reads = 0;
    let failed = 0;
    const until = performance.now() + SECONDS * 1_000;
    await Promise.all(Array.from({ length: READERS }, async (_, reader) => {
      // A socket's address, one per reader: what Deno.serve hands the app (getConnInfo).
      const info = { remoteAddr: { hostname: `10.0.0.${reader + 1}`, port: 1, transport: "tcp" } };
      for (let i = reader; performance.now() < until; i += READERS) {
        const r = await o.app.request(`/api/trip-track/${tokens[i % tokens.length]}`, {}, info);
        await r.arrayBuffer();
        if (r.status === 200) reads++;
        else failed++;
      }
    }));
    const perSecond = reads / SECONDS;
    console.log(
      `tracking: ${perSecond.toFixed(0)} GET /trip-track reads/s over ${TRIPS} accepted trips ` +
        `with fresh positions, ${READERS} readers in process (${failed} not 200)`,
    );
    recordFigure("tracking_reads_per_second", perSecond);
  });
}
