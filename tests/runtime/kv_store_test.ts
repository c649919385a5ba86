/**
 * What is Deno KV's own in the actor store: the file it makes. What every store does (identity,
 * unique claims, lookups) is in the conformance suite (store_conformance_kv_test.ts).
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { KV_PAGE_BYTES } from "../../src/limits.ts";
import { KvActorStore } from "../../src/runtime/kv_store.ts";
import { outboxKey } from "../../src/runtime/kv_layout.ts";
import type { ActorWrite, OutboxItem } from "../../src/runtime/store.ts";

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

/** Counts the entries every Deno KV listing yields while `fn` runs (the store's reads). */
async function entriesListed(fn: () => Promise<void>): Promise<number> {
  const list = Deno.Kv.prototype.list;
  let read = 0;
  Deno.Kv.prototype.list = function (this: Deno.Kv, ...args: Parameters<Deno.Kv["list"]>) {
    const iter = list.apply(this, args);
    return {
      get cursor() {
        return iter.cursor;
      },
      async next() {
        const r = await iter.next();
        if (!r.done) read++;
        return r;
      },
      [Symbol.asyncIterator]() {
        return this;
      },
    } as Deno.KvListIterator<never>;
  };
  try {
    await fn();
  } finally {
    Deno.Kv.prototype.list = list;
  }
  return read;
}

function outboxWrite(items: readonly OutboxItem[]): ActorWrite {
  const record = { v: 1, tenant: "biz_1", state: {}, seq: 1, timers: {}, indexes: [] };
  const recordJson = JSON.stringify(record);
  return {
    type: items[0]!.type,
    id: items[0]!.id,
    expected: null,
    record,
    events: [],
    indexSet: [],
    indexDelete: [],
    timerSet: [],
    timerDelete: [],
    replies: [],
    recordJson,
    recordBytes: recordJson.length,
    unpublishedFrom: null,
    outbox: items,
  };
}

function outboxItem(id: string, seq: number): OutboxItem {
  const payload = { seq };
  const at = 1_700_000_000_000;
  return { outbox: "hook", type: "client", id, tenant: "biz_1", seq, n: 0, at, payload, bytes: 9 };
}

Deno.test("kv store: a sweep's listing reads none of the outbox items backed off and not yet due", async () => {
  const dir = await Deno.makeTempDir();
  const store = await KvActorStore.open(`${dir}/store.kv`);
  try {
    const poisoned = Array.from({ length: 300 }, (_, i) => outboxItem("c1", i + 1));
    assert.ok((await store.commit([outboxWrite(poisoned)])).ok);
    assert.ok((await store.commit([outboxWrite([outboxItem("c2", 1)])])).ok);
    for (const p of poisoned) await store.retryOutboxItem(p, 4, 60_000);
    let listed: OutboxItem[] = [];
    const read = await entriesListed(async () => {
      listed = await store.outboxItems("hook", 500, undefined, 59_999);
    });
    assert.deepEqual(listed.map((i) => i.id), ["c2"]);
    assert.ok(read <= 1, `read ${read} entries for one due item`);
    const due = await store.outboxItems("hook", 500, undefined, 60_000);
    assert.equal(due.length, 301, "all of them once due");
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("kv store: an outbox item stored with its attempts by earlier code is listed when due, retried and removed", async () => {
  const dir = await Deno.makeTempDir();
  const store = await KvActorStore.open(`${dir}/store.kv`);
  try {
    const item = outboxItem("c1", 1);
    assert.ok((await store.commit([outboxWrite([item])])).ok);
    // As retryOutboxItem kept it before: attempts and nextAt in the value under its key.
    const kv = await Deno.openKv(`${dir}/store.kv`);
    const { outbox: _o, type: _t, id: _i, seq: _s, n: _n, ...value } = item;
    await kv.set(outboxKey(item), { ...value, attempts: 2, nextAt: 5_000 });
    kv.close();
    assert.deepEqual(await store.outboxItems("hook", 10, undefined, 4_999), []);
    const [old] = await store.outboxItems("hook", 10, undefined, 5_000);
    assert.deepEqual(old, { ...item, attempts: 2, nextAt: 5_000 });
    await store.retryOutboxItem(old!, 3, 9_000);
    assert.deepEqual(await store.outboxItems("hook", 10, undefined, 8_999), []);
    const again = await store.outboxItems("hook", 10, undefined, 9_000);
    assert.deepEqual(again, [{ ...item, attempts: 3, nextAt: 9_000 }], "once, moved");
    await store.removeOutboxItems(again);
    assert.deepEqual(await store.outboxItems("hook", 10), []);
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});
