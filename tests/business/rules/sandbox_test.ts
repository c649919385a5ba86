import assert from "node:assert/strict";
import fc from "fast-check";
import {
  refuseUnlessLive,
  refuseUnlessSandbox,
  sandboxTopUpMinor,
} from "../../../src/business/rules/sandbox.ts";
import { Refused } from "../../../src/runtime/actor.ts";

Deno.test("sandbox top-up: below 10,000 back to 100,000; at or above 10,000 nothing", () => {
  assert.equal(sandboxTopUpMinor("BWP", 999_999), 9_000_001);
  assert.equal(sandboxTopUpMinor("ZAR", 0), 10_000_000);
  assert.equal(sandboxTopUpMinor("ZAR", -50_000), 10_050_000);
  assert.equal(sandboxTopUpMinor("BWP", 1_000_000), 0);
  assert.equal(sandboxTopUpMinor("BWP", 25_000_000), 0);
  assert.equal(sandboxTopUpMinor("USD", 0), 0, "only the sandbox's two wallets");
  fc.assert(fc.property(fc.integer({ min: -10_000_000, max: 999_999 }), (balance) => {
    assert.equal(balance + sandboxTopUpMinor("BWP", balance), 10_000_000);
  }));
});

Deno.test("sandbox base: a sandbox-only endpoint on live, and credentials on the sandbox, are not_found naming the base", () => {
  assert.throws(
    () => refuseUnlessSandbox("live", "POST /x"),
    (e) =>
      e instanceof Refused && e.rejection.code === "not_found" && /sandbox base/.test(e.message),
  );
  assert.throws(
    () => refuseUnlessLive("sandbox", "POST /y"),
    (e) => e instanceof Refused && e.rejection.code === "not_found" && /live base/.test(e.message),
  );
  refuseUnlessSandbox("sandbox", "POST /x");
  refuseUnlessLive("live", "POST /y");
});
