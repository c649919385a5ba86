/**
 * Projects actor changes from the bus into Postgres. Writes are keyed by (type, id) and version
 * or seq, so a replayed, duplicated or reordered change never moves a row backwards.
 */
import { type Kysely, sql } from "kysely";
import type { ActorChange } from "../bus/bus.ts";
import { BusProjection, parseChange, type ProjectionOptions } from "./bus_projection.ts";
import { jsonb, jsonbText } from "./json.ts";
import { jsonTextOf } from "../bus/json_text.ts";
import type { Database } from "./schema.ts";

export { parseChange };

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
    from jsonb_array_elements(${jsonbText(eventRowsJson(rows))}) r
    on conflict (type, id, seq) do nothing`;
}

/**
 * JSON.stringify(rows), each event's text taken as the runtime made it when the event was
 * decided (json_text.ts): the events are most of a change's bytes.
 */
function eventRowsJson(rows: ReturnType<typeof eventRows>): string {
  const text = (v: unknown) => JSON.stringify(v);
  return `[${
    rows.map((r) => {
      const event = jsonTextOf(r.event);
      return `{"type":${text(r.type)},"id":${text(r.id)},"tenant":${text(r.tenant)},` +
        `"seq":${r.seq},"at":${text(r.at)},"kind":${text(r.kind)}` +
        (event === undefined ? "}" : `,"event":${event}}`);
    }).join(",")
  }]`;
}

/** The event's `kind` tag (STYLE 2), or `unknown` for an untagged event. */
export function eventKind(event: unknown): string {
  if (typeof event === "object" && event !== null && "kind" in event) {
    const { kind } = event;
    if (typeof kind === "string") return kind;
  }
  return "unknown";
}

export type ProjectorOptions = ProjectionOptions;

/**
 * Writes changes in the order the bus delivers them, many per transaction: the bus hands over the
 * next change without waiting for this one's write (a pipelined subscription), so a backlog is
 * written in batches (events appended, each actor's newest snapshot upserted) instead of one
 * transaction per change. The lifecycle (queue, park, retry, sync, stop) is bus_projection.ts'.
 */
export class Projector extends BusProjection<ActorChange> {
  constructor(options: ProjectorOptions) {
    super(options, {
      name: "snapshots",
      type: "*",
      limits: { itemsMax: PROJECTION_BATCH_MAX },
      take: (change) => change,
      write: (changes) => writeChanges(options.db, changes),
      // A parked change is the change itself, as the bus carried it.
      parked: (change) => change,
      unparked: parseChange,
    });
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
