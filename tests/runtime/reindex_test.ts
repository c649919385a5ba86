/**
 * Index entries of an old key shape (src/runtime/reindex.ts): a definition whose keys changed
 * shape names the version (indexesChangedAt), and the runtime's start rewrites the entries of
 * every stored actor of its type once, also those two actors shared under the old shape; a second
 * pass finds nothing to do.
 */
import assert from "node:assert/strict";
import { accept, type ActorDefinition } from "../../src/runtime/actor.ts";
import { reindexPass, reindexStored } from "../../src/runtime/reindex.ts";
import { REINDEX_PAGE_ACTORS } from "../../src/limits.ts";
import type { ActorWrite } from "../../src/runtime/store.ts";
import { notebookActor, openTestRuntime } from "./fixtures.ts";

interface Shelf {
  readonly id: string;
  readonly items: readonly string[];
}

type ShelfCommand =
  | { kind: "put"; id: string; item: string }
  | { kind: "take"; item: string }
  | { kind: "get" };
type ShelfEvent = { kind: "put"; id: string; item: string } | { kind: "taken"; item: string };

/** Version 1 indexes each item under the item alone: two shelves of one item share the entry. */
const shelfV1: ActorDefinition<Shelf | null, ShelfCommand, ShelfEvent, Shelf | null> = {
  type: "test_shelf",
  version: 1,
  initial: null,
  decide(state, command) {
    const reply = (s: Shelf | null) => s;
    if (command.kind === "put") {
      return accept([{ kind: "put", id: command.id, item: command.item }], reply);
    }
    if (command.kind === "take") return accept([{ kind: "taken", item: command.item }], reply);
    return accept([], () => state);
  },
  evolve(state, event) {
    if (event.kind === "put") {
      return { id: event.id, items: [...(state?.items ?? []), event.item] };
    }
    return state && { ...state, items: state.items.filter((i) => i !== event.item) };
  },
  indexes: (s) => (s?.items ?? []).map((item) => ({ index: "shelf_item", key: item })),
};

/** Version 2 keys each entry per shelf, `<item>|<shelf>`. */
const shelfV2: typeof shelfV1 = {
  ...shelfV1,
  version: 2,
  indexesChangedAt: 2,
  indexes: (s) =>
    (s?.items ?? []).map((item) => ({ index: "shelf_item", key: `${item}|${s!.id}` })),
};

Deno.test("runtime start: entries of an old key shape are rewritten once for every stored actor, shared ones too", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/kv.sqlite`;
  try {
    const old = await openTestRuntime(path, { definitions: [shelfV1] });
    const put = (id: string, item: string) =>
      old.runtime.ask(shelfV1, "biz_1", id, { kind: "put", id, item });
    await put("a", "x");
    await put("b", "x");
    await put("a", "y");
    // The old shape: one entry for item x, whichever shelf wrote it last.
    assert.equal((await old.store.lookup("shelf_item", "x"))?.id, "b");
    await old.close();

    const now = await openTestRuntime(path, { definitions: [shelfV2] });
    try {
      const shelves = async (item: string) =>
        (await now.runtime.lookupPrefix("shelf_item", `${item}|`, 10)).map((e) => e.target.id);
      assert.deepEqual(await shelves("x"), ["a", "b"]);
      assert.deepEqual(await shelves("y"), ["a"]);
      assert.equal(await now.store.lookup("shelf_item", "x"), null);
      assert.equal(await now.store.lookup("shelf_item", "y"), null);
      const a = await now.store.load({ type: "test_shelf", id: "a" });
      assert.equal(a?.record.v, 2);
      assert.deepEqual(a?.record.indexes, ["shelf_item\u0000x|a", "shelf_item\u0000y|a"]);
      // The actor goes on from the rewritten record: taking x off a leaves b's entry.
      const taken = await now.runtime.ask(shelfV2, "biz_1", "a", { kind: "take", item: "x" });
      assert.ok(taken.ok);
      assert.deepEqual(await shelves("x"), ["b"]);
      // Done, and marked so: neither the same pass nor a new one finds anything to rewrite.
      assert.equal(await reindexStored(now.store, [shelfV2], fail), 0);
      assert.equal(await reindexStored(now.store, [{ ...shelfV2, indexesChangedAt: 3 }], fail), 0);
    } finally {
      await now.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** A failure the pass reports, thrown: a test's pass is to fail on none. */
function fail(error: unknown): never {
  throw error;
}

/** A shelf `id` holding `item`, as version 1 stored it (its entry under the item alone). */
function storedByV1(id: string, item: string): ActorWrite {
  const record = {
    v: 1,
    tenant: "biz_1",
    state: { id, items: [item] },
    seq: 1,
    timers: {},
    indexes: [`shelf_item\u0000${item}`],
  };
  const recordJson = JSON.stringify(record);
  return {
    type: "test_shelf",
    id,
    expected: null,
    record,
    events: [],
    indexSet: [{ index: "shelf_item", key: item }],
    indexDelete: [],
    timerSet: [],
    timerDelete: [],
    replies: [],
    recordJson,
    recordBytes: recordJson.length,
    unpublishedFrom: null,
  };
}

Deno.test("re-index pass: every page of a type's actors is rewritten, and only a pass not yet done runs", async () => {
  const t = await openTestRuntime(":memory:", { definitions: [shelfV2] });
  try {
    const count = REINDEX_PAGE_ACTORS + 1;
    const ids = Array.from({ length: count }, (_, i) => `s${String(i).padStart(4, "0")}`);
    for (const id of ids) assert.ok((await t.store.commit([storedByV1(id, `item-${id}`)])).ok);
    // This runtime's start marked its pass done on the empty store: it is not run again.
    assert.equal(await reindexStored(t.store, [shelfV2], fail), 0);
    assert.equal((await t.store.lookup("shelf_item", "item-s0000"))?.id, "s0000");
    const next = { ...shelfV2, version: 3, indexesChangedAt: 3 };
    assert.equal(await reindexStored(t.store, [next], fail), count);
    for (const id of [ids[0]!, ids.at(-1)!]) {
      assert.equal(await t.store.lookup("shelf_item", `item-${id}`), null);
      const found = await t.store.lookupPrefix("shelf_item", `item-${id}|`, 5);
      assert.deepEqual(found.map((e) => e.key), [`item-${id}|${id}`]);
    }
    assert.equal(await reindexStored(t.store, [{ ...next, indexesChangedAt: 4 }], fail), 0);
  } finally {
    await t.close();
  }
});

Deno.test("runtime start: an actor the re-index pass cannot rewrite is reported and left, the others are rewritten, and the pass stays to be done at the next start", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/kv.sqlite`;
  try {
    const old = await openTestRuntime(path, { definitions: [shelfV1] });
    for (const [id, item] of [["a", "x"], ["b", "poison"], ["c", "y"]]) {
      assert.ok(
        (await old.runtime.ask(shelfV1, "biz_1", id!, { kind: "put", id: id!, item: item! })).ok,
      );
    }
    await old.close();
    // Today's version no longer reads one stored state: its `load` throws on it.
    const picky: typeof shelfV2 = {
      ...shelfV2,
      load: (stored) => {
        const shelf = stored as Shelf;
        if (shelf.items.includes("poison")) throw new Error("unreadable shelf");
        return shelf;
      },
    };
    const errors: string[] = [];
    const now = await openTestRuntime(path, {
      definitions: [picky],
      onError: (e, where) => errors.push(`${where}: ${(e as Error).message}`),
    });
    try {
      const shelves = async (item: string) =>
        (await now.runtime.lookupPrefix("shelf_item", `${item}|`, 10)).map((e) => e.target.id);
      assert.deepEqual([await shelves("x"), await shelves("y")], [["a"], ["c"]]);
      assert.equal(errors.length, 1, errors.join("\n"));
      assert.match(errors[0]!, /test_shelf b.*unreadable shelf/);
      assert.equal(await now.runtime.passDone(reindexPass(picky)!), false, "to be done again");
    } finally {
      await now.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("runtime start: a type whose stored actors cannot be listed (a record's part missing) is reported and its pass left for the next start", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/kv.sqlite`;
  try {
    const old = await openTestRuntime(path, { definitions: [notebookActor], store: "kv" });
    // Past half a part: stored split (kv_layout.ts partsOf).
    const text = "z".repeat(40_000);
    assert.ok((await old.runtime.ask(notebookActor, "biz_1", "n", { kind: "write", text })).ok);
    await old.close();
    const kv = await Deno.openKv(path);
    await kv.delete(["p", notebookActor.type, "n", 0]);
    kv.close();
    const changed = { ...notebookActor, indexesChangedAt: 2 };
    const errors: string[] = [];
    const now = await openTestRuntime(path, {
      definitions: [changed],
      store: "kv", // a record split in parts: Deno KV's layout
      onError: (e, where) => errors.push(`${where}: ${(e as Error).message}`),
    });
    try {
      assert.equal(errors.length, 1, errors.join("\n"));
      assert.match(errors[0]!, /re-indexing test_notebook .*part missing/);
      assert.equal(await now.runtime.passDone(reindexPass(changed)!), false, "to be done again");
    } finally {
      await now.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
