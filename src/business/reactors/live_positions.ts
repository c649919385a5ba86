/**
 * Where the pool's drivers are (Business API 1.2, 2.4): each driver's newest position in memory,
 * updated at once by every report, and every reported position kept durably in batches (the
 * `driver_positions` table, a trip's breadcrumb), not one store commit per ping: a driver pings
 * every 5 s. A batch is written at each pump (every TIMER_POLL_MS and after the manual clock
 * moves) and at close; a failed write keeps its rows for the next pump.
 *
 * A driver's pings reach the instance that serves them; every other instance absorbs the newest
 * one from its signal on the bus (position_signals.ts), at most one pump later, so dispatch and
 * tracking through any instance see it. Only the instance that heard a ping writes it.
 */
import type { Kysely } from "kysely";
import { insertRows } from "../../db/json.ts";
import type { Database } from "../../db/schema.ts";
import type { Reactor } from "../../environment.ts";

export interface Position {
  readonly lat: number;
  readonly lng: number;
  /** Metres; null when the device gave none. */
  readonly accuracy: number | null;
  /** Degrees from north; null when the device gave none. */
  readonly heading: number | null;
  /** When the device observed it (ms since the epoch). */
  readonly at: number;
}

type Watcher = (driverId: string, newest: Position) => void;

/** Rows waiting for their batch; past this the oldest are dropped (the newest stays in memory). */
export const POSITIONS_PENDING_MAX = 200_000;

/** Rows per insert (one JSON parameter, insertRows): a bounded statement. */
const ROWS_PER_INSERT = 5_000;

export class LivePositions implements Reactor {
  readonly #db: Kysely<Database>;
  readonly #latest = new Map<string, Position>();
  #pending: { driver_id: string; p: Position }[] = [];
  /** Hear every newest position, reported here or absorbed from another instance. */
  readonly #watchers: Watcher[] = [];
  /** Hear this instance's reports only: what it publishes to the others. */
  readonly #reportWatchers: Watcher[] = [];
  #flushing: Promise<void> = Promise.resolve();

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  /** Takes one driver's positions; answers the driver's newest one. */
  report(driverId: string, positions: readonly Position[]): Position | null {
    let newest = this.#latest.get(driverId) ?? null;
    for (const p of positions) {
      this.#pending.push({ driver_id: driverId, p });
      // Positions arrive out of order after lost signal: the newest observed one wins.
      if (newest === null || p.at > newest.at) newest = p;
    }
    if (this.#pending.length > POSITIONS_PENDING_MAX) {
      this.#pending = this.#pending.slice(this.#pending.length - POSITIONS_PENDING_MAX);
    }
    if (newest !== null) {
      this.#latest.set(driverId, newest);
      for (const w of this.#reportWatchers) w(driverId, newest);
      for (const w of this.#watchers) w(driverId, newest);
    }
    return newest;
  }

  /**
   * Another instance's newest position of a driver (its signal): kept, and heard by the watchers,
   * when observed after the one known here (spec: business 1.2: the newest observed wins), else
   * ignored, as is this instance's own signal coming back. Answers whether it was kept.
   */
  absorb(driverId: string, p: Position): boolean {
    const known = this.#latest.get(driverId);
    if (known !== undefined && known.at >= p.at) return false;
    this.#latest.set(driverId, p);
    for (const w of this.#watchers) w(driverId, p);
    return true;
  }

  /**
   * Hears every driver's newest position as it changes (dispatch, the live views): reported here
   * or absorbed; with `reportedHere`, this instance's reports only (what it publishes).
   */
  watch(watcher: Watcher, options: { readonly reportedHere?: boolean } = {}): void {
    (options.reportedHere ? this.#reportWatchers : this.#watchers).push(watcher);
  }

  /** The driver's newest position known to this instance. */
  latest(driverId: string): Position | null {
    return this.#latest.get(driverId) ?? null;
  }

  /** Writes the positions reported since the last batch, one batch at a time. */
  flush(): Promise<void> {
    this.#flushing = this.#flushing.then(() => this.#write());
    return this.#flushing;
  }

  async #write(): Promise<void> {
    const batch = this.#pending;
    if (batch.length === 0) return;
    this.#pending = [];
    try {
      for (let i = 0; i < batch.length; i += ROWS_PER_INSERT) {
        const rows = batch.slice(i, i + ROWS_PER_INSERT).map(({ driver_id, p }) => ({
          driver_id,
          at: p.at,
          lat: p.lat,
          lng: p.lng,
          accuracy: p.accuracy,
          heading: p.heading,
        }));
        // A position sent twice (a retry after lost signal) is one row.
        await insertRows(this.#db, "driver_positions", rows)
          .onConflict((oc) => oc.columns(["driver_id", "at"]).doNothing()).execute();
      }
    } catch (e) {
      // Kept for the next pump, ahead of what arrived meanwhile.
      this.#pending = [...batch, ...this.#pending];
      throw e;
    }
  }

  async close(): Promise<void> {
    await this.flush().catch(() => {});
  }
}

/** The name the business feature gives its positions among the environment's reactors. */
export const LIVE_POSITIONS = "live_positions";

/** The environment's live positions (started by the business feature). */
export function livePositionsOf(env: { readonly reactors: Readonly<Record<string, Reactor>> }) {
  const p = env.reactors[LIVE_POSITIONS];
  if (!(p instanceof LivePositions)) throw new Error("the business feature is not started");
  return p;
}
