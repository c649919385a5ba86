/** A claim's credit divided into a note on the booked price and compensation above it. */
import assert from "node:assert/strict";
import fc from "fast-check";
import { compensationSplit } from "../../../src/courier/rules/ledger.ts";

Deno.test("compensation split: the note takes the entry to zero at most, compensation is the rest", () => {
  assert.deepEqual(compensationSplit(8_892, -500_000), {
    note_minor: -8_892,
    above_minor: -491_108,
  });
  assert.deepEqual(compensationSplit(8_892, -1_000), { note_minor: -1_000, above_minor: 0 });
  assert.deepEqual(compensationSplit(0, -1_000), { note_minor: 0, above_minor: -1_000 });
  // Already credited below zero (a note from before the split): nothing more on the entry.
  assert.deepEqual(compensationSplit(-300, -1_000), { note_minor: 0, above_minor: -1_000 });
});

Deno.test("compensation split: the parts add up to the credit and never take the entry below zero", () => {
  fc.assert(fc.property(
    fc.integer({ min: -1_000_000, max: 1_000_000 }),
    fc.integer({ min: -1_000_000, max: -1 }),
    (net, credit) => {
      const { note_minor, above_minor } = compensationSplit(net, credit);
      assert.equal(note_minor + above_minor, credit);
      assert.ok(note_minor <= 0 && above_minor <= 0);
      assert.ok(net + note_minor >= Math.min(net, 0));
      // Compensation only once the entry holds nothing more.
      if (above_minor < 0) assert.equal(net + note_minor, Math.min(net, 0));
    },
  ));
});
