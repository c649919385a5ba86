import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { KV_PAGE_BYTES } from "../../src/limits.ts";
import { KvActorStore } from "../../src/runtime/kv_store.ts";
import type { ActorWrite } from "../../src/runtime/store.ts";

Deno.test("kv store: its identity is made once and the same for every instance sharing it, another store's differs", async () => {
  const dir = await Deno.makeTempDir();
  const [one, two] = [
    await KvActorStore.open(`${dir}/a.kv`),
    await KvActorStore.open(`${dir}/a.kv`),
  ];
  const other = await KvActorStore.open(`${dir}/b.kv`);
  try {
    // Two instances starting at once agree on one.
    const [x, y] = await Promise.all([one.identity(), two.identity()]);
    assert.equal(x, y);
    assert.match(x, /^store_[0-9a-z]{20}$/);
    assert.equal(await one.identity(), x, "kept");
    assert.notEqual(await other.identity(), x);
  } finally {
    one.close();
    two.close();
    other.close();
    await Deno.remove(dir, { recursive: true });
  }
});

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

/** A new actor's write that claims `email` in a unique index (ActorWrite.indexClaims). */
function claiming(id: string, email: string): ActorWrite {
  const record = { v: 1, tenant: "biz_1", state: {}, seq: 1, timers: {}, indexes: [] };
  const recordJson = JSON.stringify(record);
  const key = { index: "staff_email", key: email };
  return {
    type: "business",
    id,
    expected: null,
    record,
    events: [],
    indexSet: [key],
    indexClaims: [key],
    indexDelete: [],
    timerSet: [],
    timerDelete: [],
    replies: [],
    recordJson,
    recordBytes: recordJson.length,
    unpublishedFrom: null,
  };
}

Deno.test("kv store: one commit whose writes claim one unique key twice is a conflict and writes nothing; a held key too", async () => {
  const store = await KvActorStore.open(":memory:");
  try {
    const twice = await store.commit([
      claiming("a", "x@example.com"),
      claiming("b", "x@example.com"),
    ]);
    assert.deepEqual(twice, { ok: false, reason: "conflict" });
    assert.equal(await store.lookup("staff_email", "x@example.com"), null);
    assert.equal(await store.load({ type: "business", id: "a" }), null);
    // Apart, the first holds it and the second fails its check.
    assert.ok((await store.commit([claiming("a", "x@example.com")])).ok);
    assert.deepEqual(await store.commit([claiming("b", "x@example.com")]), {
      ok: false,
      reason: "conflict",
    });
    assert.equal((await store.lookup("staff_email", "x@example.com"))?.id, "a");
  } finally {
    store.close();
  }
});
