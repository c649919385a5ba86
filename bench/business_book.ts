/**
 * Business API booking over HTTP (issue 37 "Measured, not asserted"): POST /business/book through
 * the real server on loopback (runtime_target.ts), on one business (a hot wallet) and spread over
 * 1,000 businesses, and the replays/s of one Idempotency-Key; beside routes of the same shape that
 * book nothing (the ceiling) and one Postgres transaction per booking (the baseline), in the same
 * run (business_book_targets.ts). Each load prints bookings/s, p50/p99 and CPU per booking (cpu.ts).
 */
import {
  BOOKINGS,
  loadCpuNote,
  loadCpuPer,
  type LoadFigures,
  serverCpuMs,
  type Target,
} from "./booking_load.ts";
import { cpuMsPer, cpuPerBooking, cpuSample } from "./cpu.ts";
import { operatorCall, runtimeTarget } from "./runtime_target.ts";
import { businessBaselineTarget, businessCeilingTarget } from "./business_book_targets.ts";
import { recordFigure } from "./summary.ts";

const CLIENTS = Number(Deno.env.get("BENCH_CLIENTS") ?? 50);
const BUSINESSES = 1_000;

/** A parcel across Gaborone, priced by the default catalogue (booking_bytes.ts books it too). */
export const BOOK_BODY = {
  type: "parcel",
  passenger_name: "Neo Kgosi",
  passenger_phone: "+26771234567",
  pickup_address: "Main Mall, Gaborone",
  pickup_lat: -24.6545,
  pickup_lng: 25.9086,
  dest_address: "Plot 9, Block 8",
  dest_lat: -24.6019,
  dest_lng: 25.935,
  parcel_weight_kg: 2.5,
};

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;
}

interface WorkerResult {
  readonly ok: boolean;
  readonly latencies: number[];
  readonly refused: number;
  /** The Worker's own thread's CPU: the client's. */
  readonly cpuMs?: number;
  readonly error?: string;
}

function worker(target: Target, share: number, clients: number, replayKey: string | null) {
  return new Promise<WorkerResult>((resolve) => {
    const w = new Worker(new URL("./business_book_worker.ts", import.meta.url), {
      type: "module",
    });
    w.onmessage = (e) => {
      w.terminate();
      resolve(e.data);
    };
    w.postMessage({
      base: target.base,
      keys: target.keys,
      bookings: share,
      clients,
      body: BOOK_BODY,
      replay_key: replayKey,
    });
  });
}

/** BOOKINGS requests from CLIENTS loops over `workers` Workers, timed until the target settles. */
async function businessLoad(
  label: string,
  target: Target,
  o: { readonly workers?: number; readonly replayKey?: string } = {},
): Promise<LoadFigures> {
  const workers = o.workers ?? 1;
  const before = cpuSample();
  const started = performance.now();
  const share = (n: number, i: number) => Math.floor(n / workers) + (i === 0 ? n % workers : 0);
  const results = await Promise.all(
    Array.from(
      { length: workers },
      (_, i) => worker(target, share(BOOKINGS, i), share(CLIENTS, i), o.replayKey ?? null),
    ),
  );
  // Before the second sample: it names their threads (loadThreads).
  const loadCpuMs = loadCpuPer(results, BOOKINGS);
  await target.settle?.();
  const seconds = (performance.now() - started) / 1000;
  const after = cpuSample();
  const failed = results.find((r) => !r.ok);
  if (failed) throw new Error(failed.error);
  const latencies = results.flatMap((r) => r.latencies).sort((a, b) => a - b);
  const refused = results.reduce((n, r) => n + r.refused, 0);
  const rate = BOOKINGS / seconds;
  const cpu = cpuMsPer(before, after, BOOKINGS);
  console.log(
    `${label}: ${rate.toFixed(0)} requests/s, p50 ${percentile(latencies, 0.5).toFixed(1)} ms, ` +
      `p99 ${percentile(latencies, 0.99).toFixed(1)} ms (${refused} refused)` +
      cpuPerBooking(before, after, BOOKINGS) + loadCpuNote(loadCpuMs),
  );
  return {
    rate,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    processCpuMs: cpu.process,
    postgresCpuMs: cpu.postgres,
    machineCpuMs: cpu.machine,
    loadCpuMs,
  };
}

/** `count` enterprise businesses with money in their wallets; their API keys. */
async function fundedBusinesses(base: string, count: number): Promise<string[]> {
  const keys: string[] = [];
  for (let i = 0; i < count; i++) {
    const biz = await operatorCall(base, "POST", "/operator/businesses", {
      name: `Bench shop ${i}`,
      plan: "enterprise",
      currency: "BWP",
      country: "BW",
      owner_email: `shop-${i}-${crypto.randomUUID()}@example.com`,
    });
    await operatorCall(base, "PATCH", `/operator/businesses/${biz.id}`, {
      rate_limit_per_minute: 1_000_000,
      rate_limit_per_day: 100_000_000,
    });
    await operatorCall(base, "POST", `/operator/businesses/${biz.id}/wallet`, {
      amount: "100000000.00",
      currency: "BWP",
      reference: `bench-${i}`,
    });
    keys.push(biz.api_key);
  }
  return keys;
}

async function bookOnce(base: string, key: string, idempotencyKey: string): Promise<void> {
  const r = await fetch(`${base}/api/business/book`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      "X-Business-API-Key": key,
      "Idempotency-Key": idempotencyKey,
    },
    body: JSON.stringify(BOOK_BODY),
  });
  if (r.status !== 201) throw new Error(`business book: ${r.status} ${await r.text()}`);
}

function record(name: string, f: LoadFigures): void {
  recordFigure(`business_book_${name}_per_s`, f.rate);
  recordFigure(`business_book_${name}_p50_ms`, f.p50);
  recordFigure(`business_book_${name}_p99_ms`, f.p99);
  recordFigure(`business_book_${name}_cpu_ms`, f.processCpuMs);
  recordFigure(`business_book_${name}_server_cpu_ms`, serverCpuMs(f));
}

export async function businessBookBench(): Promise<void> {
  const ceilingTarget = businessCeilingTarget();
  let best: LoadFigures | null = null;
  for (const workers of [1, 2]) {
    const f = await businessLoad(
      `HTTP business booking ceiling (a route that books nothing), ${workers} load workers`,
      ceilingTarget,
      { workers },
    );
    if (best === null || f.rate > best.rate) best = f;
  }
  await ceilingTarget.close();
  const ceiling = best!.rate;
  recordFigure("business_book_ceiling_per_s", ceiling);
  recordFigure("business_book_ceiling_server_cpu_ms", serverCpuMs(best!));

  // The real server on the embedded defaults (or DATABASE_URL and NATS_URL when set).
  const server = await runtimeTarget(0);
  const all = await fundedBusinesses(server.base, BUSINESSES);
  const hot = await businessLoad(`HTTP business booking, one hot wallet, ${CLIENTS} clients`, {
    ...server,
    keys: all.slice(0, 1),
  });
  const spread = await businessLoad(`HTTP business booking, ${BUSINESSES} businesses`, {
    ...server,
    keys: all,
  });
  // The key books once first: the load measures replays, not 409 request_in_progress.
  const replayKey = `bench-replay-${crypto.randomUUID()}`;
  await bookOnce(server.base, all[1]!, replayKey);
  const replays = await businessLoad("HTTP business booking, one Idempotency-Key replayed", {
    ...server,
    keys: all.slice(1, 2),
  }, { replayKey });
  await server.close();
  record("hot", hot);
  record("1000", spread);
  recordFigure("business_book_replays_per_s", replays.rate);
  recordFigure("business_book_hot_ceiling_share", hot.rate / ceiling);

  for (const [name, wallets] of [["hot", 1], ["1000", BUSINESSES]] as const) {
    const base = await businessBaselineTarget(wallets, Deno.env.get("DATABASE_URL"));
    const f = await businessLoad(
      `HTTP business booking baseline (${base.label}), ${wallets} wallets`,
      base,
    );
    await base.close();
    recordFigure(`business_book_baseline_${name}_per_s`, f.rate);
    recordFigure(
      `business_book_${name}_baseline_ratio`,
      (name === "hot" ? hot : spread).rate / f.rate,
    );
  }
}
