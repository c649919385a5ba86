/**
 * The life of a projection fed by the bus, written once for every one of them (the snapshots,
 * the ledger, the typed read tables): a pipelined subscription, a write queue that batches a
 * backlog and writes a failing batch again until it goes in, parked changes for what cannot be
 * written, sync sentinels for settle(), and an orderly stop. A projection supplies only which
 * changes it takes and how it writes them.
 *
 * A change counts as handled for the bus's flush, and so for the runtime's recovery markers, only
 * once it is written or parked: a crash before then republishes it (product rule: nothing is
 * ever lost).
 *
 * Each change is written once across the cluster (issue 43 item 3): by the instance holding its
 * actor's partition (ProjectionOptions.handledBy), so two instances never race to upsert one row
 * (Postgres deadlocked on it, 40P01), and one actor's changes stay in order.
 */
import type { Kysely } from "kysely";
import {
  type ActorChange,
  type Bus,
  type BusMessage,
  type HandledBy,
  subjectPattern,
  type Subscription,
} from "../bus/bus.ts";
import { type ParkedHold, Parking } from "./parked_changes.ts";
import { type BatchLimits, syncIdOf, writeFindingBad, WriteQueue } from "./sync.ts";
import type { Database, ParkedChangeTable } from "./schema.ts";

/** What every projection is started with. */
export interface ProjectionOptions {
  readonly bus: Bus;
  readonly db: Kysely<Database>;
  /** The bus prefix (environment and deployment) whose changes it writes. */
  readonly env: string;
  /**
   * Where a failed write is reported (the change is also parked, see parked_changes.ts);
   * `console.error` by default. Never thrown into the bus.
   */
  readonly onError?: (error: unknown, subject: string) => void;
  /** Wait before retrying a write that failed for a transient reason (tests: 0). */
  readonly retryDelayMs?: (attempt: number) => number;
  /** How often a busy projection begins a batch (sync.ts WriteQueue; PROJECTION_WRITE_PACE_MS). */
  readonly paceMs?: number;
  /**
   * Who writes a change (bus.ts HandledBy): the runtime's placement, the holder of its actor's
   * partition. Absent: every change (one instance alone, tests).
   */
  readonly handledBy?: HandledBy;
}

/** What one projection writes, and how. */
export interface ProjectionWriter<T> {
  /** Its name in `parked_changes` and in its log lines. */
  readonly name: ParkedChangeTable["projection"];
  /** The actor type whose changes it hears, or every type (`*`). */
  readonly type: string;
  /** How large a batch may grow when a backlog builds up. */
  readonly limits: BatchLimits<T>;
  /** What a change becomes for this projection; null when it has nothing to write. */
  take(change: ActorChange, subject: string): T | null;
  /**
   * Writes the items in delivery order; throws on failure (see `writeFindingBad`). What it must
   * tell without failing (a conflict kept out) goes to `report`.
   */
  write(items: readonly T[], report: Reporter): Promise<void>;
  /** An item as parked (JSON), and back: throws a TypeError when the value is not one. */
  parked(item: T): unknown;
  unparked(value: unknown): T;
  /** What a parked item holds back until it goes in (none when absent). */
  holdOf?(item: T): ParkedHold | null;
}

/** Where a projection's failures and conflicts go; never throws. */
export type Reporter = (error: unknown, subject: string) => void;

interface Received<T> {
  readonly item: T;
  readonly subject: string;
}

/** A projection of the bus into the query side (src/feature.ts `Projection`). */
export class BusProjection<T> {
  readonly #writer: ProjectionWriter<T>;
  readonly #onError: (error: unknown, subject: string) => void;
  readonly #queue: WriteQueue<Received<T>>;
  readonly #parking: Parking;
  #subscription: Subscription | null;
  readonly #reporter: Reporter = (error, subject) => this.report(error, subject);

  constructor(options: ProjectionOptions, writer: ProjectionWriter<T>) {
    this.#writer = writer;
    this.#onError = options.onError ??
      ((error, subject) => console.error(`${writer.name} projection of ${subject} failed:`, error));
    this.#parking = new Parking({
      db: options.db,
      projection: writer.name,
      write: (value) => writer.write([writer.unparked(value)], this.#reporter),
      report: this.#reporter,
      ...(writer.holdOf ? { holdOf: (value) => writer.holdOf!(writer.unparked(value)) } : {}),
    });
    const { itemsMax, weightMax, weightOf } = writer.limits;
    this.#queue = new WriteQueue<Received<T>>(
      {
        itemsMax,
        ...(weightMax === undefined ? {} : { weightMax }),
        ...(weightOf === undefined ? {} : { weightOf: (r: Received<T>) => weightOf(r.item) }),
      },
      (batch) => this.#write(batch),
      { retryDelayMs: options.retryDelayMs, paceMs: options.paceMs },
    );
    this.#subscription = options.bus.subscribe(
      subjectPattern(options.env, "*", writer.type),
      (message) => this.#receive(message),
      options.handledBy === undefined
        ? { pipelined: true }
        : { pipelined: true, handledBy: options.handledBy },
    );
  }

  /** Resolves once every received change is written (or reported). */
  idle(): Promise<void> {
    return this.#queue.idle();
  }

  /**
   * Stops receiving, then waits for the writes under way; changes the bus delivers later are
   * dropped, and a write still failing is given up unanswered (its recovery marker republishes
   * it after a restart). For an orderly shutdown drain the bus first. Leaves the database open.
   */
  async stop(): Promise<void> {
    this.#subscription?.unsubscribe();
    this.#subscription = null;
    await this.#queue.stop();
  }

  /** Changes received and not yet written, and how long the oldest has waited (metrics). */
  backlog(): { changes: number; oldestMs: number } {
    return this.#queue.backlog();
  }

  /** Resolves once every change published before the sentinel `id` is written (see sync.ts). */
  synced(id: string): Promise<void> {
    return this.#queue.synced(id);
  }

  /** Writes the parked changes again (see parked_changes.ts); answers how many went in. */
  retryParked(): Promise<number> {
    return this.#parking.retry();
  }

  /** Reports a failure or a conflict of one change; never throws. */
  report(error: unknown, subject: string): void {
    try {
      this.#onError(error, subject);
    } catch (failure) {
      console.error(
        `${this.#writer.name} projection of ${subject} failed, and so did its onError:`,
        error,
        failure,
      );
    }
  }

  /** Queues the change; resolves once it is written (or reported). */
  #receive(message: BusMessage): Promise<void> | void {
    if (this.#subscription === null) return;
    const sync = syncIdOf(message.payload);
    if (sync !== null) return this.#queue.pushSync(sync);
    let item: T | null;
    try {
      item = this.#writer.take(parseChange(message.payload), message.subject);
    } catch (error) {
      this.report(error, message.subject);
      return;
    }
    if (item === null) return;
    return this.#queue.push({ item, subject: message.subject });
  }

  /** Writes a batch; a failed one is written change by change, each failure parked. */
  #write(batch: readonly Received<T>[]): Promise<void> {
    return writeFindingBad(
      batch,
      (received) => this.#writer.write(received.map((r) => r.item), this.#reporter),
      (error, r) => this.#parking.park(error, r.subject, this.#writer.parked(r.item)),
    );
  }
}

/** Checks the shape of a bus payload; throws a TypeError naming the first bad field. */
export function parseChange(payload: unknown): ActorChange {
  if (!isRecord(payload)) throw new TypeError(`actor change must be an object: ${typeof payload}`);
  const { env, tenant, type, id, version, events, snapshot } = payload;
  if (typeof env !== "string") throw new TypeError("actor change env must be a string");
  if (typeof tenant !== "string") throw new TypeError("actor change tenant must be a string");
  if (typeof type !== "string") throw new TypeError("actor change type must be a string");
  if (typeof id !== "string") throw new TypeError("actor change id must be a string");
  if (typeof version !== "number") throw new TypeError("actor change version must be a number");
  if (!Array.isArray(events)) throw new TypeError("actor change events must be an array");
  const parsed = events.map((e: unknown, i) => {
    if (!isRecord(e) || typeof e.seq !== "number" || typeof e.at !== "number") {
      throw new TypeError(`actor change event ${i} must have numeric seq and at`);
    }
    return { seq: e.seq, at: e.at, event: e.event };
  });
  return {
    env,
    tenant,
    type,
    id,
    version,
    events: parsed,
    ...(snapshot === undefined ? {} : { snapshot }),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}
