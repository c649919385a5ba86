/**
 * Rotating the integration key (Business API 4.3 "rotate key; previous key invalid at once"):
 * two rotations of one key sent at once are one rotation: the first to arrive wins and its key
 * alone works; the other is refused 409 key_already_rotated, and no key it made is ever shown.
 */
import assert from "node:assert/strict";
import { type Answer, type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { commandKind, holdAsk } from "../../helpers/faults.ts";
import { login } from "../../routes/business/account_fixtures.ts";
import { businessOf } from "../../../src/platform/flows/businesses.ts";
import { clientKey, newClient, newCourier } from "../../helpers/courier.ts";

const profile = (t: TestEnv, key: string) => t.call("GET", "/business/profile", { key });

/**
 * Two requests at once, for certain: the first is held just before its rotation reaches the
 * actor until the second is answered, so both read the credential before either rotated it.
 * Sent together without the hold, a loaded machine may serve them one after the other, and then
 * the second rightly rotates the credential the first made.
 */
async function atOnce(
  t: TestEnv,
  rotation: string,
  send: () => Promise<Answer>,
): Promise<Answer[]> {
  const held = holdAsk(t.env.runtime, commandKind(rotation));
  const first = send();
  await held.reached;
  const second = await send();
  held.open();
  return [await first, second];
}

/** Two rotations at once through `a` and `b`: the winner's key alone works afterwards. */
async function oneWins(t: TestEnv, oldKey: string, a: string, b: string): Promise<void> {
  const keys = [a, b];
  const answers = await atOnce(
    t,
    "rotate_api_key",
    () => t.call("POST", "/business/api-key/regenerate", { key: keys.shift()! }),
  );
  const statuses = answers.map((r) => r.status).sort();
  assert.deepEqual(statuses, [201, 409], JSON.stringify(answers.map((r) => r.body)));
  const won = answers.find((r) => r.status === 201)!;
  const lost = answers.find((r) => r.status === 409)!;
  assert.equal(lost.body.code, "key_already_rotated");
  assert.equal(lost.body.success, false);
  assert.equal((await profile(t, won.body.data.api_key)).status, 200);
  assert.equal((await profile(t, oldKey)).status, 401);
}

Deno.test("api key rotation: two rotations of the same key at once: one answers 201 and its key works, the other 409 key_already_rotated", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    await oneWins(t, b.api_key, b.api_key, b.api_key);
  }));

Deno.test("api key rotation: two admins rotating the key at once: one answers 201 and its key works, the other 409 key_already_rotated", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const owner = await login(t, b.owner.email, b.owner.password);
    await oneWins(t, b.api_key, owner, owner);
    // One after the other both stand: the second rotates the key the first made.
    const first = await t.call("POST", "/business/api-key/regenerate", { key: owner });
    const second = await t.call("POST", "/business/api-key/regenerate", { key: owner });
    assert.deepEqual([first.status, second.status], [201, 201]);
    assert.equal((await profile(t, first.body.data.api_key)).status, 401);
    assert.equal((await profile(t, second.body.data.api_key)).status, 200);
  }));

Deno.test("client api key rotation: two rotations of the same client key at once: one answers 201 and its key works, the other 409 key_already_rotated", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    const me = (key: string) =>
      t.call("GET", "/client/me", { headers: { "X-Client-API-Key": key } });
    const answers = await atOnce(
      t,
      "rotate_api_key",
      () => t.call("POST", "/client/api-key", { headers: clientKey(client) }),
    );
    const statuses = answers.map((r) => r.status).sort();
    assert.deepEqual(statuses, [201, 409], JSON.stringify(answers.map((r) => r.body)));
    const won = answers.find((r) => r.status === 201)!;
    assert.equal(answers.find((r) => r.status === 409)!.body.code, "key_already_rotated");
    assert.equal((await me(won.body.data.api_key)).status, 200);
    assert.equal((await me(client.api_key)).status, 401);
  }));

Deno.test("client api key rotation: a client administrator signed in rotating twice at once: one answers 201 and its key works, the other 409 key_already_rotated", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    const sent = await t.call("POST", "/client/login", { body: client.user });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    const changed = await t.call("POST", "/client/password", {
      headers: { "X-Client-API-Key": sent.body.data.token },
      body: { current_password: client.user.password, new_password: "a-new-password-1" },
    });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    const admin = { "X-Client-API-Key": changed.body.data.token };
    const answers = await atOnce(
      t,
      "rotate_api_key",
      () => t.call("POST", "/client/api-key", { headers: admin }),
    );
    const statuses = answers.map((r) => r.status).sort();
    assert.deepEqual(statuses, [201, 409], JSON.stringify(answers.map((r) => r.body)));
    const won = answers.find((r) => r.status === 201)!;
    const me = (key: string) =>
      t.call("GET", "/client/me", { headers: { "X-Client-API-Key": key } });
    assert.equal((await me(won.body.data.api_key)).status, 200);
    assert.equal((await me(client.api_key)).status, 401);
  }));

Deno.test("webhook secret rotation: two rotations at once: one answers 201 and its secret signs, the other 409 key_already_rotated; the secret before keeps its grace", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const before = (await businessOf(t.env.runtime, b.id)).webhook_secret.key_id;
    const answers = await atOnce(
      t,
      "rotate_webhook_secret",
      () => t.call("POST", "/business/webhook-secret/regenerate", { key: b.api_key }),
    );
    const statuses = answers.map((r) => r.status).sort();
    assert.deepEqual(statuses, [201, 409], JSON.stringify(answers.map((r) => r.body)));
    const won = answers.find((r) => r.status === 201)!;
    assert.equal(answers.find((r) => r.status === 409)!.body.code, "key_already_rotated");
    const now = await businessOf(t.env.runtime, b.id);
    assert.equal(now.webhook_secret.key_id, won.body.data.key_id);
    assert.equal(now.webhook_secret_previous?.key_id, before);
  }));
