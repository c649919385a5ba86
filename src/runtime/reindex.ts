/**
 * Rewriting stored index entries when a definition changes the shape of its keys
 * (ActorDefinition.indexesChangedAt). The runtime indexes an actor at each commit with events,
 * against the entries its record says it wrote, so an actor unchanged since keeps entries of the
 * old shape. One pass at start reads every stored actor of such a type and, where its entries are
 * not what today's definition derives, commits its record with today's (no events, guarded by
 * its version: a writer that moved on meanwhile is read again). The pass is then marked done in
 * the store, so later starts skip it; a crash midway leaves it to be done again, and an actor
 * already rewritten is left as it is. An actor it cannot rewrite (its state unreadable, its
 * conflicts persisting) is reported and left, and the pass stays to be done at the next start:
 * one bad actor never stops the start.
 */
import { CONFLICT_RETRIES_MAX, REINDEX_PAGE_ACTORS } from "../limits.ts";
import type { AnyActorDefinition } from "./actor.ts";
import { decodeIndex, encodeIndexes, indexesMissing } from "./index_keys.ts";
import type { ActorKey, ActorRecord, ActorStore, ActorWrite, StoredActor } from "./store.ts";

/**
 * Runs the pass of each definition whose keys changed shape, once; answers actors rewritten.
 * An actor that fails is told to `onError`; its type's pass is then not marked done.
 */
export async function reindexStored(
  store: ActorStore,
  defs: Iterable<AnyActorDefinition>,
  onError: (error: unknown, where: string) => void,
): Promise<number> {
  let rewritten = 0;
  for (const def of defs) {
    const pass = reindexPass(def);
    if (pass === null) continue;
    // A unique key would need its claim checked; no such index has changed shape.
    if ((def.uniqueIndexes ?? []).length > 0) {
      throw new Error(`${def.type}: unique indexes are not re-indexed at start`);
    }
    if (await store.passDone(pass)) continue;
    let done: { rewritten: number; failed: number };
    try {
      done = await reindexType(store, def, onError);
    } catch (error) {
      // Its listing failed (a split record's part missing): the type's pass is left for later.
      onError(error, `re-indexing ${def.type} (left for the next start)`);
      continue;
    }
    rewritten += done.rewritten;
    if (done.failed === 0) await store.markPassDone(pass);
  }
  return rewritten;
}

/** The name the store keeps the definition's pass done under; null when it has none. */
export function reindexPass(def: AnyActorDefinition): string | null {
  return def.indexesChangedAt === undefined ? null : `reindex:${def.type}:${def.indexesChangedAt}`;
}

async function reindexType(
  store: ActorStore,
  def: AnyActorDefinition,
  onError: (error: unknown, where: string) => void,
): Promise<{ rewritten: number; failed: number }> {
  let rewritten = 0;
  let failed = 0;
  let after: string | null = null;
  for (;;) {
    // The page's records are read again one by one: a rewrite must name the version it replaces.
    const ids: string[] = (await store.stored(def.type, after, REINDEX_PAGE_ACTORS)).map((s) =>
      s.id
    );
    for (const id of ids) {
      try {
        if (await reindexOne(store, def, { type: def.type, id })) rewritten++;
      } catch (error) {
        failed++;
        onError(error, `re-indexing ${def.type} ${id} (left for the next start)`);
      }
    }
    if (ids.length < REINDEX_PAGE_ACTORS) return { rewritten, failed };
    after = ids.at(-1)!;
  }
}

/** Rewrites one actor's entries unless they are today's already; answers whether it did. */
async function reindexOne(
  store: ActorStore,
  def: AnyActorDefinition,
  key: ActorKey,
): Promise<boolean> {
  for (let attempt = 0; attempt <= CONFLICT_RETRIES_MAX; attempt++) {
    const stored = await store.load(key);
    if (stored === null) return false;
    const write = reindexWrite(def, key, stored);
    if (write === null) return false;
    const result = await store.commit([write]);
    if (result.ok) return true;
    if (result.reason === "error") throw result.error;
  }
  throw new Error(`${key.type} ${key.id}: conflicts persist while re-indexing`);
}

/** The record with today's entries, and the entries to set and delete; null when unchanged. */
function reindexWrite(
  def: AnyActorDefinition,
  key: ActorKey,
  stored: StoredActor,
): ActorWrite | null {
  const r = stored.record;
  // As a cell loads it (cell.ts), so the record is written in today's shape.
  const state = def.load ? def.load(r.state, r.v) : r.state;
  const indexes = encodeIndexes(def, state);
  const set = indexesMissing(indexes, r.indexes);
  const gone = indexesMissing(r.indexes, indexes);
  if (set.length === 0 && gone.length === 0) return null;
  const record: ActorRecord = { ...r, v: def.version, state, indexes };
  const recordJson = JSON.stringify(record);
  return {
    type: key.type,
    id: key.id,
    expected: stored.version,
    record,
    events: [],
    indexSet: set.map(decodeIndex),
    indexDelete: gone.map(decodeIndex),
    timerSet: [],
    timerDelete: [],
    replies: [],
    recordJson,
    recordBytes: recordJson.length,
    unpublishedFrom: null,
  };
}
