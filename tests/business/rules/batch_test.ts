import assert from "node:assert/strict";
import { batchHold, stopHold } from "../../../src/business/rules/batch.ts";

Deno.test("batch rules: each claim of a batch has its own hold; a claim or stop from before claim ids keeps the batch's one hold", () => {
  const first = batchHold("BT-1", "bcl_1"), second = batchHold("BT-1", "bcl_2");
  assert.notEqual(first, second);
  assert.notEqual(first, batchHold("BT-2", "bcl_1"));
  // A stop draws from the hold its batch claim named.
  assert.equal(stopHold({ id: "BT-1", hold: second }), second);
  // Stored before: the claim had no id and its stops named no hold: both use the batch's.
  assert.equal(stopHold({ id: "BT-1" }), batchHold("BT-1", undefined));
  assert.equal(batchHold("BT-1", undefined), "batch:BT-1");
});
