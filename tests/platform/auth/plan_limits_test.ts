/**
 * Business API 8: each plan's request limits. Starter's minute and Enterprise's set limits are
 * held in auth_test.ts; here the Business plan's 120 a minute over HTTP, and every plan's numbers.
 */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { PLAN_RATE_LIMITS } from "../../../src/limits.ts";

Deno.test("plan limits: Starter 30 a minute and 1,000 a day, Business 120 and 10,000", () => {
  assert.deepEqual(PLAN_RATE_LIMITS.starter, { perMinute: 30, perDay: 1_000 });
  assert.deepEqual(PLAN_RATE_LIMITS.business, { perMinute: 120, perDay: 10_000 });
});

Deno.test("plan limits: a Business plan answers 120 requests a minute, the 121st 429 with Retry-After", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness({ plan: "business" });
    for (let i = 0; i < 120; i++) {
      const r = await t.call("GET", "/business/profile", { key: b.api_key });
      assert.equal(r.status, 200, `request ${i + 1}`);
      assert.equal(r.headers.get("X-RateLimit-Remaining"), String(119 - i));
    }
    const refused = await t.call("GET", "/business/profile", { key: b.api_key });
    assert.equal(refused.status, 429);
    assert.equal(refused.body.code, "rate_limited");
    assert.ok(Number(refused.headers.get("Retry-After")) >= 1);
    t.clock.advanceBy(60_000);
    const next = await t.call("GET", "/business/profile", { key: b.api_key });
    assert.equal(next.status, 200);
  }));
