import assert from "node:assert/strict";
import fc from "fast-check";
import { assertJsonSafe } from "../../src/runtime/json_safe.ts";

/** The value with each -0 as 0: the one change JSON makes to a number, the same amount. */
function zeroed(value: unknown): unknown {
  if (Object.is(value, -0)) return 0;
  if (Array.isArray(value)) return value.map(zeroed);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, zeroed(v)]));
}

Deno.test("json safe: every JSON value crosses as it is; an undefined field is simply absent", () => {
  fc.assert(fc.property(fc.jsonValue(), (value) => {
    assertJsonSafe(value, "command");
    assert.deepEqual(JSON.parse(JSON.stringify(value)), zeroed(value));
  }));
  assertJsonSafe(undefined, "reply");
  assertJsonSafe({ a: undefined, b: [1, "x", null, { c: true }] }, "command");
});

Deno.test("json safe: what JSON would change or refuse is named, with where it is", () => {
  const refused: [unknown, string][] = [
    [{ at: new Date(0) }, "command.at (a Date)"],
    [{ seen: new Set([1]) }, "command.seen (a Set)"],
    [{ by: new Map() }, "command.by (a Map)"],
    [{ n: 1n }, "command.n (a bigint)"],
    [{ f: () => 1 }, "command.f (a function)"],
    [{ list: [1, undefined] }, "command.list[1] (undefined)"],
    [{ x: { y: NaN } }, "command.x.y (NaN)"],
    [{ x: Infinity }, "command.x (Infinity)"],
  ];
  for (const [value, where] of refused) {
    assert.throws(
      () => assertJsonSafe(value, "command"),
      new TypeError(`${where} cannot cross between instances as JSON`),
    );
  }
  let deep: unknown = 1;
  for (let i = 0; i < 70; i++) deep = [deep];
  assert.throws(() => assertJsonSafe(deep, "reply"), /nested past 64/);
});
