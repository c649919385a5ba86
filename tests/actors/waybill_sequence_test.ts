import assert from "node:assert/strict";
import fc from "fast-check";
import {
  PLATFORM_TENANT,
  WAYBILL_BLOCK_MAX,
  WAYBILL_SEQUENCE_ID,
  waybillSequenceActor,
} from "../../actors/waybill_sequence.ts";
import { MemoryBus } from "../../src/bus/memory_bus.ts";
import { ManualClock } from "../../src/runtime/clock.ts";
import { KvActorStore } from "../../src/runtime/kv_store.ts";
import { ActorRuntime } from "../../src/runtime/runtime.ts";

function runtimeOn(store: KvActorStore): ActorRuntime {
  return new ActorRuntime({
    env: "test",
    store,
    bus: new MemoryBus(),
    clock: new ManualClock(),
    definitions: [waybillSequenceActor],
    onError: () => {},
  });
}

function reserve(runtime: ActorRuntime, count: number) {
  return runtime.ask(waybillSequenceActor, PLATFORM_TENANT, WAYBILL_SEQUENCE_ID, {
    kind: "reserve",
    count,
  });
}

Deno.test("waybill sequence: blocks asked at once never overlap and leave no number twice", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.integer({ min: 1, max: 50 }), { minLength: 1, maxLength: 40 }),
      async (counts) => {
        const store = await KvActorStore.open(":memory:");
        const runtime = runtimeOn(store);
        try {
          const blocks = await Promise.all(counts.map((n) => reserve(runtime, n)));
          const ranges = blocks.map((b, i) => {
            assert.ok(b.ok, JSON.stringify(b));
            assert.equal(b.reply.to - b.reply.from, counts[i]);
            return b.reply;
          }).sort((a, b) => a.from - b.from);
          // Handed out from 1, one block after another.
          let next = 1;
          for (const r of ranges) {
            assert.equal(r.from, next);
            next = r.to;
          }
        } finally {
          await runtime.close();
          store.close();
        }
      },
    ),
    { numRuns: 20 },
  );
});

Deno.test("waybill sequence: after a restart the next block follows the last, and bad sizes are refused", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const first = await KvActorStore.open(`${dir}/kv.sqlite`);
    const before = runtimeOn(first);
    const a = await reserve(before, 1_000);
    assert.ok(a.ok);
    assert.deepEqual(a.reply, { from: 1, to: 1_001 });
    for (const count of [0, -1, 1.5, WAYBILL_BLOCK_MAX + 1]) {
      const bad = await reserve(before, count);
      assert.ok(!bad.ok);
      assert.equal(bad.code, "invalid_block");
    }
    await before.close();
    first.close();
    const again = await KvActorStore.open(`${dir}/kv.sqlite`);
    const after = runtimeOn(again);
    const b = await reserve(after, 10);
    assert.ok(b.ok);
    assert.deepEqual(b.reply, { from: 1_001, to: 1_011 }, "no number is handed out twice");
    await after.close();
    again.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
