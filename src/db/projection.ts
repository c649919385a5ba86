/**
 * Projects actor changes from the bus into Postgres. Writes are keyed by (type, id) and version
 * or seq, so a replayed, duplicated or reordered change never moves a row backwards.
 */
import { type Kysely, sql } from "kysely";
import {
  type ActorChange,
  type Bus,
  type BusMessage,
  subjectPattern,
  type Subscription,
} from "../bus/bus.ts";
import { jsonb } from "./json.ts";
import { Parking } from "./parked_changes.ts";
import { syncIdOf, writeFindingBad, WriteQueue } from "./sync.ts";
import type { Database } from "./schema.ts";

/** Postgres `integer`, the type of `actor_events.seq`. */
const INT4_MAX = 2_147_483_647;

export interface SnapshotInput {
  readonly type: string;
  readonly id: string;
  readonly tenant: string;
  readonly version: number;
  readonly data: unknown;
}

/** Writes the snapshot unless the stored one is as new or newer; true when it wrote. */
export async function upsertSnapshot(db: Kysely<Database>, row: SnapshotInput): Promise<boolean> {
  return (await upsertSnapshots(db, [row])) > 0;
}

/**
 * Writes each snapshot unless the stored one is as new or newer, in one statement (one round
 * trip, not one per actor); at most one row per actor. Answers how many it wrote.
 */
export async function upsertSnapshots(
  db: Kysely<Database>,
  rows: readonly SnapshotInput[],
): Promise<number> {
  if (rows.length === 0) return 0;
  return Number((await snapshotsUpsert(rows).execute(db)).numAffectedRows ?? 0n);
}

/**
 * Every row goes in one JSON parameter: one statement text whatever the count, so the server
 * plans it once and the client binds one value instead of several per row.
 */
function snapshotsUpsert(rows: readonly SnapshotInput[]) {
  const data = jsonb(rows.map((r) => {
    if (!Number.isSafeInteger(r.version) || r.version < 0) {
      throw new RangeError(`snapshot version must be a non-negative integer: ${r.version}`);
    }
    return { type: r.type, id: r.id, tenant: r.tenant, version: r.version, data: r.data };
  }));
  return sql`
    insert into snapshots (type, id, tenant, version, data)
    select r->>'type', r->>'id', r->>'tenant', (r->>'version')::bigint, r->'data'
    from jsonb_array_elements(${data}) r
    on conflict (type, id) do update set
      tenant = excluded.tenant, version = excluded.version, data = excluded.data,
      updated_at = now()
    where snapshots.version < excluded.version`;
}

/** Appends the change's events; those already stored are skipped. Returns how many were new. */
export async function appendEvents(
  db: Kysely<Database>,
  change: Pick<ActorChange, "type" | "id" | "tenant" | "events">,
): Promise<number> {
  const rows = eventRows(change);
  if (rows.length === 0) return 0;
  return Number((await eventsInsert(rows).execute(db)).numAffectedRows ?? 0n);
}

function eventRows(change: Pick<ActorChange, "type" | "id" | "tenant" | "events">) {
  return change.events.map((e) => {
    if (!Number.isInteger(e.seq) || e.seq < 0 || e.seq > INT4_MAX) {
      throw new RangeError(`event seq must be a non-negative int4: ${e.seq}`);
    }
    if (!Number.isFinite(e.at)) throw new RangeError(`event time must be finite: ${e.at}`);
    return {
      type: change.type,
      id: change.id,
      tenant: change.tenant,
      seq: e.seq,
      at: new Date(e.at).toISOString(),
      kind: eventKind(e.event),
      event: e.event,
    };
  });
}

/** One JSON parameter for every row, as for snapshots. */
function eventsInsert(rows: ReturnType<typeof eventRows>) {
  return sql`
    insert into actor_events (type, id, tenant, seq, at, kind, event)
    select r->>'type', r->>'id', r->>'tenant', (r->>'seq')::integer, (r->>'at')::timestamptz,
      r->>'kind', r->'event'
    from jsonb_array_elements(${jsonb(rows)}) r
    on conflict (type, id, seq) do nothing`;
}

/** The event's `kind` tag (STYLE 2), or `unknown` for an untagged event. */
export function eventKind(event: unknown): string {
  if (typeof event === "object" && event !== null && "kind" in event) {
    const { kind } = event;
    if (typeof kind === "string") return kind;
  }
  return "unknown";
}

export interface ProjectorOptions {
  readonly bus: Bus;
  readonly db: Kysely<Database>;
  /** The bus prefix (environment and deployment) whose changes it writes: `<env>.*.*.*`. */
  readonly env: string;
  /**
   * Where a failed write is reported (the change is also parked, see parked_changes.ts);
   * `console.error` by default. Never thrown into the bus.
   */
  readonly onError?: (error: unknown, subject: string) => void;
  /** Wait before retrying a write that failed for a transient reason (tests: 0). */
  readonly retryDelayMs?: (attempt: number) => number;
}

/**
 * Writes changes in the order the bus delivers them, many per transaction: the bus hands over the
 * next change without waiting for this one's write (a pipelined subscription), so a backlog is
 * written in batches (events appended, each actor's newest snapshot upserted) instead of one
 * transaction per change. Each change counts as handled, for the bus's flush and so for the
 * runtime's recovery markers, only once its batch is written or reported.
 */
export class Projector {
  readonly #db: Kysely<Database>;
  readonly #onError: (error: unknown, subject: string) => void;
  readonly #queue: WriteQueue<{ change: ActorChange; subject: string }>;
  #subscription: Subscription | null;
  readonly #parking: Parking;

  constructor(options: ProjectorOptions) {
    this.#db = options.db;
    this.#parking = new Parking({
      db: options.db,
      projection: "snapshots",
      write: (change) => writeChanges(options.db, [parseChange(change)]),
      report: (error, subject) => this.#report(error, subject),
    });
    this.#queue = new WriteQueue(
      { itemsMax: PROJECTION_BATCH_MAX },
      (batch) => this.#write(batch),
      { retryDelayMs: options.retryDelayMs },
    );
    this.#onError = options.onError ??
      ((error, subject) => console.error(`projection of ${subject} failed:`, error));
    this.#subscription = options.bus.subscribe(
      subjectPattern(options.env, "*", "*"),
      (message) => this.#receive(message),
      { pipelined: true },
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

  /** Resolves once every change published before the sentinel `id` is written (see sync.ts). */
  synced(id: string): Promise<void> {
    return this.#queue.synced(id);
  }

  /** Queues the change; resolves once it is written (or reported). */
  #receive(message: BusMessage): Promise<void> | void {
    if (this.#subscription === null) return;
    const sync = syncIdOf(message.payload);
    if (sync !== null) return this.#queue.pushSync(sync);
    try {
      return this.#queue.push({ change: parseChange(message.payload), subject: message.subject });
    } catch (error) {
      this.#report(error, message.subject);
    }
  }

  /** Writes the parked changes again (see parked_changes.ts); answers how many went in. */
  retryParked(): Promise<number> {
    return this.#parking.retry();
  }

  #write(batch: readonly { change: ActorChange; subject: string }[]): Promise<void> {
    return writeFindingBad(
      batch,
      (items) => writeChanges(this.#db, items.map((b) => b.change)),
      (error, item) => this.#parking.park(error, item.subject, item.change),
    );
  }

  #report(error: unknown, subject: string): void {
    try {
      this.#onError(error, subject);
    } catch (failure) {
      console.error(`projection of ${subject} failed, and so did its onError:`, error, failure);
    }
  }
}

/** Changes written together per transaction when the projection has a backlog. */
const PROJECTION_BATCH_MAX = 500;

/** Appends every change's events and upserts each actor's newest snapshot. */
export async function writeChanges(
  db: Kysely<Database>,
  changes: readonly ActorChange[],
): Promise<void> {
  const newest = new Map<string, ActorChange>();
  for (const change of changes) {
    if (change.snapshot === undefined) continue;
    const key = `${change.type}\u0000${change.id}`;
    const seen = newest.get(key);
    if (!seen || seen.version < change.version) newest.set(key, change);
  }
  const snapshots = [...newest.values()].map((c) => ({ ...c, data: c.snapshot }));
  // One statement is atomic by itself: both writes in one round trip, with no BEGIN and COMMIT
  // around them.
  await sql`with appended as (${eventsInsert(changes.flatMap(eventRows))})
    ${snapshotsUpsert(snapshots)}`.execute(db);
}

export function startProjector(options: ProjectorOptions): Projector {
  return new Projector(options);
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
