/**
 * What a request's count costs (issue 43 item 4): a plan limit's take in this instance's memory
 * (the embedded default), and in the shared query side as instances of one deployment count it
 * (shared_rate_limit.ts: one upsert; Postgres at DATABASE_URL, NaN when unset): one take at a
 * time (its latency, one round trip), and 256 at once (takes per second: those arriving while
 * statements are under way go together in the next). A failed sign-in's count too (begin and
 * fail, shared_login_throttle.ts), for scale beside a password's hash.
 */
import { openDatabase } from "../src/db/db.ts";
import { dropSchema } from "../src/db/migrate.ts";
import { LoginThrottle } from "../src/http/login_throttle.ts";
import { RateLimiter } from "../src/http/rate_limit.ts";
import { SharedLoginThrottle } from "../src/http/shared_login_throttle.ts";
import { SharedRateCounter } from "../src/http/shared_rate_limit.ts";
import { createLogger } from "../src/observe/log.ts";
import { SystemClock } from "../src/runtime/clock.ts";
import { recordFigure } from "./summary.ts";

const MEMORY_TAKES = 1_000_000;
const SEQUENTIAL_TAKES = 2_000;
const CONCURRENT_TAKES = 20_000;
const IN_FLIGHT = 256;
const SIGN_INS = 300;
/** Never binding: the figures are the count's cost, not a refusal's. */
const LIMITS = { perMinute: 1_000_000_000, perDay: 1_000_000_000 };

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

function memoryTakeUs(): number {
  const limiter = new RateLimiter(new SystemClock());
  const started = performance.now();
  for (let i = 0; i < MEMORY_TAKES; i++) limiter.take(`biz_${i % 1_000}`, LIMITS);
  return (performance.now() - started) * 1000 / MEMORY_TAKES;
}

async function sharedFigures(url: string) {
  const schema = `bench_counters_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
  const handle = await openDatabase({ url, schema });
  const clock = new SystemClock();
  const log = createLogger("silent", { write: () => {} });
  try {
    const counter = new SharedRateCounter({
      db: handle.db,
      clock,
      fallback: new RateLimiter(clock),
      log,
    });
    const latencies: number[] = [];
    for (let i = 0; i < SEQUENTIAL_TAKES; i++) {
      const t0 = performance.now();
      await counter.take(`biz_${i % 100}`, LIMITS);
      latencies.push((performance.now() - t0) * 1000);
    }
    latencies.sort((a, b) => a - b);
    let next = 0;
    const started = performance.now();
    await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
      while (next < CONCURRENT_TAKES) await counter.take(`biz_${next++ % 1_000}`, LIMITS);
    }));
    const perSecond = CONCURRENT_TAKES / ((performance.now() - started) / 1000);
    const throttle = new SharedLoginThrottle({
      db: handle.db,
      clock,
      fallback: new LoginThrottle(clock),
      log,
    });
    const signInStarted = performance.now();
    for (let i = 0; i < SIGN_INS; i++) {
      const keys = [{ key: `account:bench:${i}`, free: 5 }, { key: "address:bench", free: 1e9 }];
      await throttle.begin(keys);
      await throttle.fail(keys[0]!.key, 5);
    }
    const signInMs = (performance.now() - signInStarted) / SIGN_INS;
    return {
      p50: percentile(latencies, 0.5),
      p99: percentile(latencies, 0.99),
      perSecond,
      signInMs,
    };
  } finally {
    await dropSchema(handle.db, schema);
    await handle.close();
  }
}

export async function countersBench(): Promise<void> {
  const memory = memoryTakeUs();
  console.log(`counters: a take in memory ${memory.toFixed(2)} µs`);
  recordFigure("counters_memory_take_us", memory);
  const url = Deno.env.get("DATABASE_URL");
  if (url === undefined) console.log("counters, shared: DATABASE_URL unset, not measured");
  const shared = url === undefined
    ? { p50: NaN, p99: NaN, perSecond: NaN, signInMs: NaN }
    : await sharedFigures(url);
  if (url !== undefined) {
    console.log(
      `counters, shared on Postgres: a take alone p50 ${shared.p50.toFixed(0)} µs, ` +
        `p99 ${shared.p99.toFixed(0)} µs; ${IN_FLIGHT} at once ` +
        `${shared.perSecond.toFixed(0)} takes/s; a failed sign-in's count ` +
        `${shared.signInMs.toFixed(2)} ms`,
    );
  }
  recordFigure("counters_pg_take_p50_us", shared.p50);
  recordFigure("counters_pg_take_p99_us", shared.p99);
  recordFigure("counters_pg_takes_per_s", shared.perSecond);
  recordFigure("counters_pg_sign_in_count_ms", shared.signInMs);
}
