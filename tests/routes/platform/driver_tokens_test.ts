/**
 * A driver's token replaced by the operator (CONTRACT "Operator API"; product rule: a leaked token
 * stops at once): `POST /operator/businesses/{id}/drivers/{driver}/token` for a courier's run
 * driver, `POST /operator/drivers/{id}/token` for a platform driver of the dispatch pool. The new
 * token is shown once, as at creation; the old one is refused on the very next request, also
 * where the identity is remembered per credential.
 */
import assert from "node:assert/strict";
import { hashSecret } from "../../../src/domain/secrets.ts";
import { credentialCacheOf } from "../../../src/platform/auth/credential_cache.ts";
import { acceptedTrip } from "../../helpers/driver_trips.ts";
import { newCourier, newDriver } from "../../helpers/courier.ts";
import { logLines } from "../../helpers/log_lines.ts";
import { createPoolDriver } from "../../helpers/pool_drivers.ts";
import { openTestEnv, type TestEnv, withTestEnv } from "../../helpers/test_env.ts";

const runDriverToken = (business: string, driver: string) =>
  `/operator/businesses/${business}/drivers/${driver}/token`;
const poolDriverToken = (driver: string) => `/operator/drivers/${driver}/token`;

/** Replaces a token as the operator; asserts the answer's shape and answers its data. */
async function rotate(
  t: TestEnv,
  path: string,
  id: string,
): Promise<{ id: string; token: string }> {
  const r = await t.call("POST", path, { operator: true });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  assert.deepEqual(Object.keys(r.body.data).sort(), ["id", "token"]);
  assert.equal(r.body.data.id, id);
  return r.body.data;
}

Deno.test("driver tokens: a run driver's token is replaced; the old one is refused on the very next request, though remembered", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const d = await newDriver(t, courier.business.id);
    const runs = (token: string) => t.call("GET", "/driver/network-runs", { bearer: token });
    assert.equal((await runs(d.token)).status, 200);
    const cache = credentialCacheOf(t.env.runtime)!;
    assert.ok(cache.get("driver", await hashSecret(d.token)), "the old token is remembered");

    const fresh = await rotate(t, runDriverToken(courier.business.id, d.id), d.id);
    assert.match(fresh.token, /^dt_live_/);
    assert.notEqual(fresh.token, d.token);
    const old = await runs(d.token);
    assert.equal(old.status, 401);
    assert.equal(old.body.code, "unauthenticated");
    assert.equal((await runs(fresh.token)).status, 200);
    // Replaced again: the token of the first replacement stops too.
    const again = await rotate(t, runDriverToken(courier.business.id, d.id), d.id);
    assert.equal((await runs(fresh.token)).status, 401);
    assert.equal((await runs(again.token)).status, 200);
  }));

Deno.test("driver tokens: a pool driver's token is replaced mid-trip; the old one is refused, the driver keeps shift and trip", () =>
  withTestEnv(async (t) => {
    const trip = await acceptedTrip(t);
    const d = trip.driver;
    const on = await t.call("PUT", "/driver/shift", { bearer: d.token, body: { online: true } });
    assert.equal(on.status, 200);
    const fresh = await rotate(t, poolDriverToken(d.id), d.id);
    assert.match(fresh.token, /^dt_live_/);
    for (const path of ["/driver/me", "/driver/offers", `/driver/trips/${trip.reference}`]) {
      const old = await t.call("GET", path, { bearer: d.token });
      assert.equal(old.status, 401, path);
      assert.equal(old.body.code, "unauthenticated");
    }
    const me = await t.call("GET", "/driver/me", { bearer: fresh.token });
    assert.equal(me.status, 200);
    assert.equal(me.body.data.id, d.id);
    assert.equal(me.body.data.online, true);
    const mine = await t.call("GET", `/driver/trips/${trip.reference}`, { bearer: fresh.token });
    assert.equal(mine.status, 200, JSON.stringify(mine.body));
  }));

Deno.test("driver tokens: another business's driver, an unknown one or the other kind is not found; the token keeps working", () =>
  withTestEnv(async (t) => {
    const a = await newCourier(t);
    const other = await t.createBusiness();
    const d = await newDriver(t, a.business.id);
    const pool = await createPoolDriver(t);
    for (
      const path of [
        runDriverToken(other.id, d.id),
        runDriverToken(a.business.id, "drv_nope"),
        runDriverToken("biz_nope", d.id),
        runDriverToken(a.business.id, pool.id),
        poolDriverToken(d.id),
        poolDriverToken("pdr_nope"),
      ]
    ) {
      const r = await t.call("POST", path, { operator: true });
      assert.equal(r.status, 404, path);
      assert.equal(r.body.code, "not_found");
    }
    assert.equal((await t.call("GET", "/driver/network-runs", { bearer: d.token })).status, 200);
    assert.equal((await t.call("GET", "/driver/me", { bearer: pool.token })).status, 200);
  }));

Deno.test("driver tokens: only the operator replaces one; a driver's or a business's credential is refused", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const d = await newDriver(t, courier.business.id);
    const pool = await createPoolDriver(t);
    const calls = [
      { path: runDriverToken(courier.business.id, d.id), bearer: d.token },
      { path: runDriverToken(courier.business.id, d.id), bearer: courier.business.api_key },
      { path: poolDriverToken(pool.id), bearer: pool.token },
      { path: poolDriverToken(pool.id), bearer: courier.business.api_key },
    ];
    for (const { path, bearer } of calls) {
      const r = await t.call("POST", path, { bearer });
      assert.equal(r.status, 401, path);
      assert.equal(r.body.code, "unauthenticated");
    }
    assert.equal((await t.call("GET", "/driver/network-runs", { bearer: d.token })).status, 200);
    assert.equal((await t.call("GET", "/driver/me", { bearer: pool.token })).status, 200);
  }));

Deno.test("driver tokens: two replacements at once: one answers 201 and its token works, the other 409 key_already_rotated", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const d = await newDriver(t, courier.business.id);
    const pool = await createPoolDriver(t);
    const cases = [
      { path: runDriverToken(courier.business.id, d.id), old: d.token, me: "/driver/network-runs" },
      { path: poolDriverToken(pool.id), old: pool.token, me: "/driver/me" },
    ];
    for (const { path, old, me } of cases) {
      const both = await Promise.all([1, 2].map(() => t.call("POST", path, { operator: true })));
      assert.deepEqual(
        both.map((r) => r.status).sort(),
        [201, 409],
        JSON.stringify(both.map((r) => r.body)),
      );
      const won = both.find((r) => r.status === 201)!;
      assert.equal(both.find((r) => r.status === 409)!.body.code, "key_already_rotated");
      assert.equal((await t.call("GET", me, { bearer: won.body.data.token })).status, 200, path);
      assert.equal((await t.call("GET", me, { bearer: old })).status, 401, path);
    }
  }));

Deno.test("driver tokens: on the sandbox the new token is a sandbox one and the old one is refused", async () => {
  const sandbox = await openTestEnv({ name: "sandbox" });
  try {
    const courier = await newCourier(sandbox);
    const d = await newDriver(sandbox, courier.business.id);
    const pool = await createPoolDriver(sandbox);
    const run = await rotate(sandbox, runDriverToken(courier.business.id, d.id), d.id);
    const driver = await rotate(sandbox, poolDriverToken(pool.id), pool.id);
    for (
      const [old, fresh, read] of [[d.token, run.token, "/driver/network-runs"], [
        pool.token,
        driver.token,
        "/driver/me",
      ]] as const
    ) {
      assert.match(fresh, /^dt_sandbox_/);
      const refused = await sandbox.call("GET", read, { bearer: old });
      assert.equal(refused.status, 401);
      assert.equal(refused.body.code, "live_key_on_sandbox");
      assert.equal((await sandbox.call("GET", read, { bearer: fresh })).status, 200);
    }
  } finally {
    await sandbox.close();
  }
});

Deno.test("driver tokens: neither the old nor the new token is in any log line", async () => {
  const log = logLines();
  await withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const d = await newDriver(t, courier.business.id);
    const pool = await createPoolDriver(t);
    const run = await rotate(t, runDriverToken(courier.business.id, d.id), d.id);
    const driver = await rotate(t, poolDriverToken(pool.id), pool.id);
    await t.call("GET", "/driver/network-runs", { bearer: d.token });
    await t.call("GET", "/driver/me", { bearer: driver.token });
    const text = log.raw.join("");
    assert.ok(log.raw.some((l) => l.includes("/token")), "the replacements are logged");
    for (const token of [d.token, run.token, pool.token, driver.token]) {
      assert.ok(!text.includes(token), `a log line holds ${token.slice(0, 10)}...`);
      assert.ok(!text.includes(await hashSecret(token)), "a log line holds a token's hash");
    }
  }, { log: log.destination });
});
