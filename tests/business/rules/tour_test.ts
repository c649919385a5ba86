import assert from "node:assert/strict";
import fc from "fast-check";
import {
  cheapestInsertion,
  type Distances,
  drivingOrder,
  isTwoOptimal,
  optimalLength,
  tourLength,
  twoOpt,
} from "../../../src/business/rules/tour.ts";

/** The Euclidean distances between points in the plane. */
function matrix(points: readonly (readonly [number, number])[]): Distances {
  return points.map(([x1, y1]) => points.map(([x2, y2]) => Math.hypot(x1 - x2, y1 - y2)));
}

/** Every order of 1..n-1 after 0: the brute-force optimum, independent of Held-Karp. */
function bruteForce(d: Distances): number {
  const rest = d.map((_, i) => i).slice(1);
  let best = Infinity;
  const walk = (path: number[], left: number[]) => {
    if (left.length === 0) best = Math.min(best, tourLength(d, path));
    for (const p of left) walk([...path, p], left.filter((x) => x !== p));
  };
  walk([0], rest);
  return best;
}

const point = fc.tuple(fc.integer({ min: 0, max: 1000 }), fc.integer({ min: 0, max: 1000 }));

Deno.test("tour: the driving order on a known layout is the road along the line", () => {
  // Start at 0, stops scattered along one line: the shortest open path calls in line order.
  const d = matrix([[0, 0], [30, 0], [10, 0], [40, 0], [20, 0]]);
  const order = drivingOrder(d);
  assert.deepEqual(order, [0, 2, 4, 1, 3]);
  assert.equal(tourLength(d, order), 40);
});

Deno.test("tour: a crossing path is uncrossed by 2-opt", () => {
  // 0 -> 2 -> 1 -> 3 crosses itself on the square's diagonals; 2-opt removes the crossing.
  const d = matrix([[0, 0], [0, 10], [10, 0], [10, 10]]);
  const crossed = [0, 3, 1, 2];
  assert.ok(!isTwoOptimal(d, crossed));
  const fixed = twoOpt(d, crossed);
  assert.ok(isTwoOptimal(d, fixed));
  assert.equal(tourLength(d, fixed), 30);
});

Deno.test("tour: Held-Karp agrees with brute force on small batches", () => {
  fc.assert(
    fc.property(fc.array(point, { minLength: 1, maxLength: 7 }), (pts) => {
      const d = matrix(pts);
      assert.ok(Math.abs(optimalLength(d) - bruteForce(d)) < 1e-6);
    }),
    { numRuns: 100 },
  );
});

Deno.test("tour: the heuristic visits every stop once, never beats the optimum, is 2-opt-optimal", () => {
  fc.assert(
    fc.property(fc.array(point, { minLength: 1, maxLength: 9 }), (pts) => {
      const d = matrix(pts);
      const order = drivingOrder(d);
      assert.equal(order[0], 0);
      assert.deepEqual([...order].sort((a, b) => a - b), pts.map((_, i) => i));
      assert.ok(tourLength(d, order) >= optimalLength(d) - 1e-6);
      assert.ok(isTwoOptimal(d, order));
      // 2-opt never lengthens what cheapest insertion found.
      assert.ok(tourLength(d, order) <= tourLength(d, cheapestInsertion(d)) + 1e-6);
    }),
    { numRuns: 200 },
  );
});
