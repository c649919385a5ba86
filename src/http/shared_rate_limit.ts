/**
 * Plan limits held across instances (Business API 8): every instance of a deployment counts a
 * known caller's requests in one row of the shared query side (`rate_counters`), so 30 requests
 * a minute are 30 however a load balancer spreads them. Exact, never over the limit: one upsert
 * decides, in the row's own lock, how many of the requests it carries go through.
 *
 * Why the database and not counts exchanged over the bus: the limit is small (Starter's 30 a
 * minute), so a bounded error of a few requests per instance would be most of it, and an answer's
 * X-RateLimit-Remaining would be a guess. The cost is one statement per request at most: while
 * IN_FLIGHT_MAX statements are under way, the requests arriving wait for the next one and go in
 * it together (one row per caller, the count carried), as the runtime's group commit does. When
 * the database fails, this instance counts in its memory until it answers again (the service
 * keeps answering; the limit then holds per instance). Addresses calling without a known
 * credential are counted the same way (their own rows, `kind` "address"), so anonymous calls too
 * are limited across the instances. Rows of days gone count nothing: the environment's sweep
 * deletes them (sweepRateCounters).
 */
import { CompiledQuery, type Kysely } from "kysely";
import type { Database } from "../db/schema.ts";
import type { Logger } from "../observe/log.ts";
import type { Clock } from "../runtime/clock.ts";
import {
  type CounterKind,
  decisionOf,
  type Limits,
  type PlanCounter,
  type RateDecision,
  type RateLimiter,
  windowsAt,
} from "./rate_limit.ts";

/** Statements under way at once; requests arriving past them wait for the next. */
const IN_FLIGHT_MAX = 4;
/** Callers' rows one statement counts (a bounded statement); more wait for the next. */
const ROWS_PER_STATEMENT_MAX = 500;
/** Rows one sweep statement deletes at most (a bounded statement); more wait for the next. */
const SWEEP_ROWS_MAX = 5_000;

interface Waiting {
  readonly key: string;
  readonly limits: Limits;
  readonly resolve: (d: RateDecision) => void;
}

export interface SharedRateCounterOptions {
  readonly db: Kysely<Database>;
  readonly clock: Clock;
  /** Counts in memory while the database fails. */
  readonly fallback: RateLimiter;
  readonly log: Logger;
  /** Who the keys count (the fallback's memory keeps addresses bounded); default "caller". */
  readonly kind?: CounterKind;
}

export class SharedRateCounter implements PlanCounter {
  readonly #o: SharedRateCounterOptions;
  #waiting: Waiting[] = [];
  #inFlight = 0;
  #failing = false;

  constructor(options: SharedRateCounterOptions) {
    this.#o = options;
  }

  take(key: string, limits: Limits): Promise<RateDecision> {
    const decided = new Promise<RateDecision>((resolve) => {
      this.#waiting.push({ key, limits, resolve });
    });
    this.#send();
    return decided;
  }

  /** Sends what waits, while fewer than IN_FLIGHT_MAX statements are under way. */
  #send(): void {
    while (this.#inFlight < IN_FLIGHT_MAX && this.#waiting.length > 0) {
      const batch = this.#takeBatch();
      this.#inFlight++;
      this.#count(batch).finally(() => {
        this.#inFlight--;
        this.#send();
      });
    }
  }

  /** The waiting requests of at most ROWS_PER_STATEMENT_MAX callers, by caller, in order. */
  #takeBatch(): Map<string, Waiting[]> {
    const batch = new Map<string, Waiting[]>();
    let i = 0;
    for (; i < this.#waiting.length; i++) {
      const w = this.#waiting[i]!;
      const same = batch.get(w.key);
      if (same) same.push(w);
      else if (batch.size < ROWS_PER_STATEMENT_MAX) batch.set(w.key, [w]);
      else break;
    }
    this.#waiting = this.#waiting.slice(i);
    return batch;
  }

  async #count(batch: Map<string, Waiting[]>): Promise<void> {
    const now = this.#o.clock.now();
    try {
      const rows = await countRows(this.#o.db, now, batch);
      if (this.#failing) this.#o.log.info({ event: "rate_counters_back" }, "rate counters back");
      this.#failing = false;
      for (const [key, waiting] of batch) answer(now, waiting, rows.get(key));
    } catch (err) {
      if (!this.#failing) {
        this.#o.log.warn(
          { event: "rate_counters_failing", err },
          "shared rate counters failing: counting in this instance's memory",
        );
      }
      this.#failing = true;
      for (const w of [...batch.values()].flat()) {
        w.resolve(this.#o.fallback.take(w.key, w.limits, this.#o.kind));
      }
    }
  }
}

/**
 * Deletes the rows whose day is before `now`'s: nothing in them counts (a row's counts start
 * afresh in a newer window), SWEEP_ROWS_MAX a statement, until none is left. Answers how many.
 */
export async function sweepRateCounters(db: Kysely<Database>, now: number): Promise<number> {
  const { day } = windowsAt(now);
  let swept = 0;
  for (;;) {
    // The day tested again outside the subquery: a row counted into today since is kept.
    const { numDeletedRows } = await db.deleteFrom("rate_counters")
      .where(
        "key",
        "in",
        (q) =>
          q.selectFrom("rate_counters").select("key").where("day_window", "<", day)
            .limit(SWEEP_ROWS_MAX),
      )
      .where("day_window", "<", day)
      .executeTakeFirst();
    const n = Number(numDeletedRows);
    swept += n;
    if (n < SWEEP_ROWS_MAX) return swept;
  }
}

type CountedRow = Pick<
  Database["rate_counters"],
  "minute_window" | "minute_count" | "day_window" | "day_count" | "granted"
>;

/** The row of each caller counted, as the statement answers it. */
const COLUMNS = "key, minute_window, minute_count, day_window, day_count, granted";
/** A caller's count in the row as it stands: 0 once the row's window is older than the asked. */
const MINUTE_COUNT =
  "(case when r.minute_window >= excluded.minute_window then r.minute_count else 0 end)";
const DAY_COUNT = "(case when r.day_window >= excluded.day_window then r.day_count else 0 end)";
/** excluded.granted is what is asked; the room left in the tighter window bounds it. */
const GRANTED = `least(excluded.granted, greatest(0, least(excluded.per_minute - ${MINUTE_COUNT},
  excluded.per_day - ${DAY_COUNT})))`;

/**
 * The upsert of a batch of callers, one text whatever their number (their rows in one JSON
 * parameter, json.ts insertRows says why): written out, not built, since Kysely's builder costs
 * more CPU than the rest of a remembered caller's request path.
 */
const UPSERT = `insert into rate_counters as r
    (key, minute_window, minute_count, day_window, day_count, granted, per_minute, per_day)
    select a.key, a.minute_window, a.asked, a.day_window, a.asked, a.asked, a.per_minute,
      a.per_day
    from jsonb_to_recordset(cast($1 as text)::jsonb) as a(key text, minute_window integer,
      asked integer, day_window integer, per_minute integer, per_day integer)
    on conflict (key) do update set
      minute_window = greatest(r.minute_window, excluded.minute_window),
      minute_count = ${MINUTE_COUNT} + ${GRANTED},
      day_window = greatest(r.day_window, excluded.day_window),
      day_count = ${DAY_COUNT} + ${GRANTED},
      granted = ${GRANTED},
      per_minute = excluded.per_minute,
      per_day = excluded.per_day
    returning ${COLUMNS}`;

/**
 * One upsert for the batch: per caller, as many of its requests as both windows have room for
 * are counted. A window older than the row's (another instance's clock a little ahead) counts
 * into the row's, never resetting it.
 */
async function countRows(
  db: Kysely<Database>,
  now: number,
  batch: Map<string, Waiting[]>,
): Promise<Map<string, CountedRow & { key: string }>> {
  const { minute, day } = windowsAt(now);
  const asked = [...batch].map(([key, waiting]) => {
    const limits = waiting[waiting.length - 1]!.limits;
    const asked = Math.min(waiting.length, limits.perMinute, limits.perDay);
    return {
      key,
      minute_window: minute,
      asked,
      day_window: day,
      per_minute: limits.perMinute,
      per_day: limits.perDay,
    };
  });
  const { rows } = await db.executeQuery<CountedRow & { key: string }>(
    CompiledQuery.raw(UPSERT, [JSON.stringify(asked)]),
  );
  return new Map(rows.map((r) => [r.key, r]));
}

/** Each waiting request of one caller its decision: the first `granted` go through, in order. */
function answer(now: number, waiting: readonly Waiting[], row: CountedRow | undefined): void {
  // A statement answers a row for every caller it counted; none is a broken invariant.
  if (!row) throw new Error("rate counters: no row answered for a counted caller");
  waiting.forEach((w, i) => {
    const allowed = i < row.granted;
    // The counts as this request left them: the requests before it in the batch counted too.
    const through = allowed ? row.granted - (i + 1) : 0;
    w.resolve(decisionOf(now, w.limits, {
      minute: row.minute_window,
      minuteCount: row.minute_count - through,
      day: row.day_window,
      dayCount: row.day_count - through,
    }, allowed));
  });
}
