/**
 * The store port's prefix lookup and listing (store.ts): a prefix lookup answers the entries of
 * one index whose keys begin with the prefix, in key order, never more than asked and never a
 * neighbour whose key merely sorts near; actors are listed a page at a time; a pass once marked
 * done stays done for every instance sharing the store.
 */
import assert from "node:assert/strict";
import { KvActorStore } from "../../src/runtime/kv_store.ts";
import { INDEX_PREFIX_LOOKUP_MAX } from "../../src/limits.ts";
import type { ActorWrite } from "../../src/runtime/store.ts";

/** A new actor `id` of `type` holding `keys` in index `index`. */
function indexing(type: string, id: string, index: string, keys: readonly string[]): ActorWrite {
  const record = {
    v: 1,
    tenant: "biz_1",
    state: {},
    seq: 1,
    timers: {},
    indexes: keys.map((k) => `${index}\u0000${k}`),
  };
  const recordJson = JSON.stringify(record);
  return {
    type,
    id,
    expected: null,
    record,
    events: [],
    indexSet: keys.map((key) => ({ index, key })),
    indexDelete: [],
    timerSet: [],
    timerDelete: [],
    replies: [],
    recordJson,
    recordBytes: recordJson.length,
    unpublishedFrom: null,
  };
}

Deno.test("kv store: a prefix lookup answers the keys beginning with the prefix, in key order, at most the limit", async () => {
  const store = await KvActorStore.open(":memory:");
  try {
    const written = await store.commit([
      indexing("run", "r2", "driver_waybill", ["d1|WB1|r2", "d1|WB10|r2", "d2|WB1|r2"]),
      indexing("run", "r1", "driver_waybill", ["d1|WB1|r1", "d1|WB1"]),
      indexing("run", "r3", "other_index", ["d1|WB1|r3"]),
    ]);
    assert.ok(written.ok);
    const keys = async (prefix: string, limit: number) =>
      (await store.lookupPrefix("driver_waybill", prefix, limit)).map((e) => e.key);
    // Byte order: the old-shape key `d1|WB1`, then `d1|WB10|...` (0 before |), then WB1's runs.
    assert.deepEqual(await keys("d1|WB1|", 10), ["d1|WB1|r1", "d1|WB1|r2"]);
    assert.deepEqual(await keys("d1|WB1|", 1), ["d1|WB1|r1"]);
    assert.deepEqual(await keys("d1|WB10|", 10), ["d1|WB10|r2"]);
    assert.deepEqual(await keys("d1|WB2|", 10), []);
    assert.deepEqual(await keys("d1|", 3), ["d1|WB1", "d1|WB10|r2", "d1|WB1|r1"]);
    assert.deepEqual(await keys("", 100), [
      "d1|WB1",
      "d1|WB10|r2",
      "d1|WB1|r1",
      "d1|WB1|r2",
      "d2|WB1|r2",
    ]);
    const [first] = await store.lookupPrefix("driver_waybill", "d2|", 5);
    assert.deepEqual(first?.target, { type: "run", id: "r2", tenant: "biz_1" });
    // Bounded: none, a fraction, or more than the store reads at once is refused.
    for (const limit of [0, -1, 1.5, INDEX_PREFIX_LOOKUP_MAX + 1]) {
      await assert.rejects(() => store.lookupPrefix("driver_waybill", "d1|", limit), RangeError);
    }
    assert.equal(
      (await store.lookupPrefix("driver_waybill", "", INDEX_PREFIX_LOOKUP_MAX)).length,
      5,
    );
  } finally {
    store.close();
  }
});

Deno.test("kv store: the actors of a type are listed a page at a time after the last one seen", async () => {
  const store = await KvActorStore.open(":memory:");
  try {
    const ids = ["a", "b", "c", "d", "e"];
    assert.ok((await store.commit(ids.map((id) => indexing("run", id, "x", [])))).ok);
    assert.ok((await store.commit([indexing("runner", "z", "x", [])])).ok);
    const page = async (type: string, after: string | null, limit: number) =>
      (await store.stored(type, after, limit)).map((s) => s.id);
    assert.deepEqual(await page("run", null, 2), ["a", "b"]);
    assert.deepEqual(await page("run", "b", 2), ["c", "d"]);
    assert.deepEqual(await page("run", "d", 2), ["e"]);
    assert.deepEqual(await page("run", "e", 2), []);
    assert.deepEqual(await page("nothing", null, 2), []);
    await assert.rejects(() => store.stored("run", null, 0), RangeError);
  } finally {
    store.close();
  }
});

Deno.test("kv store: a pass marked done is done for every instance on the store, and only that pass", async () => {
  const dir = await Deno.makeTempDir();
  const one = await KvActorStore.open(`${dir}/a.kv`);
  const two = await KvActorStore.open(`${dir}/a.kv`);
  try {
    assert.equal(await one.passDone("reindex:run:3"), false);
    await one.markPassDone("reindex:run:3");
    assert.equal(await two.passDone("reindex:run:3"), true);
    assert.equal(await two.passDone("reindex:run:4"), false);
  } finally {
    one.close();
    two.close();
    await Deno.remove(dir, { recursive: true });
  }
});
