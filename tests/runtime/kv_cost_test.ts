import assert from "node:assert/strict";
import { encodedKeyBytes } from "../../src/runtime/kv_cost.ts";
import { STORE_KEY_BYTES_MAX } from "../../src/limits.ts";

/** A key of the given shape padded (in its last string part) to `bytes` as the estimate counts. */
function keyOf(head: Deno.KvKey, bytes: number): Deno.KvKey {
  const pad = bytes - encodedKeyBytes([...head, ""]);
  return [...head, "p".repeat(pad)];
}

Deno.test("kv cost: a key's encoded size is counted as Deno KV counts it: one at the 2 KiB limit is written, one byte more is refused", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const shapes: Deno.KvKey[] = [
      ["r", "test_type", "id_1"],
      ["e", "test_type", "é€ and ☃", 42],
      ["i", "an\u0000index", new Uint8Array([0, 1, 0, 2]), 7n, true],
      ["x", -300n, 2n ** 70n, 0n, 1.5, false],
    ];
    for (const head of shapes) {
      const fits = keyOf(head, STORE_KEY_BYTES_MAX);
      assert.equal(encodedKeyBytes(fits), STORE_KEY_BYTES_MAX);
      assert.ok((await kv.set(fits, 1)).ok, `${String(head[1])}: written at the limit`);
      const over = keyOf(head, STORE_KEY_BYTES_MAX + 1);
      await assert.rejects(kv.set(over, 1), /Key too large for write/);
    }
  } finally {
    kv.close();
  }
});
