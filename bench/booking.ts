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
import { load } from "./booking_load.ts";
import { runtimeTarget } from "./runtime_target.ts";
import { baselineTarget } from "./booking_baseline.ts";
import { ceilingTarget } from "./booking_ceiling.ts";

// The runtime target, as the benches that drive it have imported it from here.
export { operatorCall, runtimeTarget } from "./runtime_target.ts";

/** Concurrent client loops; BENCH_CLIENTS names one count instead. */
const CLIENT_COUNTS = Deno.env.get("BENCH_CLIENTS")
  ? [Number(Deno.env.get("BENCH_CLIENTS"))]
  : [50, 200];
/** Connection pool sizes tried for the baseline; its best counts. */
const POOL_SIZES = [4, 10, 20];
const ACCOUNTS = 1_000;

/** Booking rates by client count. */
type Rates = Map<number, number>;

export async function bookingBench(options: { only?: "runtime-hot" } = {}): Promise<void> {
  const ceiling = options.only ? 0 : await ceilingRate();
  for (const [label, accounts] of [["one hot account", 1], ["1,000 accounts", ACCOUNTS]] as const) {
    const ours = await runtimeRates(label, accounts);
    if (options.only) return;
    const theirs = await baselineRates(label, accounts);
    printRatios(label, ours, theirs, ceiling);
  }
}

/** One load Worker tops out before the server does: the ceiling is the best of several. */
async function ceilingRate(): Promise<number> {
  let ceiling = 0;
  const target = ceilingTarget();
  for (const workers of [1, 2, 3]) {
    for (const clients of CLIENT_COUNTS) {
      const rate = await load(
        `HTTP booking ceiling (routes that book nothing), ${clients} clients, ${workers} load workers`,
        target,
        clients,
        workers,
      );
      ceiling = Math.max(ceiling, rate);
    }
  }
  await target.close();
  return ceiling;
}

async function runtimeRates(label: string, accounts: number): Promise<Rates> {
  const ours: Rates = new Map();
  const runtime = await runtimeTarget(accounts);
  for (const clients of CLIENT_COUNTS) {
    ours.set(
      clients,
      await load(`HTTP booking, runtime, ${label}, ${clients} clients`, runtime, clients),
    );
  }
  await runtime.close();
  return ours;
}

/** The baseline's best pool at each client count. */
async function baselineRates(label: string, accounts: number): Promise<Rates> {
  const theirs: Rates = new Map();
  for (const clients of CLIENT_COUNTS) {
    // PGlite is one connection: there is no pool to tune.
    for (const pool of Deno.env.get("DATABASE_URL") ? POOL_SIZES : [1]) {
      const baseline = await baselineTarget(accounts, pool);
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
