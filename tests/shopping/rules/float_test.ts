import assert from "node:assert/strict";
import fc from "fast-check";
import {
  basketComplete,
  type FinishedLine,
  type FinishedStore,
  lineRefundMinor,
  reconcile,
  type StorePart,
  storePart,
} from "../../../src/shopping/rules/float.ts";

function line(over: Partial<FinishedLine> = {}): FinishedLine {
  return {
    external_item_id: "L",
    qty: 3,
    unit_price_minor: 1_250,
    outcome: "found",
    qty_found: 3,
    ...over,
  };
}

function store(over: Partial<FinishedStore> = {}): FinishedStore {
  return {
    store_id: "c.0",
    status: "collected",
    estimated_amount_minor: 10_000,
    collected_amount_minor: 9_730,
    lines: [line()],
    ...over,
  };
}

Deno.test("shopping float: unavailable lines refunded whole, short ones by the shortfall, exactly", () => {
  assert.equal(lineRefundMinor(line()), 0);
  assert.equal(lineRefundMinor(line({ outcome: "unavailable", qty_found: 0 })), 3_750);
  assert.equal(lineRefundMinor(line({ qty_found: 1 })), 2_500);
  // A substitute packed in the line's place is no refund; short, the shortfall is.
  assert.equal(lineRefundMinor(line({ outcome: "substituted", qty_found: 3 })), 0);
  assert.equal(lineRefundMinor(line({ outcome: "substituted", qty_found: 2 })), 1_250);
  // Without an expected price the refund is the merchant's to price: null, counted apart.
  assert.equal(lineRefundMinor(line({ outcome: "unavailable", unit_price_minor: null })), null);
});

Deno.test("shopping float: a store's part and the order's reconciliation, to the minor unit", () => {
  const collected = storePart(store({
    lines: [line(), line({ outcome: "unavailable", qty_found: 0 }), line({ qty_found: 2 })],
  }))!;
  assert.deepEqual(collected, {
    store_id: "c.0",
    status: "collected",
    estimated_minor: 10_000,
    spent_minor: 9_730,
    difference_minor: -270,
    refund_minor: 3_750 + 1_250,
    lines_refunded: 2,
    lines_unpriced: 0,
  });
  const gone = storePart(store({
    store_id: "c.1",
    status: "unavailable",
    estimated_amount_minor: 4_000,
    collected_amount_minor: null,
    lines: [line({ outcome: "unavailable", qty_found: 0, unit_price_minor: null })],
  }))!;
  assert.equal(gone.spent_minor, 0);
  assert.equal(gone.lines_unpriced, 1);
  assert.equal(storePart(store({ status: "pending" })), null);
  assert.deepEqual(reconcile(15_000, [collected, gone]), {
    purchase_minor: 15_000,
    estimated_minor: 14_000,
    spent_minor: 9_730,
    difference_minor: -4_270,
    float_returned_minor: 5_270,
    refund_minor: 5_000,
    charge_minor: 9_730,
  });
  assert.equal(basketComplete(["c.0", "c.1"], { "c.0": collected }), false);
  assert.equal(basketComplete(["c.0", "c.1"], { "c.0": collected, "c.1": gone }), true);
});

const lineArb = fc.record({
  external_item_id: fc.string({ maxLength: 4 }),
  qty: fc.integer({ min: 1, max: 50 }),
  unit_price_minor: fc.option(fc.integer({ min: 0, max: 1_000_000 }), { nil: null }),
  outcome: fc.constantFrom("found", "substituted", "unavailable") as fc.Arbitrary<
    FinishedLine["outcome"]
  >,
  qty_found: fc.option(fc.integer({ min: 0, max: 60 }), { nil: null }),
});

const storeArb = fc.record({
  store_id: fc.uuid(),
  status: fc.constantFrom("collected", "unavailable") as fc.Arbitrary<"collected" | "unavailable">,
  estimated_amount_minor: fc.integer({ min: 0, max: 10_000_000 }),
  collected_amount_minor: fc.option(fc.integer({ min: 0, max: 10_000_000 }), { nil: null }),
  lines: fc.array(lineArb, { minLength: 1, maxLength: 20 }),
});

Deno.test("shopping float: totals balance to the minor unit (property)", () => {
  fc.assert(
    fc.property(
      fc.array(storeArb, { minLength: 1, maxLength: 20 }),
      fc.integer({ min: 0, max: 300_000_000 }),
      (stores, purchase) => {
        const parts = stores.map((s) => storePart(s)!) as StorePart[];
        const r = reconcile(purchase, parts);
        // The float: what was spent plus what comes back is what was fronted.
        assert.equal(r.spent_minor + r.float_returned_minor, r.purchase_minor);
        assert.equal(r.estimated_minor + r.difference_minor, r.spent_minor);
        assert.equal(r.charge_minor, r.spent_minor);
        // Per store and per line, summed, exactly the totals.
        assert.equal(parts.reduce((a, p) => a + p.spent_minor, 0), r.spent_minor);
        const lineRefunds = stores.flatMap((s) => s.lines.map((l) => lineRefundMinor(l) ?? 0));
        assert.equal(lineRefunds.reduce((a, b) => a + b, 0), r.refund_minor);
        for (const [i, p] of parts.entries()) {
          assert.ok(Number.isSafeInteger(p.refund_minor) && p.refund_minor >= 0);
          if (stores[i]!.status === "unavailable") assert.equal(p.spent_minor, 0);
        }
      },
    ),
    { numRuns: 300 },
  );
});
