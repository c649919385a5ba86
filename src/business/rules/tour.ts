/**
 * A batch's driving order (Business API 2.3; cheapest insertion, then 2-opt and Or-opt): the driver
 * leaves the first pickup and calls at every stop once; the tour is an open path (no return).
 * Pure: distances come as a matrix, so the rule knows nothing of maps or of the batch.
 */

/** `d[i][j]`: the cost from point i to point j; point 0 is the start. */
export type Distances = readonly (readonly number[])[];

function at(d: Distances, i: number, j: number): number {
  return d[i]![j]!;
}

/** The length of an open path through the points in order. */
export function tourLength(d: Distances, order: readonly number[]): number {
  let sum = 0;
  for (let k = 1; k < order.length; k++) sum += at(d, order[k - 1]!, order[k]!);
  return sum;
}

/**
 * Cheapest insertion: from [0], each round inserts the point whose insertion costs least, where
 * it costs least (the end of the path included, since the path is open).
 */
export function cheapestInsertion(d: Distances): number[] {
  const n = d.length;
  const path = [0];
  const left = new Set<number>();
  for (let i = 1; i < n; i++) left.add(i);
  while (left.size > 0) {
    let best = { point: -1, after: -1, cost: Infinity };
    for (const p of left) {
      for (let k = 0; k < path.length; k++) {
        const a = path[k]!, b = path[k + 1];
        const cost = b === undefined ? at(d, a, p) : at(d, a, p) + at(d, p, b) - at(d, a, b);
        if (cost < best.cost) best = { point: p, after: k, cost };
      }
    }
    path.splice(best.after + 1, 0, best.point);
    left.delete(best.point);
  }
  return path;
}

/** What reversing order[i..j] saves (the start stays first; j may be the open end). */
function twoOptGain(d: Distances, o: readonly number[], i: number, j: number): number {
  const a = o[i - 1]!, b = o[i]!, c = o[j]!, e = o[j + 1];
  const before = at(d, a, b) + (e === undefined ? 0 : at(d, c, e));
  const after = at(d, a, c) + (e === undefined ? 0 : at(d, b, e));
  return before - after;
}

/** A gain this small is rounding, not a shorter tour: it would make 2-opt loop. */
const GAIN_EPSILON = 1e-9;

/** 2-opt: reverses a segment while any reversal shortens the path; the start stays first. */
export function twoOpt(d: Distances, order: readonly number[]): number[] {
  const o = [...order];
  let improved = true;
  while (improved) {
    improved = false;
    for (let i = 1; i < o.length - 1; i++) {
      for (let j = i + 1; j < o.length; j++) {
        if (twoOptGain(d, o, i, j) <= GAIN_EPSILON) continue;
        const segment = o.slice(i, j + 1).reverse();
        o.splice(i, segment.length, ...segment);
        improved = true;
      }
    }
  }
  return o;
}

/** Whether no single 2-opt reversal shortens the path (what twoOpt promises). */
export function isTwoOptimal(d: Distances, order: readonly number[]): boolean {
  for (let i = 1; i < order.length - 1; i++) {
    for (let j = i + 1; j < order.length; j++) {
      if (twoOptGain(d, order, i, j) > GAIN_EPSILON) return false;
    }
  }
  return true;
}

/** The longest run of stops Or-opt moves at once (the usual 1 to 3). */
const OR_OPT_SEGMENT_MAX = 3;

/** What taking o[i..k] out saves: its two edges, less the edge that closes the gap. */
function removalGain(d: Distances, o: readonly number[], i: number, k: number): number {
  const p = o[i - 1]!, next = o[k + 1];
  if (next === undefined) return at(d, p, o[i]!);
  return at(d, p, o[i]!) + at(d, o[k]!, next) - at(d, p, next);
}

/** What putting a run from `f` to `l` between a and b (undefined: the end) costs. */
function insertionCost(d: Distances, a: number, b: number | undefined, f: number, l: number) {
  return b === undefined ? at(d, a, f) : at(d, a, f) + at(d, l, b) - at(d, a, b);
}

/**
 * One Or-opt move: the first run of 1 to 3 stops that, moved between two other stops or to the
 * end (turned round or not), shortens the path; null when none does. The start stays first.
 */
function orOptMove(d: Distances, o: readonly number[]): number[] | null {
  const n = o.length;
  for (let size = 1; size <= OR_OPT_SEGMENT_MAX; size++) {
    for (let i = 1; i + size <= n; i++) {
      const k = i + size - 1, saved = removalGain(d, o, i, k);
      // Each edge (o[m], o[m+1]) outside the run and its two neighbours' edges; m = n-1: the end.
      for (let m = 0; m < n; m++) {
        if (m >= i - 1 && m <= k) continue;
        const a = o[m]!, b = m + 1 < n ? o[m + 1] : undefined;
        const last = k === n - 1 ? o[i - 1]! : o[n - 1]!;
        if (b === undefined && a !== last) continue;
        for (const turned of [false, true]) {
          const f = turned ? o[k]! : o[i]!, l = turned ? o[i]! : o[k]!;
          if (saved - insertionCost(d, a, b, f, l) <= GAIN_EPSILON) continue;
          const run = o.slice(i, k + 1);
          if (turned) run.reverse();
          const rest = [...o.slice(0, i), ...o.slice(k + 1)];
          const at = rest.indexOf(a) + 1;
          return [...rest.slice(0, at), ...run, ...rest.slice(at)];
        }
      }
    }
  }
  return null;
}

/**
 * The driving order: cheapest insertion, then 2-opt and Or-opt in turn until neither shortens
 * the path ("or better" than 2-opt alone). Point 0 first; the result is 2-opt-optimal.
 */
export function drivingOrder(d: Distances): number[] {
  if (d.length <= 2) return d.map((_, i) => i);
  let o = twoOpt(d, cheapestInsertion(d));
  for (let moved = orOptMove(d, o); moved !== null; moved = orOptMove(d, o)) {
    o = twoOpt(d, moved);
  }
  return o;
}

/** Held-Karp is exponential: a bound that keeps its table small (2^16 x 16 numbers). */
export const EXACT_POINTS_MAX = 16;

/**
 * The shortest open path from point 0 through every point (Held-Karp dynamic programming): the
 * exact optimum the heuristic is measured against (tests, bench), never used to book.
 */
export function optimalLength(d: Distances): number {
  const n = d.length;
  if (n > EXACT_POINTS_MAX) throw new RangeError(`at most ${EXACT_POINTS_MAX} points: ${n}`);
  if (n <= 1) return 0;
  const m = n - 1; // points 1..n-1 as bits 0..m-1
  const full = (1 << m) - 1;
  const best = new Float64Array((1 << m) * m).fill(Infinity);
  for (let j = 0; j < m; j++) best[(1 << j) * m + j] = at(d, 0, j + 1);
  for (let set = 1; set <= full; set++) {
    for (let j = 0; j < m; j++) {
      const here = best[set * m + j]!;
      if (!(set & (1 << j)) || here === Infinity) continue;
      for (let k = 0; k < m; k++) {
        if (set & (1 << k)) continue;
        const next = (set | (1 << k)) * m + k;
        const cost = here + at(d, j + 1, k + 1);
        if (cost < best[next]!) best[next] = cost;
      }
    }
  }
  let min = Infinity;
  for (let j = 0; j < m; j++) min = Math.min(min, best[full * m + j]!);
  return min;
}
