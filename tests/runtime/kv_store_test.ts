import assert from "node:assert/strict";
import { KvActorStore } from "../../src/runtime/kv_store.ts";

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
