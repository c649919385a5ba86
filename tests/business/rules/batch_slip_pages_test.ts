/**
 * A batch's packing slips in one request are bounded (Business API 4.2): a slip a piece of each
 * stop (order_payload.pieces up to PIECES_MAX), plus the labels asked for, at most
 * BATCH_SLIP_PAGES_MAX pages, so 50 stops of 1,000 pieces are refused before anything is built.
 */
import assert from "node:assert/strict";
import {
  BATCH_SLIP_PAGES_MAX,
  batchSlipPages,
  PIECES_MAX,
} from "../../../src/business/rules/documents/facts.ts";

Deno.test("batchSlipPages(): a page a piece of each stop (one without pieces), plus the labels", () => {
  assert.equal(batchSlipPages([{ pieces: null }, { pieces: 3 }], 0), 4);
  assert.equal(batchSlipPages([{ pieces: null }, { pieces: 3 }], 2), 6);
  assert.equal(batchSlipPages([], 0), 0);
});

Deno.test("batchSlipPages(): 50 stops of the most pieces run past the bound; 50 single pieces with labels do not", () => {
  const full = Array.from({ length: 50 }, () => ({ pieces: PIECES_MAX }));
  assert.ok(batchSlipPages(full, 50) > BATCH_SLIP_PAGES_MAX);
  const plain = Array.from({ length: 50 }, () => ({ pieces: null }));
  assert.ok(batchSlipPages(plain, 50) <= BATCH_SLIP_PAGES_MAX);
  // A stop's pieces are bounded as its own slip's are.
  assert.equal(batchSlipPages([{ pieces: 10 * PIECES_MAX }], 0), PIECES_MAX);
});
