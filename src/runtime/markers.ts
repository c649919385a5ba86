/**
 * Removing the store's recovery markers of idle actors whose events are on the bus, many per
 * store write. Beside the actors, not in their turn: each removal is guarded by the actor's
 * version, and a commit made meanwhile writes the marker again, so no event is ever left
 * unprotected. A marker is cleared only while its actor's partition is held here: the holder's
 * handlers alone take its changes (issue 43 item 3), so one whose partition moved keeps its marker
 * for the new holder's sweep to republish.
 */
import type { Bus } from "../bus/bus.ts";
import { MARKERS_PER_SWEEP_MAX } from "../limits.ts";
import type { Cell } from "./cell.ts";
import type { ActorKey, ActorStore } from "./store.ts";

interface Clearing {
  readonly cell: Cell;
  readonly version: string;
}

export class MarkerSweeper {
  readonly #store: ActorStore;
  readonly #bus: Bus;
  readonly #onError: (error: unknown, where: string) => void;
  /** Every actor in memory, to put back a marker a failed sweep left `clearing`. */
  readonly #cells: () => Iterable<Cell>;
  /** Publishes again the changes from an actor's marker on (a publication of them failed). */
  readonly #republish: (cell: Cell) => Promise<void>;
  /** Whether this instance holds the actor's partition now. */
  readonly #holds: (key: ActorKey) => boolean;
  /** Idle actors whose recovery markers can go at the next sweep. */
  readonly #toClear = new Map<string, Cell>();
  /** Actors whose changes could not be published again this sweep: tried at the next one. */
  readonly #retryLater: Cell[] = [];
  #sweep: Promise<number> | null = null;
  /** The minimum age the sweep under way leaves markers at. */
  #sweepAge = 0;

  constructor(options: {
    store: ActorStore;
    bus: Bus;
    onError: (error: unknown, where: string) => void;
    cells: () => Iterable<Cell>;
    republish: (cell: Cell) => Promise<void>;
    holds?: (key: ActorKey) => boolean;
  }) {
    this.#store = options.store;
    this.#bus = options.bus;
    this.#onError = options.onError;
    this.#cells = options.cells;
    this.#republish = options.republish;
    this.#holds = options.holds ?? (() => true);
  }

  /** The actor has set its marker and gone idle: its marker may go at the next sweep. */
  add(cell: Cell): void {
    this.#toClear.set(cell.name, cell);
  }

  /**
   * One sweep at a time; a caller during a sweep waits for it (a close must not outrun it).
   * `minAgeMs`: an actor that committed more recently keeps its marker for a later sweep, since
   * it may well commit again at once (a booking's trip, claimed then created), and a marker
   * cleared in between is written again (two more writes of the store).
   */
  async sweep(minAgeMs = 0): Promise<number> {
    // One under way that leaves younger markers than asked for is waited out, then one more.
    while (this.#sweep) {
      if (this.#sweepAge <= minAgeMs) return await this.#sweep;
      await this.#sweep;
    }
    this.#sweepAge = minAgeMs;
    this.#sweep = this.#sweepOnce(minAgeMs).finally(() => {
      this.#sweep = null;
    });
    return await this.#sweep;
  }

  async #sweepOnce(minAgeMs: number): Promise<number> {
    try {
      let cleared = 0;
      while (this.#toClear.size > 0) {
        const cells = this.#takeIdle(performance.now() - minAgeMs);
        if (cells.length > 0) cleared += await this.#clear(cells);
      }
      return cleared;
    } catch (e) {
      // Set again, and swept again at the next sweep (else only after the actor's next turn).
      for (const cell of this.#cells()) {
        if (cell.marker !== "clearing") continue;
        cell.marker = "set";
        this.add(cell);
      }
      this.#onError(e, "recovery markers");
      return 0;
    } finally {
      for (const cell of this.#retryLater.splice(0)) this.add(cell);
    }
  }

  /**
   * Up to MARKERS_PER_SWEEP_MAX idle actors whose marker is set, marked `clearing`; one that
   * committed after `before` is left for the next sweep.
   */
  #takeIdle(before: number): Clearing[] {
    const cells: Clearing[] = [];
    for (const [k, cell] of this.#toClear) {
      this.#toClear.delete(k);
      if (!cell.idle || !cell.markerToClear || cell.version === null) continue;
      if (!this.#holds(cell.key)) {
        // The new holder's sweep republishes it; this cell may be let go (forgetPartitions).
        cell.marker = "none";
        cell.markerFrom = null;
        continue;
      }
      if (cell.committedAt > before) {
        this.#retryLater.push(cell);
        continue;
      }
      cell.marker = "clearing";
      cells.push({ cell, version: cell.version });
      if (cells.length >= MARKERS_PER_SWEEP_MAX) break;
    }
    return cells;
  }

  /** Clears the markers of those still at their version once their changes are on the bus. */
  async #clear(taken: readonly Clearing[]): Promise<number> {
    await Promise.all(taken.map((c) => c.cell.lastPublish));
    const cells = await this.#published(taken);
    await this.#bus.flush();
    // An actor that committed meanwhile wrote its marker again: left out, so that its moved
    // version does not fail the whole removal (which then clears the others one by one).
    const still = cells.filter((c) =>
      c.cell.marker === "clearing" && c.cell.version === c.version && this.#holds(c.cell.key)
    );
    for (const c of cells) {
      if (c.cell.marker !== "clearing" || still.includes(c)) continue;
      // Its partition moved meanwhile: the marker is the new holder's (as Mailboxes'
      // forgetPartitions leaves it), and this cell may be let go.
      if (!this.#holds(c.cell.key)) {
        c.cell.marker = "none";
        c.cell.markerFrom = null;
        continue;
      }
      // Moved on without a new marker (a commit with nothing for the bus): the next sweep.
      c.cell.marker = "set";
      this.add(c.cell);
    }
    const done = await this.#store.markPublished(
      still.map((c) => ({ key: c.cell.key, version: c.version })),
    );
    still.forEach((c, i) => {
      if (c.cell.marker !== "clearing") return; // a commit wrote the marker again meanwhile
      c.cell.marker = done[i] ? "none" : "set";
      if (done[i]) c.cell.markerFrom = null;
    });
    return done.filter(Boolean).length;
  }

  /**
   * Those whose changes are on the bus: an actor whose publication failed is published again
   * from its marker first; one that fails again keeps its marker for the next sweep (and a
   * restart republishes it), so a change is never taken for delivered when it was not.
   */
  async #published(cells: readonly Clearing[]): Promise<Clearing[]> {
    const out: Clearing[] = [];
    for (const c of cells) {
      if (c.cell.publishFailed) {
        try {
          c.cell.publishFailed = false;
          await this.#republish(c.cell);
        } catch (e) {
          c.cell.publishFailed = true;
          c.cell.marker = "set";
          this.#retryLater.push(c.cell);
          this.#onError(e, "republishing an actor's changes");
          continue;
        }
      }
      out.push(c);
    }
    return out;
  }
}
