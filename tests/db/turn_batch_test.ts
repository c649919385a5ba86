/** Asks of one turn answered by one run (src/db/turn_batch.ts). */
import assert from "node:assert/strict";
import { turnBatch } from "../../src/db/turn_batch.ts";

Deno.test("turn batch: the asks of one turn go in one run, at most max, the rest in the next", async () => {
  const runs: number[][] = [];
  const double = turnBatch<number, number>(3, (items) => {
    runs.push([...items]);
    return Promise.resolve(items.map((n) => n * 2));
  });
  const answers = await Promise.all([1, 2, 3, 4, 5].map(double));
  assert.deepEqual(answers, [2, 4, 6, 8, 10]);
  assert.deepEqual(runs, [[1, 2, 3], [4, 5]]);
  // A later turn's ask is a run of its own.
  assert.equal(await double(7), 14);
  assert.deepEqual(runs.at(-1), [7]);
});

Deno.test("turn batch: a run that throws rejects its batch; an answer that rejects, its item alone", async () => {
  const failing = turnBatch<number, number>(10, () => Promise.reject(new Error("down")));
  const both = await Promise.allSettled([failing(1), failing(2)]);
  assert.deepEqual(both.map((r) => r.status), ["rejected", "rejected"]);
  const odd = turnBatch<number, number>(
    10,
    (items) => Promise.resolve(items.map((n) => n % 2 ? Promise.reject(new Error(`odd ${n}`)) : n)),
  );
  const mixed = await Promise.allSettled([odd(1), odd(2)]);
  assert.deepEqual(mixed.map((r) => r.status), ["rejected", "fulfilled"]);
  assert.equal((mixed[1] as PromiseFulfilledResult<number>).value, 2);
});
