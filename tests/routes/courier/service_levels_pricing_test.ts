/** Service levels (courier 2.2, 2.8, 5): a service level's price adjustment is a price. */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { courierWithScopes, HOURS } from "../../helpers/courier.ts";

Deno.test("service levels API: a price adjustment needs billing:administer; one without it is refused and adds nothing", () =>
  withTestEnv(async (t) => {
    // runs:override adds calendars; the courier's key holds no billing scope (courier 5 rule 1).
    const b = await courierWithScopes(t, ["runs:override"]);
    const cal = await t.call("POST", "/business/courier/calendars", {
      key: b.api_key,
      body: { code: "BW", name: "BW", timezone: "Africa/Gaborone", working_days: [1, 2, 3, 4, 5] },
    });
    assert.equal(cal.status, 201, JSON.stringify(cal.body));
    const level = (code: string, pct?: number | string) => ({
      code,
      name: code,
      transit_days: 1,
      cut_off: "14:00",
      calendar_id: cal.body.data.id,
      ...HOURS,
      ...(pct === undefined ? {} : { price_adjustment_pct: pct }),
    });
    const post = (body: unknown) =>
      t.call("POST", "/business/courier/service-levels", { key: b.api_key, body });
    // A cut of 100 % would offer every client transport for nothing; a rise charges them more.
    for (const pct of [-100, 20, "-0.01"]) {
      const refused = await post(level("FREE", pct));
      assert.equal(refused.status, 403, JSON.stringify(refused.body));
      assert.equal(refused.body.code, "scope_denied");
      assert.match(refused.body.message, /billing:administer/);
    }
    // No adjustment sets no price: the card prices the option as it is.
    assert.equal((await post(level("PLAIN"))).status, 201);
    assert.equal((await post(level("ZERO", "0.00"))).status, 201);
    const listed = await t.call("GET", "/business/courier/service-levels", { key: b.api_key });
    assert.deepEqual(listed.body.data.map((s: { code: string }) => s.code), ["PLAIN", "ZERO"]);

    const admin = await courierWithScopes(t, ["runs:override", "billing:administer"]);
    const adminCal = await t.call("POST", "/business/courier/calendars", {
      key: admin.api_key,
      body: { code: "BW", name: "BW", timezone: "Africa/Gaborone", working_days: [1, 2, 3, 4, 5] },
    });
    const ok = await t.call("POST", "/business/courier/service-levels", {
      key: admin.api_key,
      body: { ...level("EXPRESS", 20), calendar_id: adminCal.body.data.id },
    });
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    assert.equal(ok.body.data.price_adjustment_pct, 20);
  }));
