/**
 * The actors in memory and their mailboxes: a command or a due timer joins its actor's mailbox,
 * and one drain at a time per actor hands batches of it to the turns (turn.ts), so an actor
 * handles its commands one at a time, in order (ARCHITECTURE "Shape" 2). Idle actors beyond
 * ACTORS_ACTIVE_MAX are let go, least recently used first.
 */
import { ACTOR_BATCH_COMMANDS_MAX, ACTORS_ACTIVE_MAX, MAILBOX_DEPTH_MAX } from "../limits.ts";
import type { AnyActorDefinition, AskOptions } from "./actor.ts";
import { Cell } from "./cell.ts";
import type { MarkerSweeper } from "./markers.ts";
import { partitionOf } from "./placement.ts";
import type { AskResult } from "./plan.ts";
import { prefetchSoon } from "./replies.ts";
import type { ActorKey, ActorStore, DueTimer } from "./store.ts";
import type { Turns } from "./turn.ts";

export interface MailboxesOptions {
  readonly store: ActorStore;
  readonly turns: Turns;
  readonly markers: () => MarkerSweeper;
  readonly onError: (error: unknown, where: string) => void;
  /** Actors kept in memory past which idle ones are let go (default ACTORS_ACTIVE_MAX). */
  readonly activeMax?: number;
}

export class Mailboxes {
  readonly #cells = new Map<string, Cell>();
  readonly #o: MailboxesOptions;

  constructor(options: MailboxesOptions) {
    this.#o = options;
  }

  /** The actor in memory under `type/id`, if any (not made, not moved in recency). */
  peek(name: string): Cell | undefined {
    return this.#cells.get(name);
  }

  values(): IterableIterator<Cell> {
    return this.#cells.values();
  }

  /** Commands waiting in the mailboxes of the actors in memory: all of them, and the most at one. */
  depth(): { waiting: number; deepest: number } {
    let waiting = 0;
    let deepest = 0;
    for (const cell of this.#cells.values()) {
      waiting += cell.mailbox.length;
      if (cell.mailbox.length > deepest) deepest = cell.mailbox.length;
    }
    return { waiting, deepest };
  }

  get size(): number {
    return this.#cells.size;
  }

  /**
   * Forgets what memory holds of the actors of `partitions` (a lease lost or taken, leases.ts):
   * each is read afresh from the store at its next command, and the idle ones are let go.
   */
  forgetPartitions(partitions: ReadonlySet<number>): void {
    for (const [k, c] of this.#cells) {
      if (!partitions.has(partitionOf(c.key))) continue;
      c.loaded = false;
      // Its store marker is the holder's to recover now (held.ts: the sweep of a partition gained),
      // and read again with the actor here (cell.ts): kept `set`, this cell could never be let go.
      if (c.marker !== "clearing") {
        c.marker = "none";
        c.markerFrom = null;
      }
      if (c.idle && c.marker === "none") this.#cells.delete(k);
    }
  }

  /** Adds a command to its actor's mailbox; refused `actor_busy` past MAILBOX_DEPTH_MAX. */
  enqueue(
    def: AnyActorDefinition,
    key: ActorKey,
    tenant: string,
    command: unknown,
    options: AskOptions,
  ): Promise<AskResult<unknown>> {
    const cell = this.#cell(def, key);
    if (cell.mailbox.length >= MAILBOX_DEPTH_MAX) {
      return Promise.resolve({
        ok: false,
        code: "actor_busy",
        message: `too many commands waiting for ${key.type} ${key.id}: ${cell.mailbox.length}`,
      });
    }
    return new Promise((resolve, reject) => {
      cell.mailbox.push({
        tenant,
        command,
        idempotencyKey: options.idempotencyKey,
        permanent: options.permanent ?? false,
        fresh: options.fresh ?? false,
        timer: undefined,
        requestId: options.requestId,
        urgent: options.urgent ?? false,
        resolve,
        reject,
      });
      if (options.idempotencyKey !== undefined && cell.running && cell.loaded) {
        prefetchSoon(this.#o.store, cell, cell.mailbox.at(-1)!);
      }
      this.#run(cell);
    });
  }

  /** Hands a due timer to its actor, in turn with its commands. */
  fireTimer(def: AnyActorDefinition, t: DueTimer): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const cell = this.#cell(def, t);
      cell.mailbox.push({
        tenant: "",
        command: null,
        idempotencyKey: undefined,
        permanent: false,
        fresh: false,
        timer: { name: t.name, at: t.at },
        resolve,
        reject,
      });
      this.#run(cell);
    });
  }

  #cell(def: AnyActorDefinition, key: ActorKey): Cell {
    const k = `${key.type}/${key.id}`;
    let cell = this.#cells.get(k);
    if (cell) {
      // Map order is recency order: move to the back.
      this.#cells.delete(k);
      this.#cells.set(k, cell);
      return cell;
    }
    cell = new Cell(def, { type: key.type, id: key.id });
    this.#cells.set(k, cell);
    const max = this.#o.activeMax ?? ACTORS_ACTIVE_MAX;
    if (this.#cells.size > max) this.#evictIdle(max, cell);
    return cell;
  }

  /**
   * Lets idle actors go, least recently used first, down to 90% of `max`. Never `made`: it was
   * activated for a caller whose command it is about to take (idle only until then); let go, a
   * second cell would serve that actor beside it.
   */
  #evictIdle(max: number, made: Cell): void {
    for (const [k, c] of this.#cells) {
      if (this.#cells.size <= max * 0.9) break;
      if (c === made) continue;
      if (c.idle && c.marker === "none" && c.markerFrom === null) this.#cells.delete(k);
    }
  }

  #run(cell: Cell): void {
    if (cell.running) return;
    cell.running = true;
    this.#drain(cell)
      .catch((e) => this.#o.onError(e, `${cell.key.type} ${cell.key.id}`))
      .finally(() => {
        cell.running = false;
        if (cell.mailbox.length > 0) this.#run(cell);
        // Idle now: a sweep that takes it finds it idle (while running, one would drop it).
        else if (cell.markerToClear) this.#o.markers().add(cell);
      });
  }

  async #drain(cell: Cell): Promise<void> {
    while (cell.mailbox.length > 0) {
      const batch = cell.mailbox.splice(0, cell.def.batchMax ?? ACTOR_BATCH_COMMANDS_MAX);
      await this.#o.turns.handle(cell, batch);
    }
  }
}
