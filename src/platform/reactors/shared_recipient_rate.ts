/**
 * The backlog's pace held across instances (issue 43 item 4, issue 42 item 4): every instance of
 * a deployment paces a recipient's backlog (retries, events that waited for an endpoint,
 * requeues) out of one row per tenant and recipient in the shared query side
 * (`recipient_rate_counters`), so a recipient coming back gets RECIPIENT_ATTEMPTS_PER_SECOND_MAX
 * pumped attempts a second in all, not that many per instance.
 *
 * The engine's selection stays synchronous (due_set.ts `take`): before a pump, one upsert takes,
 * for each recipient with a backlog waiting here, a budget of this second's tokens, as many as wait
 * (at most the bound), decided in the row's own lock; the selection spends only that budget.
 * Tokens not spent in their second are lost: the bound is an upper bound, and a recipient whose
 * backlog is spread over instances may get less than it in a second, never more. When the
 * database fails, this instance paces in its memory until it answers again (the deliveries go on;
 * the bound then holds per instance), as the shared rate counters do (src/http).
 */
import { CompiledQuery, type Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { Logger } from "../../observe/log.ts";
import { type RecipientPace, RecipientRate } from "./recipient_rate.ts";

/** Recipients' rows one statement counts (a bounded statement); more go in the next. */
const ROWS_PER_STATEMENT_MAX = 500;
/** Rows one sweep statement deletes at most (a bounded statement); more wait for the next. */
const SWEEP_ROWS_MAX = 5_000;
/** A row whose second is this far behind counts nothing any more: the sweep deletes it. */
const SWEEP_AFTER_SECONDS = 60;

export interface SharedRecipientRateOptions {
  readonly db: Kysely<Database>;
  /** Pumped backlog attempts a recipient may get a second, across the instances. */
  readonly perSecond: number;
  readonly log: Logger;
}

export class SharedRecipientRate implements RecipientPace {
  readonly #o: SharedRecipientRateOptions;
  /** While the database fails: this instance's own pace. */
  readonly #fallback: RecipientRate;
  #failing = false;
  /** The second the budgets below are for. */
  #second = Number.NaN;
  /** Tokens of #second taken from the shared row and not spent yet, per recipient. */
  readonly #budget = new Map<string, number>();
  /** Tokens of #second spent here, per recipient: never asked for again within the second. */
  readonly #spent = new Map<string, number>();
  /** The statement under way, if any. */
  #reserving: Promise<void> | undefined;

  constructor(options: SharedRecipientRateOptions) {
    this.#o = options;
    this.#fallback = new RecipientRate(options.perSecond);
  }

  take(recipient: string, now: number): boolean {
    if (this.#failing) return this.#fallback.take(recipient, now);
    // A budget is for its second only: one left from a second gone is lost.
    if (Math.floor(now / 1000) !== this.#second) return false;
    const left = this.#budget.get(recipient) ?? 0;
    if (left <= 0) return false;
    this.#budget.set(recipient, left - 1);
    this.#spent.set(recipient, (this.#spent.get(recipient) ?? 0) + 1);
    return true;
  }

  /**
   * One statement at a time: a pump starting while one is under way waits for it (a database
   * answering slowly is sent no pile of statements, one every pump).
   */
  reserve(waiting: ReadonlyMap<string, number>, now: number): Promise<void> {
    this.#reserving ??= this.#reserveNow(waiting, now).finally(() => {
      this.#reserving = undefined;
    });
    return this.#reserving;
  }

  async #reserveNow(waiting: ReadonlyMap<string, number>, now: number): Promise<void> {
    const second = Math.floor(now / 1000);
    this.#begin(second);
    const asked = new Map<string, number>();
    for (const [recipient, count] of waiting) {
      const room = this.#o.perSecond - (this.#spent.get(recipient) ?? 0);
      const more = Math.min(count, room) - (this.#budget.get(recipient) ?? 0);
      if (more > 0) asked.set(recipient, more);
    }
    if (asked.size === 0) return;
    try {
      // Sorted: two instances' statements lock the rows they share in one order (no deadlock).
      const keys = [...asked.keys()].sort();
      for (let i = 0; i < keys.length; i += ROWS_PER_STATEMENT_MAX) {
        const rows = keys.slice(i, i + ROWS_PER_STATEMENT_MAX).map((k) =>
          [k, asked.get(k)!] as const
        );
        const granted = await grantRows(this.#o.db, second, this.#o.perSecond, rows);
        // A later pump's second began meanwhile: these tokens are lost (counted, never spent).
        if (second !== this.#second) return;
        for (const [key, n] of granted) this.#budget.set(key, (this.#budget.get(key) ?? 0) + n);
      }
      if (this.#failing) {
        this.#o.log.info({ event: "recipient_rates_back" }, "recipient rates back");
      }
      this.#failing = false;
    } catch (err) {
      if (!this.#failing) {
        this.#o.log.warn(
          { event: "recipient_rates_failing", err },
          "shared recipient rates failing: pacing in this instance's memory",
        );
      }
      this.#failing = true;
    }
  }

  /** The budgets of a second gone are forgotten. */
  #begin(second: number): void {
    if (second === this.#second) return;
    this.#second = second;
    this.#budget.clear();
    this.#spent.clear();
  }
}

/** The row's count as it stands: 0 once its second is older than the asked. */
const SENT = "(case when r.second >= excluded.second then r.sent else 0 end)";
/** excluded.granted is what is asked; the room left in the row's second bounds it. */
const GRANTED = `least(excluded.granted, greatest(0, $1::integer - ${SENT}))`;

/**
 * The upsert of a batch of recipients, one text whatever their number (their rows in one JSON
 * parameter, $2; json.ts insertRows says why).
 */
const UPSERT = `insert into recipient_rate_counters as r (key, second, sent, granted)
    select a.key, a.second, a.asked, a.asked
    from jsonb_to_recordset(cast($2 as text)::jsonb) as a(key text, second bigint, asked integer)
    on conflict (key) do update set
      second = greatest(r.second, excluded.second),
      sent = ${SENT} + ${GRANTED},
      granted = ${GRANTED}
    returning key, granted`;

/**
 * One upsert: per recipient, as many of the asked tokens as its second has room for are counted
 * and answered. A second older than the row's (another instance's clock a little ahead) counts
 * into the row's, never resetting it. What is asked is at most `perSecond` (the caller's bound).
 */
async function grantRows(
  db: Kysely<Database>,
  second: number,
  perSecond: number,
  rows: readonly (readonly [string, number])[],
): Promise<Map<string, number>> {
  const asked = JSON.stringify(rows.map(([key, asked]) => ({ key, second, asked })));
  const { rows: answered } = await db.executeQuery<{ key: string; granted: number }>(
    CompiledQuery.raw(UPSERT, [perSecond, asked]),
  );
  return new Map(answered.map((r) => [r.key, Number(r.granted)]));
}

/**
 * Deletes the rows whose second is SWEEP_AFTER_SECONDS behind `now`'s or more (they count
 * nothing), SWEEP_ROWS_MAX a statement, until none is left. Answers how many.
 */
export async function sweepRecipientRates(db: Kysely<Database>, now: number): Promise<number> {
  const before = Math.floor(now / 1000) - SWEEP_AFTER_SECONDS;
  let swept = 0;
  for (;;) {
    // The second tested again outside the subquery: a row counted into a new second is kept.
    const { numDeletedRows } = await db.deleteFrom("recipient_rate_counters")
      .where(
        "key",
        "in",
        (q) =>
          q.selectFrom("recipient_rate_counters").select("key").where("second", "<", before)
            .limit(SWEEP_ROWS_MAX),
      )
      .where("second", "<", before)
      .executeTakeFirst();
    const n = Number(numDeletedRows);
    swept += n;
    if (n < SWEEP_ROWS_MAX) return swept;
  }
}
