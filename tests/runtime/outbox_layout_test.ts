/** How outbox items are laid out in KV and what they add to a commit (pure). */
import assert from "node:assert/strict";
import { outboxItemOf, outboxKey } from "../../src/runtime/kv_layout.ts";
import { encodedKeyBytes, writeCost } from "../../src/runtime/kv_cost.ts";
import type { ActorWrite, OutboxItem } from "../../src/runtime/store.ts";

const item: OutboxItem = {
  outbox: "billing",
  type: "courier_client",
  id: "cli_1",
  tenant: "biz_1",
  seq: 42,
  n: 1,
  at: 1_700_000_000_000,
  payload: { entry: "ent_1" },
  bytes: 17,
};

function writeWith(outbox?: readonly OutboxItem[]): ActorWrite {
  const record = { v: 1, tenant: "biz_1", state: {}, seq: 42, timers: {}, indexes: [] };
  const recordJson = JSON.stringify(record);
  return {
    type: "courier_client",
    id: "cli_1",
    expected: null,
    record,
    events: [],
    indexSet: [],
    indexDelete: [],
    timerSet: [],
    timerDelete: [],
    replies: [],
    recordJson,
    recordBytes: recordJson.length,
    unpublishedFrom: null,
    ...(outbox ? { outbox } : {}),
  };
}

Deno.test("outbox layout: an item's key names its outbox first, and the item is read back whole from key and value", () => {
  const key = outboxKey(item);
  assert.deepEqual(key, ["o", "billing", "courier_client", "cli_1", 42, 1]);
  const { outbox: _o, type: _t, id: _i, seq: _s, n: _n, ...value } = item;
  assert.deepEqual(outboxItemOf(key, value), item);
});

Deno.test("outbox layout: each item is one more mutation of the commit and weighs its payload", () => {
  const without = writeCost(writeWith(), 0);
  const withTwo = writeCost(writeWith([item, { ...item, n: 2, bytes: 1_000 }]), 0);
  assert.equal(withTwo.mutations, without.mutations + 2);
  assert.equal(withTwo.checks, without.checks);
  // Each item: its payload, its value's other fields (64), a value's overhead (128), its key.
  const keys = encodedKeyBytes(outboxKey(item)) + encodedKeyBytes(outboxKey({ ...item, n: 2 }));
  assert.equal(withTwo.keyBytes, without.keyBytes + keys);
  assert.ok(withTwo.bytes >= without.bytes + 17 + 1_000 + 2 * (64 + 128) + 2 * keys);
});
