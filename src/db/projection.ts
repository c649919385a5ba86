/**
 * Projects actor changes from the bus into Postgres: each actor's newest snapshot (ARCHITECTURE 6),
 * keyed by (type, id) and version, so a replayed, duplicated or reordered change never moves a row
 * backwards. Events are not copied here: the actor store keeps them, the record of what happened
 * (`runtime.events`), and no read needs them again from the query side (issue 36: one write per
 * change, not an event row and a snapshot of the same record).
 */
import { type Kysely, sql } from "kysely";
import type { ActorChange } from "../bus/bus.ts";
import { BusProjection, parseChange, type ProjectionOptions } from "./bus_projection.ts";
import { jsonb } from "./json.ts";
import type { Database } from "./schema.ts";

export { parseChange };

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

export type ProjectorOptions = ProjectionOptions;

/**
 * Writes changes in the order the bus delivers them, many per statement: the bus hands over the
 * next change without waiting for this one's write (a pipelined subscription), so a backlog is
 * written in batches (each actor's newest snapshot upserted) instead of one statement per change.
 * The lifecycle (queue, park, retry, sync, stop) is bus_projection.ts'.
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

/** Upserts each actor's newest snapshot among the changes, in one statement. */
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
  await upsertSnapshots(db, [...newest.values()].map((c) => ({ ...c, data: c.snapshot })));
}

export function startProjector(options: ProjectorOptions): Projector {
  return new Projector(options);
}
