/**
 * The booking load driver: BOOKINGS price-then-book flows (courier 4.1) against a target, from
 * many concurrent client loops spread over Workers (load_worker.ts), timed until the target has
 * caught up; it prints the rate, the latencies and the CPU each booking cost (cpu.ts).
 */
import { cpuMsPer, cpuPerBooking, cpuSample, loadThreads } from "./cpu.ts";

export const BOOKINGS = Number(Deno.env.get("BENCH_BOOKINGS") ?? 2_000);

const PRICE_BODY = {
  recipient_name: "Neo",
  recipient_phone: "+26771234567",
  parcels: [{ weight_kg: 2.5, length_cm: 30, width_cm: 20, height_cm: 10 }],
  from_country: "BW",
  to_country: "BW",
};

export interface Target {
  readonly base: string;
  /** Client API keys, one per account. */
  readonly keys: readonly string[];
  /** The courier's business key and id (the runtime target only). */
  readonly businessKey?: string;
  readonly businessId?: string;
  /**
   * Resolves once the work a booking left to do asynchronously is done (the runtime's Postgres
   * projections and bus handlers: billing events, alerts); the load is timed until then, so a
   * backlog never flatters the rate.
   */
  settle?(): Promise<void>;
  close(): Promise<void>;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;
}

interface LoadResult {
  readonly ok: boolean;
  readonly seconds: number;
  readonly latencies: number[];
  readonly refused: number;
  /** The CPU the Worker's own thread spent (threadCpuMs): the client's. */
  readonly cpuMs?: number;
  /** The Worker's thread (threadId), named the load generator's in the CPU by thread. */
  readonly tid?: string | null;
  readonly error?: string;
}

/** What one load measured: bookings/s, latencies (ms) and CPU per booking (ms, cpu.ts). */
export interface LoadFigures {
  readonly rate: number;
  readonly p50: number;
  readonly p99: number;
  /** This process's (server and load generator). */
  readonly processCpuMs: number;
  /** Every Postgres process's on the machine. */
  readonly postgresCpuMs: number;
  /** The whole machine's, other work on it included. */
  readonly machineCpuMs: number;
  /** The load generator's (its Workers' threads, within this process's): the client's share. */
  readonly loadCpuMs: number;
}

/**
 * Runs BOOKINGS price-then-book flows from `clients` concurrent loops, spread over `workers`
 * Workers (the load generator's threads); prints the rate and the CPU each booking cost.
 */
export async function load(
  label: string,
  target: Target,
  clients: number,
  workers = 1,
): Promise<number> {
  return (await loadFigures(label, target, clients, workers)).rate;
}

/** load(), answering every figure it printed. */
export async function loadFigures(
  label: string,
  target: Target,
  clients: number,
  workers = 1,
): Promise<LoadFigures> {
  const before = cpuSample();
  const started = performance.now();
  const results = await Promise.all(
    Array.from({ length: workers }, (_, i) => loadWorker(target, clients, workers, i)),
  );
  const answered = performance.now();
  // Before the second sample: it names their threads (loadThreads).
  const loadCpuMs = loadCpuPer(results, BOOKINGS);
  await target.settle?.();
  const lag = performance.now() - answered;
  const seconds = (performance.now() - started) / 1000;
  const after = cpuSample();
  const failed = results.find((r) => !r.ok);
  if (failed) throw new Error(failed.error);
  const latencies = results.flatMap((r) => r.latencies).sort((a, b) => a - b);
  const refused = results.reduce((n, r) => n + r.refused, 0);
  const rate = BOOKINGS / seconds;
  const cpu = cpuMsPer(before, after, BOOKINGS);
  console.log(
    `${label}: ${rate.toFixed(0)} bookings/s, p50 ${percentile(latencies, 0.5).toFixed(1)} ms, ` +
      `p99 ${percentile(latencies, 0.99).toFixed(1)} ms (${refused} refused)` +
      (target.settle ? `, caught up ${lag.toFixed(0)} ms after the last answer` : "") +
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

/**
 * What the server side spent a booking, ms: this process's CPU but its load generator's, and
 * Postgres's (the query side's, or the baseline's store). The client's CPU is the load
 * generator's, not the booking's.
 */
export function serverCpuMs(f: LoadFigures): number {
  return f.processCpuMs - f.loadCpuMs + f.postgresCpuMs;
}

/**
 * The load Workers' own CPU per booking, ms (NaN when one could not read its thread's); their
 * threads are named the load generator's from here on (loadThreads).
 */
export function loadCpuPer(
  results: readonly { cpuMs?: number; tid?: string | null }[],
  bookings: number,
): number {
  for (const r of results) if (r.tid) loadThreads.add(r.tid);
  return results.reduce((n, r) => n + (r.cpuMs ?? NaN), 0) / bookings;
}

/** The load generator's part of this process's CPU, as the load lines print it. */
export function loadCpuNote(loadCpuMs: number): string {
  return Number.isNaN(loadCpuMs)
    ? ""
    : `; the load generator's part of this process: ${loadCpuMs.toFixed(2)}`;
}

/** Worker `i` of `workers`: its share of the bookings and of the client loops. */
function loadWorker(target: Target, clients: number, workers: number, i: number) {
  return new Promise<LoadResult>((resolve) => {
    const worker = new Worker(new URL("./load_worker.ts", import.meta.url), {
      type: "module",
    });
    worker.onmessage = (e) => {
      worker.terminate();
      resolve(e.data);
    };
    // Each worker takes its share; the first takes what does not divide evenly.
    const share = (n: number) => Math.floor(n / workers) + (i === 0 ? n % workers : 0);
    worker.postMessage({
      base: target.base,
      keys: target.keys,
      bookings: share(BOOKINGS),
      clients: share(clients),
      body: PRICE_BODY,
    });
  });
}
