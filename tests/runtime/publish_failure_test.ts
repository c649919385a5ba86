/**
 * A change whose publication fails (a bus down for a moment) is never taken for delivered: its
 * recovery marker stays until the change is on the bus, and the marker sweep publishes it again.
 */
import assert from "node:assert/strict";
import type {
  ActorChange,
  Bus,
  BusHandler,
  RequestHandler,
  SubscribeOptions,
} from "../../src/bus/bus.ts";
import { MemoryBus } from "../../src/bus/memory_bus.ts";
import { accountActor, type AccountState, handleActor, openTestRuntime } from "./fixtures.ts";

const T = "tenant_publish";

/** The in-process bus, whose next `failures` publications throw as a broken connection does. */
class BrokenFor implements Bus {
  readonly #bus = new MemoryBus();
  constructor(public failures: number) {}
  publish(subject: string, payload: unknown): Promise<void> {
    if (this.failures > 0) {
      this.failures--;
      return Promise.reject(new Error("connection lost"));
    }
    return this.#bus.publish(subject, payload);
  }
  subscribe(pattern: string, handler: BusHandler, options?: SubscribeOptions) {
    return this.#bus.subscribe(pattern, handler, options);
  }
  flush() {
    return this.#bus.flush();
  }
  drain() {
    return this.#bus.drain();
  }
  request(subject: string, payload: unknown, options: { timeoutMs: number }) {
    return this.#bus.request(subject, payload, options);
  }
  serve(subject: string, handler: RequestHandler) {
    return this.#bus.serve(subject, handler);
  }
}

function seqsSeen(bus: Bus): number[] {
  const seen: number[] = [];
  bus.subscribe("test.*.test_account.*", (m) => {
    seen.push(...(m.payload as ActorChange).events.map((e) => e.seq));
  });
  return seen;
}

Deno.test("runtime: a change whose publication failed is published again by the marker sweep, then its marker goes", async () => {
  const bus = new BrokenFor(0);
  const rt = await openTestRuntime(":memory:", { bus });
  try {
    const seen = seqsSeen(bus);
    bus.failures = 1;
    assert.ok((await rt.runtime.ask(accountActor, T, "p1", { kind: "credit", amount: 5 })).ok);
    assert.deepEqual(seen, [], "the commit's publication failed");
    // Closing lets the actor go idle and sweeps its marker.
    await rt.runtime.close();
    assert.deepEqual(seen, [1], "the sweep published the change again");
    assert.deepEqual(await rt.store.unpublished(10), [], "and only then removed the marker");
  } finally {
    await rt.close();
  }
});

Deno.test("runtime: a change still failing to publish keeps its marker, and a restart publishes it", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/store.kv`;
  const bus = new BrokenFor(0);
  const seen = seqsSeen(bus);
  try {
    const first = await openTestRuntime(path, { bus });
    bus.failures = 100; // the commit's publication, and every sweep's while it closes
    assert.ok((await first.runtime.ask(accountActor, T, "p2", { kind: "credit", amount: 5 })).ok);
    await first.runtime.close();
    assert.deepEqual(seen, []);
    assert.deepEqual((await first.store.unpublished(10)).map((u) => u.from), [1], "kept");
    await first.close();
    bus.failures = 0;
    const second = await openTestRuntime(path, { bus });
    await second.close();
    assert.deepEqual(seen, [1], "published at start");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("runtime: an actor read again from the store (after a conflict) keeps its marker at the first change still off the bus", async () => {
  const bus = new BrokenFor(0);
  const rt = await openTestRuntime(":memory:", { bus });
  try {
    const seen: number[] = [];
    bus.subscribe("test.*.test_handle.y", (m) => {
      seen.push(...(m.payload as ActorChange).events.map((e) => e.seq));
    });
    bus.failures = 1;
    assert.ok((await rt.runtime.ask(handleActor, T, "y", { kind: "take", name: "a" })).ok);
    assert.deepEqual(seen, [], "seq 1's publication failed");
    assert.ok((await rt.runtime.ask(handleActor, T, "x", { kind: "take", name: "n" })).ok);
    // Urgent: its claim left to the commit's check, which fails (a conflict): y is read again.
    const taken = await rt.runtime.ask(handleActor, T, "y", { kind: "take", name: "n" }, {
      urgent: true,
    });
    assert.ok(!taken.ok && taken.code === "index_taken");
    assert.ok((await rt.runtime.ask(handleActor, T, "y", { kind: "take", name: "b" })).ok);
    const marker = (await rt.store.unpublished(10)).find((u) => u.id === "y");
    assert.equal(marker?.from, 1, "the stored marker still names seq 1, kept off the bus");
    await rt.runtime.close();
    assert.deepEqual([...new Set(seen)].sort(), [1, 2], "seq 1 published again by the sweep");
  } finally {
    await rt.close();
  }
});

Deno.test("runtime: a change whose publication failed is published by the marker sweep also when its actor was read again from the store since", async () => {
  const bus = new BrokenFor(0);
  const rt = await openTestRuntime(":memory:", { bus });
  try {
    const seen: number[] = [];
    bus.subscribe("test.*.test_handle.y", (m) => {
      seen.push(...(m.payload as ActorChange).events.map((e) => e.seq));
    });
    bus.failures = 1;
    assert.ok((await rt.runtime.ask(handleActor, T, "y", { kind: "take", name: "a" })).ok);
    assert.ok((await rt.runtime.ask(handleActor, T, "x", { kind: "take", name: "n" })).ok);
    // A conflict: y is read again from the store, and commits nothing more.
    const taken = await rt.runtime.ask(handleActor, T, "y", { kind: "take", name: "n" }, {
      urgent: true,
    });
    assert.ok(!taken.ok && taken.code === "index_taken");
    await rt.runtime.close(); // sweeps the markers
    assert.deepEqual(seen, [1], "the sweep published seq 1");
    assert.deepEqual(await rt.store.unpublished(10), [], "and only then removed the marker");
  } finally {
    await rt.close();
  }
});

Deno.test("runtime: the recovery at start reaches the markers stored after a full listing of markers it leaves (of a type not run here)", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/store.kv`;
  const bus = new BrokenFor(0);
  const seen: string[] = [];
  bus.subscribe("test.*.*.*", (m) => {
    seen.push((m.payload as ActorChange).id);
  });
  try {
    const first = await openTestRuntime(path, { bus });
    bus.failures = 1_000; // every publication, and every sweep's while it closes
    const credits = Array.from(
      { length: 100 },
      (_, i) => first.runtime.ask(accountActor, T, `acc${i}`, { kind: "credit", amount: 1 }),
    );
    assert.ok((await Promise.all(credits)).every((r) => r.ok));
    assert.ok((await first.runtime.ask(handleActor, T, "h", { kind: "take", name: "n" })).ok);
    await first.close();
    bus.failures = 0;
    // The accounts' type is not run here: their markers are left as they are.
    const second = await openTestRuntime(path, { bus, definitions: [handleActor] });
    await second.close();
    assert.deepEqual(seen, ["h"], "the handle's change published at start");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("runtime: an actor whose changes cannot be published again at start leaves its marker, is reported once, and the start recovers the others", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/store.kv`;
  const bus = new BrokenFor(0);
  const seen: string[] = [];
  bus.subscribe("test.*.*.*", (m) => {
    seen.push((m.payload as ActorChange).id);
  });
  try {
    const first = await openTestRuntime(path, { bus });
    bus.failures = 1_000; // every publication, and every sweep's while it closes
    for (const [id, amount] of [["a_bad", 13], ["b_good", 1]] as const) {
      assert.ok((await first.runtime.ask(accountActor, T, id, { kind: "credit", amount })).ok);
    }
    assert.ok((await first.runtime.ask(handleActor, T, "h", { kind: "take", name: "n" })).ok);
    await first.close();
    bus.failures = 0;
    // One stored state this version no longer reads: its `load` throws on it.
    const picky = {
      ...accountActor,
      load: (stored: unknown) => {
        if ((stored as AccountState).balance === 13) throw new Error("unreadable state");
        return stored as AccountState;
      },
    };
    const errors: string[] = [];
    const second = await openTestRuntime(path, {
      bus,
      definitions: [picky, handleActor],
      onError: (e, where) => errors.push(`${where}: ${(e as Error).message}`),
    });
    await second.runtime.close();
    assert.deepEqual(seen.sort(), ["b_good", "h"], "the others published at start");
    assert.deepEqual(
      (await second.store.unpublished(10)).map((u) => [u.id, u.from]),
      [["a_bad", 1]],
      "the bad actor's marker stays, for the next recovery",
    );
    assert.equal(errors.length, 1, errors.join("\n"));
    assert.match(errors[0]!, /test_account a_bad.*unreadable state/);
    await second.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
