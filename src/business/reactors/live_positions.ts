/**
 * Where the pool's drivers are (Business API 1.2, 2.4): each driver's newest position in memory,
 * updated at once by every report, and every reported position kept durably in batches (the
 * `driver_positions` table, a trip's breadcrumb), not one store commit per ping: a driver pings
 * every 5 s. A batch is written at each pump (every TIMER_POLL_MS and after the manual clock
 * moves) and at close; a failed write keeps its rows for the next pump.
 *
 * Memory is this instance's: a driver's pings reach the instance that serves them. What another
 * instance must know (dispatch, tracking) reads what is written here.
 */
import type { Kysely } from "kysely";
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

/** Rows waiting for their batch; past this the oldest are dropped (the newest stays in memory). */
export const POSITIONS_PENDING_MAX = 200_000;

/** Rows per insert: well under Postgres's 65,535 parameters (6 a row). */
const ROWS_PER_INSERT = 5_000;

export class LivePositions implements Reactor {
  readonly #db: Kysely<Database>;
  readonly #latest = new Map<string, Position>();
  #pending: { driver_id: string; p: Position }[] = [];
  #flushing: Promise<void> = Promise.resolve();

  readonly #onMoved: (driverId: string, newest: Position) => void;

  /** `onMoved`: told each driver's newest position at once (the dispatch index). */
  constructor(
    db: Kysely<Database>,
    onMoved: (driverId: string, newest: Position) => void = () => {},
  ) {
    this.#db = db;
    this.#onMoved = onMoved;
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
      this.#onMoved(driverId, newest);
    }
    return newest;
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
        await this.#db.insertInto("driver_positions").values(rows)
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
