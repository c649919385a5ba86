/**
 * Rounds of a periodic sweep over query-side rows by time: the sweeps that make what a crash or a
 * lasting failure kept from being made (a charge's billing event, a completion's, a stalled
 * booking's shipment). Each pass reads pages of rows in (time, key) order, after the last row the
 * round looked at, and the caller handles them; the state is this instance's, in memory (every
 * sweep is idempotent, so instances sweeping side by side only repeat each other).
 *
 * A round covers `from` to `settleMs` before now. The first round after a start, and one every
 * `deepEveryMs` after that, goes `lookbackMs` back ("deep"): a crash may have stopped work before
 * a downtime, and a row projected later than the overlap below is still found within the hour.
 * Every other round starts `settleMs` before where the last one ended (rows that reached the
 * query side a little late), or at the earliest row the last round failed to handle, so that a
 * failure is tried again at every round and a row that cannot be handled (skipped, not failed)
 * holds nothing up. So a sweep reads minutes of rows, not a month of them, every time.
 */

/** Where a round stands: the last row it looked at, in the order pages are read. */
export interface SweepCursor<K> {
  readonly at: number;
  readonly key: K;
}

/** What a page reads: rows at `from` or later, before `until`, and after `after` if set. */
export interface SweepWindow<K> {
  readonly from: number;
  readonly until: number;
  readonly after: SweepCursor<K> | null;
}

/** What the caller did with one page. */
export interface SweptPage<K> {
  /** Rows the page read: fewer than the page size means the round has reached its end. */
  readonly read: number;
  /** The last row read, in (time, key) order; null when none was. */
  readonly last: SweepCursor<K> | null;
  /** Rows it handled (made what was missing): what `pass` answers, summed. */
  readonly done: number;
  /** Times of the rows whose handling failed: the next round starts again at the earliest. */
  readonly failedAt: readonly number[];
}

export interface SweepRoundsOptions {
  /** How far back a deep round looks. */
  readonly lookbackMs: number;
  /** Rows this recent are left to the work they wait for; also each round's overlap. */
  readonly settleMs: number;
  /** A round goes all the way back again this long after the last that did. */
  readonly deepEveryMs: number;
  /** Rows one page reads (the caller's LIMIT). */
  readonly pageSize: number;
  /** Pages one pass reads at most: the next pass goes on from there. */
  readonly pagesPerPass: number;
}

export class SweepRounds<K> {
  readonly #o: SweepRoundsOptions;
  /** The start of the round under way, or of the next; null: the next is deep. */
  #from: number | null = null;
  #after: SweepCursor<K> | null = null;
  /** The earliest failed row of the round under way. */
  #failedFrom: number | null = null;
  /** When the last deep round started. */
  #deepAt: number | null = null;
  #pass: Promise<number> | null = null;

  constructor(options: SweepRoundsOptions) {
    this.#o = options;
  }

  /**
   * Reads and handles up to `pagesPerPass` pages through `page`, which must read at most
   * `pageSize` rows of the window in (time, key) order. One pass at a time: a call while one is
   * under way answers that one (a slow pass is never joined by a second sharing its cursor).
   * Answers the rows handled (`done`, summed over the pages).
   */
  pass(now: number, page: (window: SweepWindow<K>) => Promise<SweptPage<K>>): Promise<number> {
    this.#pass ??= this.#run(now, page).finally(() => this.#pass = null);
    return this.#pass;
  }

  async #run(
    now: number,
    page: (window: SweepWindow<K>) => Promise<SweptPage<K>>,
  ): Promise<number> {
    const o = this.#o;
    const oldest = now - o.lookbackMs;
    if (this.#after === null) {
      // A round begins: deep when due, else from the last round's end (or failure).
      if (this.#from === null || this.#deepAt === null || now - this.#deepAt >= o.deepEveryMs) {
        this.#from = oldest;
        this.#deepAt = now;
      }
      this.#from = Math.max(this.#from, oldest);
    }
    const from = this.#from!;
    const until = now - o.settleMs;
    let done = 0;
    for (let pages = 0; pages < o.pagesPerPass; pages++) {
      const swept = await page({ from, until, after: this.#after });
      done += swept.done;
      for (const at of swept.failedAt) {
        this.#failedFrom = Math.min(this.#failedFrom ?? at, at);
      }
      if (swept.read < o.pageSize || swept.last === null) {
        // The round is done: the next starts one settling interval before its end, or earlier
        // at its first failure.
        this.#from = Math.min(until - o.settleMs, this.#failedFrom ?? Infinity);
        this.#after = null;
        this.#failedFrom = null;
        break;
      }
      this.#after = swept.last;
    }
    return done;
  }
}

/**
 * Handles a page's rows in order, each on its own (`handle` answers whether it made something):
 * one that throws is reported and its time kept for the next round, and never keeps the rows
 * after it from being handled. Answers the page as a pass counts it.
 */
export async function sweepRows<R, K>(
  rows: readonly R[],
  cursorOf: (row: R) => SweepCursor<K>,
  handle: (row: R) => Promise<boolean>,
  report: (error: unknown, row: R) => void,
): Promise<SweptPage<K>> {
  let done = 0;
  const failedAt: number[] = [];
  for (const row of rows) {
    try {
      if (await handle(row)) done++;
    } catch (error) {
      failedAt.push(cursorOf(row).at);
      report(error, row);
    }
  }
  const last = rows.at(-1);
  return { read: rows.length, last: last === undefined ? null : cursorOf(last), done, failedAt };
}
