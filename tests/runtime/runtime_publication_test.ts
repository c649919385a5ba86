/**
 * The runtime's publication (ARCHITECTURE "Data flows one way"): each commit published after it is
 * durable, republished after a crash, and the recovery marker kept until its events are on the bus.
 */
import assert from "node:assert/strict";
import { accountActor, notebookActor, openTestRuntime, receiptActor } from "./fixtures.ts";
import type { ActorChange } from "../../src/bus/bus.ts";
import { MemoryBus } from "../../src/bus/memory_bus.ts";
import { ManualClock } from "../../src/runtime/clock.ts";
import { KvActorStore } from "../../src/runtime/kv_store.ts";
import { ActorRuntime } from "../../src/runtime/runtime.ts";
import type { ActorStore } from "../../src/runtime/store.ts";

const T = "biz_tenant";

Deno.test("runtime: each commit is published after it is durable, with the version and snapshot", async () => {
  const rt = await openTestRuntime();
  const seen: ActorChange[] = [];
  const sub = rt.bus.subscribe("test.*.test_account.*", (m) => {
    seen.push(m.payload as ActorChange);
  });
  try {
    await rt.runtime.ask(accountActor, T, "p1", { kind: "credit", amount: 4 });
    await rt.runtime.ask(accountActor, T, "p1", { kind: "credit", amount: 6 });
    await rt.bus.flush();
    assert.deepEqual(seen.map((c) => [c.tenant, c.id, c.version, c.snapshot]), [
      [T, "p1", 1, { balance: 4 }],
      [T, "p1", 2, { balance: 10 }],
    ]);
  } finally {
    sub.unsubscribe();
    await rt.close();
  }
});

Deno.test("runtime: events a crash kept off the bus are republished at start", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/kv.sqlite`;
  const first = await openTestRuntime(path);
  // Simulate a crash between commit and publish: the bus is gone before the publish happens.
  await first.bus.drain();
  await first.runtime.ask(accountActor, T, "r1", { kind: "credit", amount: 9 });
  first.store.close();
  const seen: ActorChange[] = [];
  const { MemoryBus } = await import("../../src/bus/memory_bus.ts");
  const bus = new MemoryBus();
  bus.subscribe("test.>", (m) => {
    seen.push(m.payload as ActorChange);
  });
  const second = await openTestRuntime(path, { bus });
  try {
    await bus.flush();
    assert.equal(seen.length, 1);
    assert.equal(seen[0]?.version, 1);
    assert.deepEqual(seen[0]?.snapshot, { balance: 9 });
  } finally {
    await second.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("runtime: group commit batches many actors' writes into few transactions", async () => {
  const rt = await openTestRuntime();
  try {
    const before = rt.runtime.commitStats.commits;
    await Promise.all(
      Array.from(
        { length: 300 },
        (_, i) => rt.runtime.ask(accountActor, T, `g${i}`, { kind: "credit", amount: 1 }),
      ),
    );
    const commits = rt.runtime.commitStats.commits - before;
    assert.ok(commits < 300, `expected fewer commits than writes, got ${commits}`);
  } finally {
    await rt.close();
  }
});

Deno.test("runtime: group commit sizes groups by the bytes the store keeps: large writes past Latin-1 are never tried together over its limit", async () => {
  const rt = await openTestRuntime();
  const commit = rt.store.commit.bind(rt.store);
  const refused: string[] = [];
  rt.store.commit = async (writes) => {
    const r = await commit(writes);
    if (!r.ok && r.reason === "error") refused.push(`${writes.length} writes: ${r.error.message}`);
    return r;
  };
  try {
    // Each write keeps about 240 KB (a split record and a split event, 3 UTF-8 bytes a '€'):
    // at most three fit one atomic commit of 800 KiB.
    const text = "€".repeat(40_000);
    const results = await Promise.all(
      Array.from(
        { length: 8 },
        (_, i) => rt.runtime.ask(notebookActor, T, `big${i}`, { kind: "write", text }),
      ),
    );
    assert.ok(results.every((r) => r.ok));
    assert.deepEqual(refused, []);
    assert.ok(rt.runtime.commitStats.commits < 8, "still grouped");
  } finally {
    await rt.close();
  }
});

Deno.test("runtime: group commit counts the replies kept under idempotency keys in a group's size", async () => {
  const rt = await openTestRuntime();
  const commit = rt.store.commit.bind(rt.store);
  const refused: string[] = [];
  rt.store.commit = async (writes) => {
    const r = await commit(writes);
    if (!r.ok && r.reason === "error") refused.push(`${writes.length} writes: ${r.error.message}`);
    return r;
  };
  try {
    // Thirty notebooks of 25,000 bytes; a keyed write to each keeps its reply, the whole notebook
    // again: about 50 KB a write, so a group of thirty would be past 800 KiB.
    const ids = Array.from({ length: 30 }, (_, i) => `kept${i}`);
    for (const id of ids) {
      const text = "x".repeat(25_000);
      assert.ok((await rt.runtime.ask(notebookActor, T, id, { kind: "write", text })).ok);
    }
    const results = await Promise.all(
      ids.map((id) =>
        rt.runtime.ask(notebookActor, T, id, { kind: "write", text: "y" }, {
          idempotencyKey: `k-${id}`,
        })
      ),
    );
    assert.ok(results.every((r) => r.ok));
    assert.deepEqual(refused, []);
  } finally {
    await rt.close();
  }
});

Deno.test("runtime: the recovery marker is gone once an idle actor's events are on the bus", async () => {
  const rt = await openTestRuntime();
  try {
    await Promise.all(
      Array.from(
        { length: 20 },
        () => rt.runtime.ask(accountActor, T, "m1", { kind: "credit", amount: 1 }),
      ),
    );
    // Closing waits for the marker's removal under way.
    await rt.runtime.close();
    assert.deepEqual(await rt.store.unpublished(10), []);
  } finally {
    await rt.close();
  }
});

Deno.test("runtime: a marker whose removal failed (the store failing for a moment) is removed by the next sweep", async () => {
  const kv = await KvActorStore.open(":memory:");
  let failures = 0;
  const store = new Proxy(kv, {
    get(target, name) {
      if (name === "markPublished") {
        return (actors: Parameters<ActorStore["markPublished"]>[0]) =>
          failures-- > 0 ? Promise.reject(new Error("store down")) : target.markPublished(actors);
      }
      const value = Reflect.get(target, name, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const runtime = new ActorRuntime({
    env: "test",
    store,
    bus: new MemoryBus(),
    clock: new ManualClock(),
    definitions: [accountActor],
    onError: () => {},
  });
  try {
    await runtime.start();
    assert.ok((await runtime.ask(accountActor, T, "m0", { kind: "credit", amount: 5 })).ok);
    failures = 1;
    // Swept once the actor has gone idle (a few microtasks after its answer).
    for (let i = 0; i < 10 && failures > 0; i++) await runtime.sweepMarkers();
    assert.equal(failures, 0, "its removal was tried, and failed");
    assert.equal((await kv.unpublished(10)).length, 1, "kept by the failed removal");
    await runtime.sweepMarkers();
    assert.deepEqual(await kv.unpublished(10), [], "removed by the next sweep");
  } finally {
    await runtime.close();
    kv.close();
  }
});

Deno.test("runtime: an actor that commits while its marker is being removed keeps it until it can go", async () => {
  const rt = await openTestRuntime();
  let release = () => {};
  const held = new Promise<void>((r) => (release = r));
  const sub = rt.bus.subscribe("test.*.test_account.*", () => held);
  try {
    assert.ok((await rt.runtime.ask(accountActor, T, "m2", { kind: "credit", amount: 5 })).ok);
    assert.equal((await rt.store.unpublished(10)).length, 1);
    // The removal waits for the bus; meanwhile a commit with nothing for it moves the version.
    const sweeping = rt.runtime.sweepMarkers();
    const kept = await rt.runtime.ask(accountActor, T, "m2", { kind: "get" }, {
      idempotencyKey: "read-1",
    });
    assert.ok(kept.ok);
    release();
    await sweeping;
    assert.deepEqual(await rt.store.unpublished(10), [], "removed against the version it has now");
  } finally {
    release();
    sub.unsubscribe();
    await rt.close();
  }
});

Deno.test("runtime: a commit while the marker's removal waits on the bus keeps the marker at the first event not yet handled", async () => {
  const rt = await openTestRuntime();
  let release = () => {};
  const held = new Promise<void>((r) => (release = r));
  const sub = rt.bus.subscribe("test.*.test_account.*", () => held);
  try {
    assert.ok((await rt.runtime.ask(accountActor, T, "m3", { kind: "credit", amount: 5 })).ok);
    const [first] = await rt.store.unpublished(10);
    assert.equal(first?.from, 1);
    // The removal waits for the handler of seq 1; meanwhile seq 2 is committed (for the bus).
    const sweeping = rt.runtime.sweepMarkers();
    assert.ok((await rt.runtime.ask(accountActor, T, "m3", { kind: "credit", amount: 7 })).ok);
    // A crash now must republish seq 1 too: its handler has not finished.
    assert.deepEqual(
      (await rt.store.unpublished(10)).map((u) => u.from),
      [1],
      "the marker still names the first event not yet handled",
    );
    release();
    await sweeping;
  } finally {
    release();
    sub.unsubscribe();
    await rt.close();
  }
});

Deno.test("runtime: a commit with nothing for downstream (events off the bus, no snapshot) publishes nothing and leaves no recovery marker", async () => {
  const rt = await openTestRuntime();
  const seen: ActorChange[] = [];
  const sub = rt.bus.subscribe("test.*.test_receipt.*", (m) => {
    seen.push(m.payload as ActorChange);
  });
  try {
    const made = await rt.runtime.ask(receiptActor, T, "quiet", {
      kind: "make",
      text: "held prices",
      public: false,
    });
    assert.ok(made.ok);
    assert.deepEqual(await rt.store.unpublished(10), [], "no marker for a change never sent");
    await rt.runtime.ask(receiptActor, T, "shown", { kind: "make", text: "quote", public: true });
    await rt.bus.flush();
    assert.deepEqual(seen.map((c) => [c.id, c.events.length, c.snapshot]), [
      ["shown", 0, { text: "quote", public: true }],
    ]);
  } finally {
    sub.unsubscribe();
    await rt.close();
  }
});

/** A receipt whose private ones stay in its log: only public ones go on the bus. */
const noticeActor = {
  ...receiptActor,
  type: "test_notice",
  logEvents: true,
  publishEvents: true,
  onBus: (e: { public: boolean }) => e.public,
  project: () => undefined,
};

Deno.test("runtime: onBus puts only the events it names on the bus; a change with none of them and no snapshot is not sent", async () => {
  const rt = await openTestRuntime(undefined, { definitions: [noticeActor] });
  const seen: ActorChange[] = [];
  const sub = rt.bus.subscribe("test.*.test_notice.*", (m) => {
    seen.push(m.payload as ActorChange);
  });
  try {
    const make = (text: string, pub: boolean) =>
      rt.runtime.ask(noticeActor, T, "n1", { kind: "make", text, public: pub });
    assert.ok((await make("draft", false)).ok);
    assert.deepEqual(await rt.store.unpublished(10), [], "no marker for a change never sent");
    assert.ok((await make("posted", true)).ok);
    assert.ok((await make("draft again", false)).ok);
    await rt.bus.flush();
    assert.deepEqual(seen.map((c) => [c.version, c.events.map((e) => e.event)]), [
      [2, [{ kind: "made", text: "posted", public: true }]],
    ]);
    const logged: number[] = [];
    for await (const e of rt.runtime.events(noticeActor, "n1")) logged.push(e.seq);
    assert.deepEqual(logged, [1, 2, 3], "every event stays in the log");
  } finally {
    sub.unsubscribe();
    await rt.close();
  }
});

Deno.test("runtime: a marker swept with a minimum age stays while its actor committed more recently, and goes at a later sweep", async () => {
  const rt = await openTestRuntime();
  try {
    assert.ok((await rt.runtime.ask(accountActor, T, "m5", { kind: "credit", amount: 5 })).ok);
    await rt.bus.flush();
    // Committed just now: a claimed booking's trip is created a moment later, so its marker is
    // left in place rather than cleared and written again.
    assert.equal(await rt.runtime.sweepMarkers(60_000), 0);
    assert.equal((await rt.store.unpublished(10)).length, 1);
    // Kept for the next sweep, which clears it, even when asked for while one that would keep
    // it is under way.
    const aged = rt.runtime.sweepMarkers(60_000);
    assert.equal(await rt.runtime.sweepMarkers(), 1);
    assert.equal(await aged, 0);
    assert.deepEqual(await rt.store.unpublished(10), []);
  } finally {
    await rt.close();
  }
});
