import assert from "node:assert/strict";
import fc from "fast-check";
import {
  WAYBILL_BLOCK_MAX,
  WAYBILL_SEQUENCE_ID,
  waybillSequenceActor,
} from "../../../actors/courier/waybill_sequence.ts";
import type { ActorRuntime } from "../../../src/runtime/runtime.ts";
import { openTestRuntime } from "../../runtime/fixtures.ts";
import { PLATFORM_TENANT } from "../../../actors/platform/platform_settings.ts";

const definitions = [waybillSequenceActor];

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
        const { runtime, close } = await openTestRuntime(":memory:", { definitions });
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
          await close();
        }
      },
    ),
    { numRuns: 20 },
  );
});

Deno.test("waybill sequence: after a restart the next block follows the last, and bad sizes are refused", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const before = await openTestRuntime(`${dir}/kv.sqlite`, { definitions });
    const a = await reserve(before.runtime, 1_000);
    assert.ok(a.ok);
    assert.deepEqual(a.reply, { from: 1, to: 1_001 });
    for (const count of [0, -1, 1.5, WAYBILL_BLOCK_MAX + 1]) {
      const bad = await reserve(before.runtime, count);
      assert.ok(!bad.ok);
      assert.equal(bad.code, "invalid_block");
    }
    await before.close();
    const after = await openTestRuntime(`${dir}/kv.sqlite`, { definitions });
    const b = await reserve(after.runtime, 10);
    assert.ok(b.ok);
    assert.deepEqual(b.reply, { from: 1_001, to: 1_011 }, "no number is handed out twice");
    // A block asked from a floor starts there, and later blocks follow it.
    const floor = await after.runtime.ask(
      waybillSequenceActor,
      PLATFORM_TENANT,
      WAYBILL_SEQUENCE_ID,
      {
        kind: "reserve",
        count: 5,
        at_least: 2 ** 52,
      },
    );
    assert.ok(floor.ok);
    assert.deepEqual(floor.reply, { from: 2 ** 52, to: 2 ** 52 + 5 });
    const next = await reserve(after.runtime, 1);
    assert.ok(next.ok);
    assert.equal(next.reply.from, 2 ** 52 + 5);
    await after.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
