/**
 * End-to-end booking over HTTP (courier 4.1): POST /client/prices then POST /client/book, on one
 * hot prepaid account and spread over 1,000 accounts, through the real server on loopback
 * (runtime_target.ts); and the same flow done the conventional way (one Postgres transaction per
 * booking with a conditional UPDATE ... RETURNING) behind Hono routes of the same shape
 * (booking_baseline.ts). Both sides record what a booking records: the held offer, the shipment
 * with its pricing and tracking token, its ledger entry and its billing event (the baseline's as
 * an outbox row in the same transaction).
 *
 * Routes of the same shape that book nothing give the ceiling (booking_ceiling.ts): what the load
 * generator and Hono carry on this machine, with the CPU each booking cost on every side (Linux
 * /proc, cpu.ts), since the server, its databases and the load generator share the machine's
 * cores. The load driver is booking_load.ts.
 *
 * Each side is measured at several client counts and the baseline at several connection pool
 * sizes: the strongest conventional design is a tuned one (a pool as large as the client count
 * queues every client on the hot row's lock, and lowers the baseline by a third), and the ratio
 * is best against best, with the ratio at each client count beside it.
 */
import { load, type LoadFigures, loadFigures, serverCpuMs } from "./booking_load.ts";
import { type Backend, environmentBackend, runtimeTarget } from "./runtime_target.ts";
import { baselineTarget } from "./booking_baseline.ts";
import { ceilingTarget } from "./booking_ceiling.ts";
import { recordFigure } from "./summary.ts";

// The runtime target, as the benches that drive it have imported it from here.
export { operatorCall, runtimeTarget } from "./runtime_target.ts";

/** Concurrent client loops; BENCH_CLIENTS names one count instead. */
const CLIENT_COUNTS = Deno.env.get("BENCH_CLIENTS")
  ? [Number(Deno.env.get("BENCH_CLIENTS"))]
  : [50, 200];
/** Connection pool sizes tried for the baseline; its best counts. */
const POOL_SIZES = [4, 10, 20];
const ACCOUNTS = 1_000;

/** What the runtime did at each client count. */
type Runs = Map<number, LoadFigures>;
/** Booking rates by client count. */
type Rates = Map<number, number>;

/**
 * The embedded defaults (PGlite, the in-process bus), and Postgres (with NATS when NATS_URL is
 * set) when DATABASE_URL is set: both in one run, each named in the summary. Unset, the Postgres
 * figures are printed as NaN.
 */
function backends(): [string, Backend | null][] {
  const env = environmentBackend();
  return [
    ["embedded", { databaseUrl: undefined, natsUrl: undefined }],
    ["postgres", env.databaseUrl ? env : null],
  ];
}

export async function bookingBench(options: { only?: "runtime-hot" } = {}): Promise<void> {
  if (options.only) {
    await runtimeRuns("one hot account", 1, environmentBackend());
    return;
  }
  const ceiling = await ceilingRate();
  recordFigure("booking_ceiling_per_s", ceiling);
  for (const [name, backend] of backends()) {
    for (
      const [label, accounts, key] of [["one hot account", 1, "hot"], [
        "1,000 accounts",
        ACCOUNTS,
        "1000",
      ]] as const
    ) {
      if (!backend) {
        console.log(`booking, ${label}, ${name}: skipped (DATABASE_URL unset), NaN below`);
        recordBooking(key, name, new Map(), new Map(), ceiling);
        continue;
      }
      const ours = await runtimeRuns(`${label}, ${name}`, accounts, backend);
      const theirs = await baselineRates(`${label}, ${name}`, accounts, backend.databaseUrl);
      printRatios(`${label}, ${name}`, rates(ours), theirs, ceiling);
      recordBooking(key, name, ours, theirs, ceiling);
    }
  }
}

/** The summary's figures of one account spread on one backend, at the runtime's best count. */
function recordBooking(key: string, backend: string, ours: Runs, theirs: Rates, ceiling: number) {
  const best = [...ours.values()].reduce<LoadFigures | null>(
    (a, b) => (a === null || b.rate > a.rate ? b : a),
    null,
  );
  const baseline = theirs.size ? Math.max(...theirs.values()) : NaN;
  const rate = best?.rate ?? NaN;
  const figure = (name: string, value: number) =>
    recordFigure(`booking_${key}_${name}_${backend}`, value);
  figure("per_s", rate);
  figure("ceiling_share", rate / ceiling);
  figure("ratio", rate / baseline);
  figure("p99_ms", best?.p99 ?? NaN);
  // This process, and Postgres when it is the query side: the machine's figure holds whatever
  // else runs on it.
  const cpu = best ? best.processCpuMs + (backend === "postgres" ? best.postgresCpuMs : 0) : NaN;
  if (key === "hot") recordFigure(`booking_cpu_ms_${backend}`, cpu);
  else figure("cpu_ms", cpu);
  // The same without the load generator's (the client's) CPU: what the bookings cost the server.
  figure("server_cpu_ms", best ? serverCpuMs(best) : NaN);
  figure("machine_cpu_ms", best?.machineCpuMs ?? NaN);
}

function rates(runs: Runs): Rates {
  return new Map([...runs].map(([clients, f]) => [clients, f.rate]));
}

/** One load Worker tops out before the server does: the ceiling is the best of several. */
async function ceilingRate(): Promise<number> {
  let best: LoadFigures | null = null;
  const target = ceilingTarget();
  for (const workers of [1, 2, 3]) {
    for (const clients of CLIENT_COUNTS) {
      const f = await loadFigures(
        `HTTP booking ceiling (routes that book nothing), ${clients} clients, ${workers} load workers`,
        target,
        clients,
        workers,
      );
      if (best === null || f.rate > best.rate) best = f;
    }
  }
  await target.close();
  // What routes of a booking's shape cost the server with nothing booked: the floor of any design.
  recordFigure("booking_ceiling_server_cpu_ms", serverCpuMs(best!));
  return best!.rate;
}

async function runtimeRuns(label: string, accounts: number, backend: Backend): Promise<Runs> {
  const ours: Runs = new Map();
  const runtime = await runtimeTarget(accounts, backend);
  for (const clients of CLIENT_COUNTS) {
    ours.set(
      clients,
      await loadFigures(`HTTP booking, runtime, ${label}, ${clients} clients`, runtime, clients),
    );
  }
  await runtime.close();
  return ours;
}

/** The baseline's best pool at each client count. */
async function baselineRates(
  label: string,
  accounts: number,
  databaseUrl: string | undefined,
): Promise<Rates> {
  const theirs: Rates = new Map();
  for (const clients of CLIENT_COUNTS) {
    // PGlite is one connection: there is no pool to tune.
    for (const pool of databaseUrl ? POOL_SIZES : [1]) {
      const baseline = await baselineTarget(accounts, pool, databaseUrl);
      const rate = await load(
        `HTTP booking, ${baseline.label} transaction per booking, ${label}, ${clients} clients`,
        baseline,
        clients,
      );
      await baseline.close();
      theirs.set(clients, Math.max(theirs.get(clients) ?? 0, rate));
    }
  }
  return theirs;
}

function printRatios(label: string, ours: Rates, theirs: Rates, ceiling: number): void {
  for (const clients of CLIENT_COUNTS) {
    console.log(
      `ratio runtime/baseline, ${label}, ${clients} clients: ${
        (ours.get(clients)! / theirs.get(clients)!).toFixed(1)
      }x`,
    );
  }
  const best = (m: Rates) => Math.max(...m.values());
  console.log(
    `ratio runtime/baseline, ${label}, best against best: ${
      (best(ours) / best(theirs)).toFixed(1)
    }x (target 10x, aim 20x)`,
  );
  console.log(
    `ratio ceiling/baseline, ${label}: ${(ceiling / best(theirs)).toFixed(1)}x ` +
      `(the most any booking design can show against this baseline on this machine)`,
  );
}
