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
import type { Database } from "./schema.ts";

/** Rows per INSERT: 7 parameters each stays far below Postgres' 65,535 per statement. */
const EVENTS_PER_INSERT_MAX = 500;
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
  if (!Number.isSafeInteger(row.version) || row.version < 0) {
    throw new RangeError(`snapshot version must be a non-negative integer: ${row.version}`);
  }
  const result = await db
    .insertInto("snapshots")
    .values({
      type: row.type,
      id: row.id,
      tenant: row.tenant,
      version: row.version,
      data: jsonb(row.data),
    })
    .onConflict((oc) =>
      oc
        .columns(["type", "id"])
        .doUpdateSet((eb) => ({
          tenant: eb.ref("excluded.tenant"),
          version: eb.ref("excluded.version"),
          data: eb.ref("excluded.data"),
          updated_at: sql<Date>`now()`,
        }))
        .where("snapshots.version", "<", (eb) => eb.ref("excluded.version"))
    )
    .executeTakeFirst();
  return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
}

/** Appends the change's events; those already stored are skipped. Returns how many were new. */
export async function appendEvents(
  db: Kysely<Database>,
  change: Pick<ActorChange, "type" | "id" | "tenant" | "events">,
): Promise<number> {
  const rows = change.events.map((e) => {
    if (!Number.isInteger(e.seq) || e.seq < 0 || e.seq > INT4_MAX) {
      throw new RangeError(`event seq must be a non-negative int4: ${e.seq}`);
    }
    if (!Number.isFinite(e.at)) throw new RangeError(`event time must be finite: ${e.at}`);
    return {
      type: change.type,
      id: change.id,
      tenant: change.tenant,
      seq: e.seq,
      at: new Date(e.at),
      kind: eventKind(e.event),
      event: jsonb(e.event),
    };
  });
  let inserted = 0;
  for (let i = 0; i < rows.length; i += EVENTS_PER_INSERT_MAX) {
    const result = await db
      .insertInto("actor_events")
      .values(rows.slice(i, i + EVENTS_PER_INSERT_MAX))
      .onConflict((oc) => oc.columns(["type", "id", "seq"]).doNothing())
      .executeTakeFirst();
    inserted += Number(result.numInsertedOrUpdatedRows ?? 0n);
  }
  return inserted;
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
  /** The environment whose changes it writes: it subscribes to `<env>.*.*.*`. */
  readonly env: string;
  /** Where a failed write is reported; `console.error` by default. Never thrown into the bus. */
  readonly onError?: (error: unknown, subject: string) => void;
}

/**
 * Writes each change's events and snapshot in one transaction. Its handler returns the write,
 * so a bus that awaits handlers (both ours do) delivers the next change once this one is stored.
 */
export class Projector {
  readonly #db: Kysely<Database>;
  readonly #onError: (error: unknown, subject: string) => void;
  readonly #inflight = new Set<Promise<void>>();
  #subscription: Subscription | null;

  constructor(options: ProjectorOptions) {
    this.#db = options.db;
    this.#onError = options.onError ??
      ((error, subject) => console.error(`projection of ${subject} failed:`, error));
    this.#subscription = options.bus.subscribe(
      subjectPattern(options.env, "*", "*"),
      (message) => this.#receive(message),
    );
  }

  /** Resolves once no received change is still being written. */
  async idle(): Promise<void> {
    while (this.#inflight.size > 0) await Promise.all([...this.#inflight]);
  }

  /**
   * Stops receiving, then waits for the writes under way; changes the bus delivers later are
   * dropped. For an orderly shutdown drain the bus first. Leaves the database open.
   */
  async stop(): Promise<void> {
    this.#subscription?.unsubscribe();
    this.#subscription = null;
    await this.idle();
  }

  #receive(message: BusMessage): Promise<void> {
    if (this.#subscription === null) return Promise.resolve();
    const write: Promise<void> = this.#write(message)
      .catch((error) => this.#report(error, message.subject))
      .finally(() => this.#inflight.delete(write));
    this.#inflight.add(write);
    return write;
  }

  #report(error: unknown, subject: string): void {
    try {
      this.#onError(error, subject);
    } catch (failure) {
      console.error(`projection of ${subject} failed, and so did its onError:`, error, failure);
    }
  }

  async #write(message: BusMessage): Promise<void> {
    const change = parseChange(message.payload);
    await this.#db.transaction().execute(async (trx) => {
      await appendEvents(trx, change);
      if (change.snapshot !== undefined) {
        await upsertSnapshot(trx, { ...change, data: change.snapshot });
      }
    });
  }
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
