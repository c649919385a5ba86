/**
 * Batches (issue 40, Business API 2.3, 4.2), figures only:
 * 1. batches of 50 stops booked per second, in process through the HTTP app (each stop a trip:
 *    priced, numbered, charged and created), by a few clients at once on one business;
 * 2. the driving order's tour length against the exact optimum (Held-Karp) on random 12-stop
 *    batches in a town: the mean and the worst ratio.
 */
import { greatCircleKm } from "../src/domain/geo.ts";
import { drivingOrder, optimalLength, tourLength } from "../src/business/rules/tour.ts";
import { recordFigure } from "./summary.ts";
import { BENCH_OPERATOR, type BenchEnvironment, withBenchEnvironment } from "./bench_env.ts";

const BATCHES = Number(Deno.env.get("BENCH_BATCHES") ?? 40);
const CLIENTS = Number(Deno.env.get("BENCH_BATCH_CLIENTS") ?? 4);
const STOPS = 50;
const TOURS = Number(Deno.env.get("BENCH_TOURS") ?? 200);
const TOUR_STOPS = 12;

type Opened = BenchEnvironment;

async function call(o: Opened, path: string, body: unknown, auth: HeadersInit) {
  const r = await o.app.request(`/api${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...auth },
    body: JSON.stringify(body),
  });
  const json = await r.json();
  if (r.status >= 300) throw new Error(`${path}: ${r.status} ${JSON.stringify(json)}`);
  return json.data;
}

/** A seeded generator, so every run measures the same layouts. */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1_103_515_245 + 12_345) % 2_147_483_648;
    return s / 2_147_483_648;
  };
}

/** A point within about 10 km of Gaborone's Main Mall. */
function inTown(next: () => number) {
  return { lat: -24.6545 + (next() - 0.5) * 0.18, lng: 25.9086 + (next() - 0.5) * 0.2 };
}

function batchBody(n: number, next: () => number) {
  const sizes = ["s", "m", "l", "small", "medium"];
  return {
    segment: "parcel",
    external_reference: `BENCH-${n}`,
    stops: Array.from({ length: STOPS }, (_, i) => {
      const dest = inTown(next);
      return {
        recipient_name: `Recipient ${i}`,
        pickup_address: "Main Mall, Gaborone",
        pickup_lat: -24.6545,
        pickup_lng: 25.9086,
        dest_address: `Plot ${i}`,
        dest_lat: dest.lat,
        dest_lng: dest.lng,
        size: sizes[i % sizes.length],
        weight_kg: 1 + (i % 10),
      };
    }),
  };
}

async function bookingFigure(o: Opened): Promise<void> {
  const biz = await call(o, "/operator/businesses", {
    name: "Bench Batches",
    plan: "enterprise",
    currency: "BWP",
    country: "BW",
    owner_email: "bench-batches@example.com",
  }, { Authorization: `Bearer ${BENCH_OPERATOR}` });
  await call(o, `/operator/businesses/${biz.id}/wallet`, {
    amount: "100000000.00",
    currency: "BWP",
    reference: "bench",
  }, { Authorization: `Bearer ${BENCH_OPERATOR}` });
  const next = random(40);
  const bodies = Array.from({ length: BATCHES }, (_, n) => batchBody(n, next));
  const key = { "X-Business-API-Key": biz.api_key };
  const started = performance.now();
  let taken = 0;
  await Promise.all(Array.from({ length: CLIENTS }, async () => {
    while (taken < bodies.length) await call(o, "/business/batches", bodies[taken++], key);
  }));
  const seconds = (performance.now() - started) / 1_000;
  const perSecond = BATCHES / seconds;
  console.log(
    `batches: ${perSecond.toFixed(2)} batches of ${STOPS} stops booked/s ` +
      `(${(perSecond * STOPS).toFixed(0)} trips/s; ${BATCHES} batches by ${CLIENTS} clients on ` +
      `one wallet in ${seconds.toFixed(1)} s)`,
  );
  recordFigure("batches_of_50_per_second", perSecond);
}

function tourFigure(): void {
  const next = random(12);
  let sum = 0, worst = 1;
  const started = performance.now();
  for (let n = 0; n < TOURS; n++) {
    const points = [{ lat: -24.6545, lng: 25.9086 }];
    for (let i = 0; i < TOUR_STOPS; i++) points.push(inTown(next));
    const d = points.map((a) => points.map((b) => greatCircleKm(a, b)));
    const ratio = tourLength(d, drivingOrder(d)) / optimalLength(d);
    sum += ratio;
    worst = Math.max(worst, ratio);
  }
  const mean = sum / TOURS;
  console.log(
    `batches: driving order / optimum on ${TOURS} random ${TOUR_STOPS}-stop batches: mean ` +
      `${mean.toFixed(4)}, worst ${worst.toFixed(4)} ` +
      `(${((performance.now() - started) / 1_000).toFixed(1)} s with Held-Karp)`,
  );
  recordFigure("batch_tour_ratio_mean", mean);
  recordFigure("batch_tour_ratio_worst", worst);
}

export async function batchesBench(): Promise<void> {
  tourFigure();
  await withBenchEnvironment("live", async (o) => {
    await bookingFigure(o);
  });
}

if (import.meta.main) await batchesBench();
