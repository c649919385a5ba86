/**
 * The delivery engine's due set and recipient rate (issue 42 item 4), pure: tenants and their
 * recipients are served in turn, each tenant holds at most its share, a full set makes room by
 * dropping a hint of the tenant holding most, and a recipient's attempts are counted per second.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import type { Recipient } from "../../../actors/platform/outbound_event/mod.ts";
import { type Due, DueSet, recipientOf } from "../../../src/platform/reactors/due_set.ts";
import { RecipientRate } from "../../../src/platform/reactors/recipient_rate.ts";
import { ATTEMPT_LEASE_MS } from "../../../src/platform/rules/delivery_schedule.ts";
import {
  DELIVERY_LIMITS,
  deliveryLimits,
  DUE_SET_MAX,
  RECIPIENT_ATTEMPTS_PER_SECOND_MAX,
  TENANT_DUE_SET_MAX,
} from "../../../src/platform/reactors/delivery_limits.ts";

function due(tenant: string, id: string, recipient?: Recipient): [string, Due] {
  return [
    `${tenant}/${id}`,
    { tenant, id, ...(recipient ? { hint: { due_at: 0, recipient, backlog: false } } : {}) },
  ];
}

const all = () => true;

Deno.test("due set: a tenant with many due events is served in turn with the others, not before them", () => {
  const set = new DueSet({ dueSetMax: 100, tenantDueSetMax: 50 });
  for (let i = 0; i < 40; i++) set.add(...due("biz_a", `a${i}`));
  set.add(...due("biz_b", "b0"));
  set.add(...due("biz_c", "c0"));
  const first = set.take(3, all).map(([, d]) => d.id);
  assert.deepEqual(first, ["a0", "b0", "c0"]);
  assert.deepEqual(set.take(2, all).map(([, d]) => d.id), ["a1", "a2"]);
  assert.equal(set.size, 37);
});

Deno.test("due set: within a tenant, its recipients are served in turn", () => {
  const set = new DueSet({ dueSetMax: 100, tenantDueSetMax: 50 });
  for (let i = 0; i < 5; i++) set.add(...due("biz_a", `courier${i}`, { kind: "courier" }));
  set.add(...due("biz_a", "client0", { kind: "client", client_id: "cli_1" }));
  set.add(...due("biz_a", "fixed0"));
  const ids = set.take(4, all).map(([, d]) => d.id);
  assert.deepEqual(ids, ["courier0", "client0", "fixed0", "courier1"]);
});

Deno.test("due set: a queue whose first event is refused is passed over for that take only", () => {
  const set = new DueSet({ dueSetMax: 100, tenantDueSetMax: 50 });
  for (let i = 0; i < 3; i++) set.add(...due("biz_a", `a${i}`, { kind: "courier" }));
  set.add(...due("biz_b", "b0", { kind: "courier" }));
  const ids = set.take(10, (_key, d) => d.tenant !== "biz_a").map(([, d]) => d.id);
  assert.deepEqual(ids, ["b0"], "biz_a at its cap: none of its events taken");
  assert.equal(set.countOf("biz_a"), 3, "and none lost");
  assert.deepEqual(set.take(10, all).map(([, d]) => d.id), ["a0", "a1", "a2"]);
  assert.equal(set.size, 0);
});

Deno.test("due set: a tenant holds at most its share; the same event again replaces its hint", () => {
  const set = new DueSet({ dueSetMax: 100, tenantDueSetMax: 5 });
  const added = Array.from({ length: 8 }, (_, i) => set.add(...due("biz_a", `a${i}`)));
  assert.deepEqual(added, [true, true, true, true, true, false, false, false]);
  assert.equal(set.add(...due("biz_a", "a0", { kind: "courier" })), true, "held already");
  assert.equal(set.countOf("biz_a"), 5);
  assert.ok(set.add(...due("biz_b", "b0")), "another tenant still fits");
  const [first] = set.take(1, all);
  assert.deepEqual(first?.[1].hint?.recipient, { kind: "courier" }, "the newer hint, in place");
});

Deno.test("due set: a full set drops a hint of the tenant holding most for a tenant holding less", () => {
  const set = new DueSet({ dueSetMax: 10, tenantDueSetMax: 8 });
  for (let i = 0; i < 8; i++) set.add(...due("biz_a", `a${i}`));
  set.add(...due("biz_b", "b0"));
  set.add(...due("biz_b", "b1"));
  assert.equal(set.size, 10);
  assert.ok(set.add(...due("biz_c", "c0")), "room made");
  assert.equal(set.size, 10);
  assert.equal(set.countOf("biz_a"), 7, "the largest gave one up");
  // Not for the tenant holding most itself, nor to swap which of two tenants holds more.
  assert.ok(!set.add(...due("biz_a", "a9")));
  assert.ok(set.add(...due("biz_b", "b2")));
  assert.ok(set.add(...due("biz_b", "b3")));
  assert.equal(set.countOf("biz_a"), 5);
  assert.equal(set.countOf("biz_b"), 4);
  assert.ok(!set.add(...due("biz_b", "b4")), "biz_b would then hold more than biz_a");
  const ids = set.take(10, all).map(([, d]) => d.id);
  assert.deepEqual(ids.slice(0, 3), ["a0", "b0", "c0"], "the oldest stay, the newest went");
});

Deno.test("due set: whatever is added and taken, the bounds hold and nothing is taken twice", () => {
  const op = fc.oneof(
    fc.record({ add: fc.constantFrom("t1", "t2", "t3"), id: fc.integer({ min: 0, max: 30 }) }),
    fc.record({ take: fc.integer({ min: 0, max: 6 }) }),
  );
  fc.assert(fc.property(fc.array(op, { maxLength: 120 }), (ops) => {
    const set = new DueSet({ dueSetMax: 12, tenantDueSetMax: 6 });
    const held = new Set<string>();
    for (const o of ops) {
      if ("add" in o) {
        const [key, d] = due(o.add, `e${o.id}`, { kind: "client", client_id: `c${o.id % 2}` });
        if (set.add(key, d)) held.add(key);
      } else {
        for (const [key] of set.take(o.take, all)) assert.ok(held.delete(key), `${key} was held`);
      }
      assert.ok(set.size <= 12);
      for (const t of ["t1", "t2", "t3"]) assert.ok(set.countOf(t) <= 6);
    }
    // Dropped hints are gone from the set; every one taken was held.
    const rest = set.take(100, all).map(([key]) => key);
    for (const key of rest) assert.ok(held.has(key));
    assert.equal(new Set(rest).size, rest.length);
    assert.equal(set.size, 0);
  }));
});

Deno.test("due set: recipients name the queue an event waits in", () => {
  assert.equal(recipientOf(due("t", "a")[1]), "");
  assert.equal(recipientOf(due("t", "a", { kind: "courier" })[1]), "courier");
  assert.equal(
    recipientOf(due("t", "a", { kind: "client", client_id: "cli_9" })[1]),
    "client:cli_9",
  );
});

Deno.test("recipient rate: at most the bound per recipient in one second of the clock, the next second afresh", () => {
  const rate = new RecipientRate(3);
  const t0 = Date.parse("2026-11-02T08:00:00Z");
  const takes = (key: string, now: number) =>
    Array.from({ length: 5 }, () => rate.take(key, now)).filter(Boolean).length;
  assert.equal(takes("biz_a/courier", t0), 3);
  assert.equal(takes("biz_a/courier", t0 + 999), 0);
  assert.equal(takes("biz_a/client:c1", t0 + 999), 3, "another recipient has its own");
  assert.equal(takes("biz_b/courier", t0 + 999), 3, "so has another tenant's");
  assert.equal(takes("biz_a/courier", t0 + 1000), 3);
});

Deno.test("delivery limits: a tenant's share of the due set holds a lease's worth of one recipient's attempts", () => {
  // A backlog whose other hints wait for their lease never runs the set dry before they return.
  assert.ok(TENANT_DUE_SET_MAX >= RECIPIENT_ATTEMPTS_PER_SECOND_MAX * ATTEMPT_LEASE_MS / 1000);
  assert.ok(TENANT_DUE_SET_MAX * 2 <= DUE_SET_MAX, "two tenants' backlogs leave room for others");
});

Deno.test("delivery limits: those given replace the production ones; a bound below 1 is refused naming it", () => {
  assert.deepEqual(deliveryLimits(), DELIVERY_LIMITS);
  assert.deepEqual(deliveryLimits({ tenantDueSetMax: 5 }), {
    ...DELIVERY_LIMITS,
    tenantDueSetMax: 5,
  });
  assert.throws(() => deliveryLimits({ inflightMax: 0 }), /inflightMax .*: 0/);
  assert.throws(() => deliveryLimits({ dueSetMax: 1.5 }), /dueSetMax .*: 1.5/);
});
