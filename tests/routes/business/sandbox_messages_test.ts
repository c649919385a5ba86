/**
 * Business API 1.3 over HTTP: the sandbox's messages (the owner's security e-mails, 5.6) are kept
 * refused at the sender, listed newest first to their own business only; live answers 404.
 */
import assert from "node:assert/strict";
import { SandboxMessageAnswer } from "../../../routes/business/answers/sandbox_messages.ts";
import { documentedData } from "../../helpers/documented.ts";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";

async function messages(t: TestEnv, key: string, query = "") {
  await t.env.bus.flush();
  await t.settle();
  const r = await t.call("GET", `/business/sandbox/messages${query}`, { key });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return documentedData(SandboxMessageAnswer.array(), r, "messages");
}

Deno.test("sandbox messages: each e-mail kept refused with why, newest first, own business only", () =>
  withTestEnv(async (t) => {
    const a = await t.createBusiness();
    const other = await t.createBusiness();
    const rotated = await t.call("POST", "/business/api-key/regenerate", { key: a.api_key });
    assert.equal(rotated.status, 201);
    const key = rotated.body.data.api_key;
    t.clock.advanceBy(1_000);
    const secret = await t.call("POST", "/business/webhook-secret/regenerate", { key });
    assert.equal(secret.status, 201, JSON.stringify(secret.body));

    const list = await messages(t, key);
    assert.deepEqual(list.map((m: { cause: string }) => m.cause), [
      "webhook_secret_rotated",
      "api_key_rotated",
    ]);
    for (const m of list) {
      assert.equal(m.channel, "email");
      assert.equal(m.to, a.owner.email);
      assert.equal(m.status, "refused");
      assert.match(m.reason, /sandbox reaches no real/);
    }
    assert.equal((await messages(t, key, "?limit=1")).length, 1);
    assert.deepEqual(await messages(t, other.api_key), []);
  }, { name: "sandbox" }));

Deno.test("sandbox messages: on live a live key is answered 404 naming the sandbox base", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const r = await t.call("GET", "/business/sandbox/messages", { key: b.api_key });
    assert.equal(r.status, 404);
    assert.equal(r.body.code, "not_found");
    assert.match(r.body.message, /sandbox base/);
  }));
