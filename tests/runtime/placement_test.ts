import assert from "node:assert/strict";
import fc from "fast-check";
import { PARTITIONS } from "../../src/limits.ts";
import { partitionOf, partitionsHeld, WholePlacement } from "../../src/runtime/placement.ts";

Deno.test("placement: an actor's partition is stable, in range and spreads actors evenly", () => {
  fc.assert(fc.property(fc.string(), fc.string(), (type, id) => {
    const p = partitionOf({ type, id });
    assert.ok(Number.isInteger(p) && p >= 0 && p < PARTITIONS);
    assert.equal(partitionOf({ type, id }), p);
  }));
  // Pinned values: the hash must never change, or stored actors would change partition.
  assert.equal(partitionOf({ type: "wallet", id: "biz_1" }), 17);
  assert.equal(partitionOf({ type: "trip", id: "x" }), 18);
  const counts = new Array(PARTITIONS).fill(0);
  for (let i = 0; i < PARTITIONS * 200; i++) counts[partitionOf({ type: "trip", id: `t${i}` })]++;
  assert.ok(Math.min(...counts) > 100 && Math.max(...counts) < 300, `${counts}`);
});

Deno.test("placement: one instance alone holds every partition", () => {
  const p = new WholePlacement("a");
  for (let i = 0; i < PARTITIONS; i++) {
    assert.equal(p.held(i), 0);
    assert.equal(p.ownerOf(i), "a");
  }
});

Deno.test("placement: the partitions held are listed in order, none when nothing is held", () => {
  assert.deepEqual(partitionsHeld(new WholePlacement("a")), [...Array(PARTITIONS).keys()]);
  const odd = {
    instance: "b",
    held: (p: number) => p % 2 === 1 ? 3 : undefined,
    ownerOf: () => "b",
    onChange: () => () => {},
  };
  assert.deepEqual(partitionsHeld(odd), [...Array(PARTITIONS / 2).keys()].map((i) => 2 * i + 1));
  assert.deepEqual(partitionsHeld({ ...odd, held: () => undefined }), []);
});
