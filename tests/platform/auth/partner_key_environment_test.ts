/**
 * Business API 5.2, 5.5, 7: a partner key says its environment, as business keys and driver
 * tokens do: live answers a sandbox one 401 sandbox_key_on_live, the sandbox a live one 401
 * live_key_on_sandbox; a key issued before it (`ak_` alone) keeps working where it was issued.
 */
import assert from "node:assert/strict";
import { businessActor } from "../../../actors/platform/business/mod.ts";
import { issueCredential } from "../../../src/domain/credentials.ts";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";

/** A deliveries partner key of a new business of `t`'s environment, and the path it reaches. */
async function partnerKey(t: TestEnv): Promise<string> {
  const b = await t.createBusiness();
  const pk = await t.call("POST", `/operator/businesses/${b.id}/partner-keys`, {
    operator: true,
    body: { partner: "Connector", scopes: ["deliveries"] },
  });
  assert.equal(pk.status, 201, JSON.stringify(pk.body));
  assert.equal((await t.call("GET", "/business/trips", { key: pk.body.data.key })).status, 200);
  return pk.body.data.key;
}

Deno.test("partner keys: a sandbox key on live answers 401 sandbox_key_on_live, a live key on the sandbox live_key_on_sandbox", async () => {
  let sandboxKey = "";
  let liveKey = "";
  await withTestEnv(async (t) => {
    sandboxKey = await partnerKey(t);
  }, { name: "sandbox" });
  await withTestEnv(async (t) => {
    liveKey = await partnerKey(t);
    const r = await t.call("GET", "/business/trips", { key: sandboxKey });
    assert.equal(r.status, 401);
    assert.equal(r.body.code, "sandbox_key_on_live", JSON.stringify(r.body));
  });
  assert.match(sandboxKey, /^ak_sandbox_/);
  assert.match(liveKey, /^ak_live_/);
  await withTestEnv(async (t) => {
    const r = await t.call("GET", "/business/trips", { key: liveKey });
    assert.equal(r.status, 401);
    assert.equal(r.body.code, "live_key_on_sandbox", JSON.stringify(r.body));
  }, { name: "sandbox" });
});

Deno.test("partner keys: a key issued before keys said their environment (ak_ alone) keeps working", async () => {
  for (const name of ["live", "sandbox"] as const) {
    await withTestEnv(async (t) => {
      const b = await t.createBusiness();
      const old = await issueCredential("ak_", t.env.clock.now());
      const issued = await t.env.runtime.ask(businessActor, b.id, b.id, {
        kind: "issue_partner_key",
        key: { ...old.record, id: "pk_old", partner: "Connector", scopes: ["deliveries"] },
        by: "operator",
      });
      assert.ok(issued.ok);
      const r = await t.call("GET", "/business/trips", { key: old.secret });
      assert.equal(r.status, 200, `${name}: ${JSON.stringify(r.body)}`);
    }, { name });
  }
});
