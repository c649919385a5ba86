/**
 * The driver app's calls are counted per driver token (CONTRACT "Driver app", "Errors": 429
 * `rate_limited` with Retry-After; Business API 8: rate headers on every answer), so one app in a
 * loop cannot flood the service, and one driver's calls never use up another's.
 */
import assert from "node:assert/strict";
import { POOL_DRIVER_RATE_LIMIT } from "../../../src/limits.ts";
import { createPoolDriver } from "../../helpers/pool_drivers.ts";
import { withTestEnv } from "../../helpers/test_env.ts";

Deno.test("driver app: a driver's calls past the minute's limit answer 429 rate_limited with Retry-After, other drivers unaffected", () =>
  withTestEnv(async (t) => {
    const d = await createPoolDriver(t);
    const other = await createPoolDriver(t, { phone: "+26771234568" });
    const { perMinute } = POOL_DRIVER_RATE_LIMIT;
    for (let i = 0; i < perMinute; i++) {
      const r = await t.call("GET", "/driver/me", { bearer: d.token });
      assert.equal(r.status, 200, `request ${i + 1}`);
      assert.equal(r.headers.get("X-RateLimit-Remaining"), String(perMinute - 1 - i));
      assert.ok(Number(r.headers.get("X-RateLimit-Reset")) > t.clock.now() / 1000);
    }
    const refused = await t.call("PUT", "/driver/shift", {
      bearer: d.token,
      body: { online: true },
    });
    assert.equal(refused.status, 429);
    assert.equal(refused.body.code, "rate_limited");
    assert.ok(Number(refused.headers.get("Retry-After")) >= 1);
    assert.equal(refused.headers.get("X-RateLimit-Remaining"), "0");
    // The refused call changed nothing.
    const me = await t.call("GET", "/driver/me", { bearer: other.token });
    assert.equal(me.status, 200);
    assert.equal(me.headers.get("X-RateLimit-Remaining"), String(perMinute - 1));
    t.clock.advanceBy(60_000);
    const next = await t.call("GET", "/driver/me", { bearer: d.token });
    assert.equal(next.status, 200);
    assert.equal(next.body.data.online, false);
  }));
