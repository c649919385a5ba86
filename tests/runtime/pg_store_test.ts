/** What is the Postgres store's own, pure (no server): its prefix bound and what a write costs. */
import assert from "node:assert/strict";
import fc from "fast-check";
import { nextPrefix } from "../../src/runtime/pg_store.ts";
import { pgWriteCost } from "../../src/runtime/pg_cost.ts";
import { eventsOf, writeOf } from "./store_conformance_kit.ts";

/** Code point order, which is UTF-8 byte order (collation "C"). */
function compare(a: string, b: string): number {
  const [x, y] = [[...a].map((c) => c.codePointAt(0)!), [...b].map((c) => c.codePointAt(0)!)];
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

Deno.test("pg store: a key begins with a prefix exactly when it sorts from the prefix to before nextPrefix", () => {
  const text = fc.string({
    unit: fc.constantFrom("a", "b", "é", "\u{10ffff}", "\ud7ff", "\ue000"),
  });
  fc.assert(fc.property(text, text, (prefix, rest) => {
    for (const key of [prefix + rest, rest]) {
      const after = nextPrefix(prefix);
      const inRange = compare(key, prefix) >= 0 && (after === null || compare(key, after) < 0);
      assert.equal(inRange, key.startsWith(prefix), `${JSON.stringify([prefix, key, after])}`);
    }
  }));
  assert.equal(nextPrefix(""), null);
  assert.equal(nextPrefix("d1|"), "d1}");
  assert.equal(nextPrefix("a\u{10ffff}"), "b");
});

Deno.test("pg cost: a commit's events are one row, however many; each index entry, timer and reply one more", () => {
  const plain = pgWriteCost(writeOf("acct", "a", null));
  const many = pgWriteCost(writeOf("acct", "a", null, { events: eventsOf(1, 2_000) }));
  assert.equal(many.mutations, plain.mutations + 1);
  assert.ok(many.bytes > plain.bytes + 2_000 * 10);
  const key = { index: "email", key: "é@x" };
  const full = pgWriteCost(writeOf("acct", "a", null, {
    indexSet: [key],
    indexClaims: [key],
    timerSet: [{ name: "t", at: 1 }],
    replies: [{ key: "k", reply: { ok: true }, permanent: false }],
    unpublishedFrom: 1,
  }));
  assert.equal(full.mutations, plain.mutations + 4);
  assert.equal(full.checks, plain.checks + 1);
  // UTF-8: `é` is two bytes.
  assert.ok(full.keyBytes >= "email".length + 4);
});
