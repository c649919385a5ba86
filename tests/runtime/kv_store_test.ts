/**
 * What is Deno KV's own in the actor store: the file it makes. What every store does (identity,
 * unique claims, lookups) is in the conformance suite (store_conformance_kv_test.ts).
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { KV_PAGE_BYTES } from "../../src/limits.ts";
import { KvActorStore } from "../../src/runtime/kv_store.ts";

Deno.test("kv store: a new file gets KV_PAGE_BYTES pages and works; an existing file keeps its own", async () => {
  const dir = await Deno.makeTempDir();
  const pageSize = (path: string) => {
    const db = new DatabaseSync(path);
    try {
      return Number((db.prepare("PRAGMA page_size").get() as { page_size: number }).page_size);
    } finally {
      db.close();
    }
  };
  try {
    const made = await KvActorStore.open(`${dir}/new.kv`);
    const id = await made.identity();
    made.close();
    assert.equal(pageSize(`${dir}/new.kv`), KV_PAGE_BYTES);
    // Opened again, it is the same store (its identity kept), not made anew.
    const again = await KvActorStore.open(`${dir}/new.kv`);
    assert.equal(await again.identity(), id);
    again.close();
    // A file Deno KV made before (4 KiB pages) is opened as it is.
    const old = await Deno.openKv(`${dir}/old.kv`);
    await old.set(["x"], 1);
    old.close();
    const before = pageSize(`${dir}/old.kv`);
    assert.notEqual(before, KV_PAGE_BYTES);
    const reopened = await KvActorStore.open(`${dir}/old.kv`);
    assert.match(await reopened.identity(), /^store_/);
    reopened.close();
    assert.equal(pageSize(`${dir}/old.kv`), before);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
