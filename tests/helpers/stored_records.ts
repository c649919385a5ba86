/**
 * Records written back by hand into a Deno KV file, as older code stored them (no runtime: no
 * rule runs), and the passes over old data forgotten, so the next start runs them again.
 */
import assert from "node:assert/strict";
import { KvActorStore } from "../../src/runtime/kv_store.ts";
import { PASS_DONE } from "../../src/runtime/kv_layout.ts";
import type { ActorRecord } from "../../src/runtime/store.ts";

/** A stored timer to drop with the rewrite. */
type DroppedTimer = { readonly name: string; readonly at: number };

/**
 * Rewrites the stored record of `at` to what `change` makes of it; `change` answers the record
 * and the timers to drop from the store's timer list.
 */
export async function rewriteStored(
  kvPath: string,
  at: { readonly type: string; readonly id: string },
  change: (stored: ActorRecord) => { record: ActorRecord; timerDelete?: DroppedTimer[] },
  written: string,
): Promise<void> {
  const store = await KvActorStore.open(kvPath);
  try {
    const stored = (await store.load(at))!;
    const { record, timerDelete = [] } = change(stored.record);
    const recordJson = JSON.stringify(record);
    const r = await store.commit([{
      ...at,
      expected: stored.version,
      record,
      events: [],
      indexSet: [],
      indexDelete: [],
      timerSet: [],
      timerDelete,
      replies: [],
      recordJson,
      recordBytes: recordJson.length,
      unpublishedFrom: null,
    }]);
    assert.ok(r.ok, written);
  } finally {
    store.close();
  }
}

/** The record without its timer `name` (asserted there: `says`), and that timer to drop. */
export function withoutTimer(stored: ActorRecord, name: string, says: string) {
  const { [name]: timer, ...timers } = stored.timers;
  assert.ok(timer, says);
  return { record: { ...stored, timers }, timerDelete: [{ name, at: timer.at }] };
}

/** Forgets the passes over old data done, so the next start runs them again. */
export async function forgetOldDataPasses(kvPath: string): Promise<void> {
  const kv = await Deno.openKv(kvPath);
  try {
    for await (const e of kv.list({ prefix: [PASS_DONE] })) {
      if (String(e.key[1]).startsWith("old_data:")) await kv.delete(e.key);
    }
  } finally {
    kv.close();
  }
}
