/**
 * The actors in memory (src/runtime/mailboxes.ts): past the most kept active, idle ones are let
 * go, least recently used first; one whose command waits is never let go (two cells would then
 * serve one actor).
 */
import assert from "node:assert/strict";
import { MemoryBus } from "../../src/bus/memory_bus.ts";
import { ManualClock } from "../../src/runtime/clock.ts";
import { KvActorStore } from "../../src/runtime/kv_store.ts";
import { ActorRuntime } from "../../src/runtime/runtime.ts";
import type { ActorKey, ActorStore, ActorWrite } from "../../src/runtime/store.ts";
import { accountActor } from "./fixtures.ts";

const T = "biz_mailboxes";

/** The store, whose commits wait for `landing` and whose loads are noted by actor id. */
function heldCommits(store: ActorStore, landing: Promise<void>, loads: string[]): ActorStore {
  return new Proxy(store, {
    get(target, name) {
      if (name === "commit") {
        return async (writes: readonly ActorWrite[]) => {
          await landing;
          return target.commit(writes);
        };
      }
      if (name === "load") {
        return (key: ActorKey) => {
          loads.push(key.id);
          return target.load(key);
        };
      }
      const value = Reflect.get(target, name, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

Deno.test("mailboxes: a new actor is not let go while its commands wait, however many others are busy: one cell serves it, reading it once", async () => {
  const kv = await KvActorStore.open(":memory:");
  let land = () => {};
  const landing = new Promise<void>((r) => land = r);
  const loads: string[] = [];
  const runtime = new ActorRuntime({
    env: "test",
    store: heldCommits(kv, landing, loads),
    bus: new MemoryBus(),
    clock: new ManualClock(),
    definitions: [accountActor],
    actorsActiveMax: 10,
    onError: () => {},
  });
  try {
    await runtime.start();
    const credit = (id: string, amount: number) =>
      runtime.ask(accountActor, T, id, { kind: "credit", amount });
    // Every actor in memory busy: each waits on its commit.
    const busy = Array.from({ length: 10 }, (_, i) => credit(`busy${i}`, 1));
    const asks = [credit("new", 1), credit("new", 2)];
    assert.equal(runtime.activeActors, 11, "the new actor stays in memory while it works");
    land();
    assert.ok((await Promise.all([...busy, ...asks])).every((r) => r.ok));
    assert.deepEqual(loads.filter((id) => id === "new"), ["new"], "read once, by one cell");
    const got = await runtime.ask(accountActor, T, "new", { kind: "get" });
    assert.ok(got.ok && got.reply.balance === 3);
  } finally {
    land();
    await runtime.close();
    kv.close();
  }
});
