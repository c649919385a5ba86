/**
 * The trip sequence (Business API 2.2 `id`): blocks reserved one after another never overlap and
 * follow the numbers `next` gave, and a block of a size out of bounds is refused with nothing
 * changed.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  TRIP_NUMBERS_BLOCK_MAX,
  tripSequenceActor,
  type TripSequenceCommand,
} from "../../../actors/business/trip_sequence.ts";
import { ActorHarness } from "../../helpers/actor.ts";

Deno.test("trip sequence: reserves and nexts in any order hand out every number once, from 1", () => {
  const command = fc.oneof(
    fc.constant<TripSequenceCommand>({ kind: "next" }),
    fc.integer({ min: 1, max: TRIP_NUMBERS_BLOCK_MAX })
      .map((count): TripSequenceCommand => ({ kind: "reserve", count })),
  );
  fc.assert(
    fc.property(fc.array(command, { minLength: 1, maxLength: 30 }), (commands) => {
      const h = new ActorHarness(tripSequenceActor);
      const given: number[] = [];
      for (const c of commands) {
        const first = h.must(c).reply!;
        const count = c.kind === "reserve" ? c.count : 1;
        for (let i = 0; i < count; i++) given.push(first + i);
      }
      // Consecutive from 1: no number twice, none skipped by the sequence itself.
      assert.deepEqual(given, given.map((_, i) => i + 1));
      assert.equal(h.state.last, given.length);
      assert.deepEqual(h.replayed(), h.state);
    }),
    { numRuns: 100 },
  );
});

Deno.test("trip sequence: a block of 0, more than the maximum or not an integer is refused", () => {
  const h = new ActorHarness(tripSequenceActor);
  assert.equal(h.must({ kind: "reserve", count: 3 }).reply, 1);
  for (const count of [0, -1, TRIP_NUMBERS_BLOCK_MAX + 1, 1.5, Number.NaN]) {
    h.refused({ kind: "reserve", count }, "invalid_block", /a block holds 1 to 1000/);
  }
  assert.equal(h.must({ kind: "reserve", count: TRIP_NUMBERS_BLOCK_MAX }).reply, 4);
  assert.equal(h.must({ kind: "next" }).reply, TRIP_NUMBERS_BLOCK_MAX + 4);
});

Deno.test("trip sequence: a block past the largest safe integer is refused", () => {
  const h = new ActorHarness(tripSequenceActor, { state: { last: Number.MAX_SAFE_INTEGER - 2 } });
  h.refused({ kind: "reserve", count: 3 }, "sequence_exhausted");
  assert.equal(h.must({ kind: "reserve", count: 2 }).reply, Number.MAX_SAFE_INTEGER - 1);
});
