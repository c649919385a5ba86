/**
 * Failed sign-ins counted across instances (issue 43 item 4; courier 5, Business API portal
 * login): every instance of a deployment keeps the per-account, per-address and per-person counts
 * in one row per key of the shared query side (`login_throttles`), so a guesser spreading attempts
 * over the instances gets no more tries than against one. The arithmetic is login_windows.ts, the
 * same as in memory.
 *
 * Each change is one transaction: an upsert that locks the keys' rows (made when absent) and
 * answers them, the arithmetic here, then the rows written back. Sign-ins are rare and each costs
 * a password hash far dearer than these round trips, so exactness is bought before speed: two
 * instances beginning the last free attempt of one account at once are told apart by the row's
 * lock. Rows whose counts no longer matter are deleted as they empty, and those a crash left are
 * deleted by the environment's sweep (sweepLoginThrottles). When the database fails, this instance
 * counts in its memory until it answers again (sign-ins keep working; the counts then hold per
 * instance).
 */
import { type Kysely, sql, type Transaction } from "kysely";
import type { Database } from "../db/schema.ts";
import { LOGIN_ATTEMPT_PENDING_MS, LOGIN_FAILURE_WINDOW_MS } from "../limits.ts";
import type { Logger } from "../observe/log.ts";
import type { Clock } from "../runtime/clock.ts";
import type { LoginThrottle, SignInCounter, ThrottledKey } from "./login_throttle.ts";
import {
  admittedEntry,
  failedEntry,
  liveEntry,
  type LoginEntry,
  releasedEntry,
  succeededEntry,
  waitSecondsOf,
} from "./login_windows.ts";

/** Rows one sweep statement deletes at most (a bounded statement); more wait for the next. */
const SWEEP_ROWS_MAX = 1_000;

export interface SharedLoginThrottleOptions {
  readonly db: Kysely<Database>;
  readonly clock: Clock;
  /** Counts in memory while the database fails. */
  readonly fallback: LoginThrottle;
  readonly log: Logger;
}

/** What a change makes of the keys' live entries (in the order asked), and what it answers. */
type Change<T> = (
  entries: readonly (LoginEntry | undefined)[],
  now: number,
) => { answer: T; next: readonly (LoginEntry | undefined)[] };

export class SharedLoginThrottle implements SignInCounter {
  readonly #o: SharedLoginThrottleOptions;
  #failing = false;

  constructor(options: SharedLoginThrottleOptions) {
    this.#o = options;
  }

  begin(keys: readonly ThrottledKey[]): Promise<number> {
    return this.#change(keys.map((k) => k.key), (entries, now) => {
      const wait = Math.max(0, ...keys.map((k, i) => waitSecondsOf(entries[i], now, k.free)));
      // Refused: nothing begins, so nothing is admitted.
      const next = wait === 0 ? entries.map((e) => admittedEntry(e, now)) : entries;
      return { answer: wait, next };
    }, (fallback) => fallback.begin(keys));
  }

  async fail(key: string, free: number): Promise<void> {
    await this.#change([key], ([e], now) => ({
      answer: undefined,
      next: [failedEntry(e, now, free)],
    }), (fallback) => fallback.fail(key, free));
  }

  async succeed(key: string): Promise<void> {
    await this.#change(
      [key],
      ([e]) => ({ answer: undefined, next: [succeededEntry(e)] }),
      (fallback) => fallback.succeed(key),
    );
  }

  async release(key: string): Promise<void> {
    await this.#change(
      [key],
      ([e]) => ({ answer: undefined, next: [releasedEntry(e)] }),
      (fallback) => fallback.release(key),
    );
  }

  /** Applies `change` to the keys' rows in one transaction; in memory while the database fails. */
  async #change<T>(
    keys: readonly string[],
    change: Change<T>,
    inMemory: (fallback: LoginThrottle) => T,
  ): Promise<T> {
    const now = this.#o.clock.now();
    try {
      const answer = await this.#o.db.transaction().execute(async (trx) => {
        const entries = await lockRows(trx, keys, now);
        const changed = change(entries, now);
        await writeRows(trx, keys, changed.next);
        return changed.answer;
      });
      if (this.#failing) {
        this.#o.log.info({ event: "login_throttles_back" }, "login throttles back");
      }
      this.#failing = false;
      return answer;
    } catch (err) {
      if (!this.#failing) {
        this.#o.log.warn(
          { event: "login_throttles_failing", err },
          "shared login throttles failing: counting in this instance's memory",
        );
      }
      this.#failing = true;
      return inMemory(this.#o.fallback);
    }
  }
}

interface Row {
  key: string;
  failures: number | string;
  last_failure_at: number | string;
  wait_until: number | string;
  pending: number | string;
  pending_since: number | string;
}

/**
 * The keys' rows, locked until the transaction ends (an absent one made empty, so it can be
 * locked too), as live entries in the order asked. Locked in key order: two changes of the same
 * keys never wait on each other crosswise.
 */
async function lockRows(
  trx: Transaction<Database>,
  keys: readonly string[],
  now: number,
): Promise<(LoginEntry | undefined)[]> {
  const sorted = [...new Set(keys)].sort();
  const values = sql.join(sorted.map((k) => sql`(${k}, 0, 0, 0, 0, 0)`));
  const { rows } = await sql<Row>`insert into login_throttles as t
      (key, failures, last_failure_at, wait_until, pending, pending_since)
    values ${values}
    on conflict (key) do update set failures = t.failures
    returning t.key, t.failures, t.last_failure_at, t.wait_until, t.pending, t.pending_since`
    .execute(trx);
  const byKey = new Map(rows.map((r) => [r.key, r]));
  return keys.map((k) => {
    const r = byKey.get(k);
    return r ? liveEntry(entryOf(r), now) : undefined;
  });
}

function entryOf(r: Row): LoginEntry {
  return {
    failures: Number(r.failures),
    last_failure_at: Number(r.last_failure_at),
    wait_until: Number(r.wait_until),
    pending: Number(r.pending),
    pending_since: Number(r.pending_since),
  };
}

/** Writes each key's entry back; a key with nothing left counting loses its row. */
async function writeRows(
  trx: Transaction<Database>,
  keys: readonly string[],
  entries: readonly (LoginEntry | undefined)[],
): Promise<void> {
  const gone: string[] = [];
  for (const [i, key] of keys.entries()) {
    const e = entries[i];
    if (!e) {
      gone.push(key);
      continue;
    }
    await trx.updateTable("login_throttles").set({ ...e }).where("key", "=", key).execute();
  }
  if (gone.length > 0) await trx.deleteFrom("login_throttles").where("key", "in", gone).execute();
}

/**
 * Deletes rows nothing of which counts at `now` (what liveEntry drops), SWEEP_ROWS_MAX a
 * statement, until none is left. Answers how many went.
 */
export async function sweepLoginThrottles(db: Kysely<Database>, now: number): Promise<number> {
  let swept = 0;
  for (;;) {
    // The test again outside the subquery: a row counted anew since it was picked is kept.
    const spent = sql`(pending = 0 or pending_since < ${now - LOGIN_ATTEMPT_PENDING_MS})
      and (failures = 0
        or (last_failure_at < ${now - LOGIN_FAILURE_WINDOW_MS} and wait_until <= ${now}))`;
    const { numAffectedRows } = await sql`delete from login_throttles
      where key in (select key from login_throttles where ${spent} limit ${SWEEP_ROWS_MAX})
        and ${spent}`.execute(db);
    const n = Number(numAffectedRows ?? 0);
    swept += n;
    if (n < SWEEP_ROWS_MAX) return swept;
  }
}
