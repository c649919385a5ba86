/**
 * The trip numbers' allocator (src/business/flows/trip_numbers.ts): blocks sized to demand, one
 * reservation in flight per business, numbers unique and in the order they were asked for. The
 * reservation is injected: a sequence in memory whose answers the test releases.
 */
import assert from "node:assert/strict";
import {
  nextBlockSize,
  TRIP_BLOCK_MAX,
  TRIP_BLOCK_QUICK_MS,
  TRIP_BLOCK_SLOW_MS,
  TripNumberBlocks,
} from "../../../src/business/flows/trip_numbers.ts";

/** A sequence per business as the actor keeps it, answering when the test lets it. */
class Sequences {
  readonly last = new Map<string, number>();
  /** Every reservation asked: business and count. */
  readonly asked: { business: string; count: number }[] = [];
  inFlight = 0;
  maxInFlight = 0;
  #gate: PromiseWithResolvers<void> | null = null;
  failNext = false;

  /** Holds the answers until release(). */
  hold() {
    this.#gate = Promise.withResolvers<void>();
  }

  release() {
    this.#gate?.resolve();
    this.#gate = null;
  }

  readonly reserve = async (business: string, count: number) => {
    this.asked.push({ business, count });
    this.maxInFlight = Math.max(this.maxInFlight, ++this.inFlight);
    try {
      await this.#gate?.promise;
      if (this.failNext) {
        this.failNext = false;
        throw new Error("the sequence's holder is gone");
      }
      const first = (this.last.get(business) ?? 0) + 1;
      this.last.set(business, first + count - 1);
      return first;
    } finally {
      this.inFlight--;
    }
  };
}

Deno.test("trip numbers: a block used up quickly doubles up to the maximum, one that lasted long halves", () => {
  assert.equal(nextBlockSize(1, 0), 2);
  assert.equal(nextBlockSize(8, TRIP_BLOCK_QUICK_MS), 16);
  assert.equal(nextBlockSize(TRIP_BLOCK_MAX, 0), TRIP_BLOCK_MAX);
  assert.equal(nextBlockSize(8, TRIP_BLOCK_QUICK_MS + 1), 8);
  assert.equal(nextBlockSize(8, TRIP_BLOCK_SLOW_MS), 4);
  assert.equal(nextBlockSize(1, TRIP_BLOCK_SLOW_MS * 10), 1);
});

Deno.test("trip numbers: 50 bookings at once wait for one reservation at a time and get 1 to 50 in order", async () => {
  const seq = new Sequences();
  const numbers = new TripNumberBlocks(seq.reserve, () => 0);
  seq.hold();
  const taken = Array.from({ length: 50 }, () => numbers.take("b1"));
  // Another business is not held up by b1's reservation.
  const other = numbers.take("b2");
  await Promise.resolve();
  assert.deepEqual(seq.asked, [{ business: "b1", count: 1 }, { business: "b2", count: 1 }]);
  seq.release();
  assert.deepEqual(await Promise.all(taken), Array.from({ length: 50 }, (_, i) => i + 1));
  assert.equal(await other, 1);
  // The 49 that waited were served by one reservation sized for them.
  assert.deepEqual(seq.asked.filter((a) => a.business === "b1").map((a) => a.count), [1, 49]);
  assert.equal(seq.maxInFlight, 2, "one per business");
});

Deno.test("trip numbers: sequential bookings on a busy business reserve blocks of 1, 2, 4 ... 64 and lose none", async () => {
  const seq = new Sequences();
  const numbers = new TripNumberBlocks(seq.reserve, () => 0);
  const got: number[] = [];
  for (let i = 0; i < 300; i++) got.push(await numbers.take("b1"));
  assert.deepEqual(got, got.map((_, i) => i + 1));
  assert.deepEqual(seq.asked.map((a) => a.count).slice(0, 8), [1, 2, 4, 8, 16, 32, 64, 64]);
  assert.equal(seq.asked.length, 7 + Math.ceil((300 - 127) / 64));
});

Deno.test("trip numbers: a business gone quiet gets smaller blocks, so a restart loses few numbers", async () => {
  const seq = new Sequences();
  let now = 0;
  const numbers = new TripNumberBlocks(seq.reserve, () => now);
  for (let i = 0; i < 127; i++) await numbers.take("b1");
  assert.equal(numbers.blockSize("b1"), TRIP_BLOCK_MAX);
  // One booking every two minutes from now on: each block lasts long, the next is half.
  for (let i = 0; i < 64 + 32 + 16; i++) {
    now += 2 * 60_000;
    await numbers.take("b1");
  }
  assert.deepEqual(seq.asked.slice(-3).map((a) => a.count), [64, 32, 16]);
  now += 2 * 60_000;
  await numbers.take("b1");
  assert.equal(seq.asked.at(-1)!.count, 8);
  // Stopped here: the numbers of the block in memory are gaps, never handed out again.
  await numbers.close();
  const restarted = new TripNumberBlocks(seq.reserve, () => now);
  assert.equal(await restarted.take("b1"), 127 + 64 + 32 + 16 + 8 + 1);
});

Deno.test("trip numbers: a failed reservation fails the bookings waiting for it, and the next booking reserves again", async () => {
  const seq = new Sequences();
  const numbers = new TripNumberBlocks(seq.reserve, () => 0);
  seq.hold();
  seq.failNext = true;
  const waiting = [numbers.take("b1"), numbers.take("b1")];
  seq.release();
  for (const w of waiting) await assert.rejects(w, /holder is gone/);
  assert.equal(await numbers.take("b1"), 1);
  assert.equal(seq.inFlight, 0);
});

Deno.test("trip numbers: ready() reserves beside the charge; the take after it waits for that reservation, not another", async () => {
  const seq = new Sequences();
  const numbers = new TripNumberBlocks(seq.reserve, () => 0);
  seq.hold();
  numbers.ready("b1");
  numbers.ready("b1"); // one reservation in flight at a time
  assert.deepEqual(seq.asked, [{ business: "b1", count: 1 }]);
  const taken = numbers.take("b1");
  seq.release();
  assert.equal(await taken, 1);
  assert.equal(seq.asked.length, 1);
  // A refused charge takes nothing: what was reserved ahead is the next booking's (a block of
  // 2 now, the first used up at once).
  numbers.ready("b1");
  numbers.ready("b1");
  assert.equal(await numbers.take("b1"), 2);
  assert.deepEqual(seq.asked.at(-1), { business: "b1", count: 2 });
  // A number left in the block: nothing to reserve.
  const before = seq.asked.length;
  numbers.ready("b1");
  assert.equal(seq.asked.length, before);
  assert.equal(await numbers.take("b1"), 3);
  numbers.ready("b1");
  assert.equal(seq.asked.length, before + 1);
  assert.equal(await numbers.take("b1"), 4);
});

Deno.test("trip numbers: a reservation begun ahead that fails fails nobody; the next take reserves again", async () => {
  const seq = new Sequences();
  const numbers = new TripNumberBlocks(seq.reserve, () => 0);
  seq.failNext = true;
  numbers.ready("b1");
  // Its failure is handled within the allocator: no booking waited, nothing is left rejected.
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(seq.asked.length, 1);
  assert.equal(await numbers.take("b1"), 1);
  assert.equal(seq.asked.length, 2);
  assert.equal(seq.inFlight, 0);
});
