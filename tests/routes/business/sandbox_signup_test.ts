/**
 * Business API 4.4 sandbox sign-up over HTTP: 202 whoever signs up, code 123456 verified into a
 * sandbox business (once, however many verify at once), a new sign-up rotating its key, wrong and
 * expired codes, and 404 on live.
 */
import assert from "node:assert/strict";
import {
  SandboxSignupAnswer,
  SandboxSignupVerifiedAnswer,
} from "../../../routes/business/answers/sandbox_signup.ts";
import { SANDBOX_CODE } from "../../../src/business/rules/sandbox.ts";
import {
  SANDBOX_SIGNUP_TENANT,
  sandboxSignupActor,
} from "../../../actors/business/sandbox_signup.ts";
import { documentedData } from "../../helpers/documented.ts";
import { type Answer, type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import type { z } from "../../../src/http/route.ts";
import { balances, credentials, withTwins } from "./sandbox_twin_fixtures.ts";

const sandbox = { name: "sandbox" as const };
const person = { first_names: "Ann", surname: "Lee", company: "Lee Couriers" };

/** A sandbox answer (its envelope names the environment) of the documented shape. */
// deno-lint-ignore no-explicit-any
function sandboxAnswer(schema: z.ZodType, r: Answer, status: number): any {
  assert.equal(r.status, status, JSON.stringify(r.body));
  assert.equal(r.body.environment, "sandbox");
  return documentedData(schema, r, `${status}`);
}

function signUp(t: TestEnv, email: string) {
  return t.call("POST", "/sandbox/signup", { body: { ...person, email } });
}

function verify(t: TestEnv, email: string, code = SANDBOX_CODE) {
  return t.call("POST", "/sandbox/signup/verify", { body: { email, code } });
}

Deno.test("sandbox sign-up: 202, then 123456 makes a sandbox business whose key works", () =>
  withTestEnv(async (t) => {
    const s = sandboxAnswer(SandboxSignupAnswer, await signUp(t, "Ann@Example.com"), 202);
    // No enumeration: an address already signed up is answered the same.
    const v = await verify(t, "ann@example.com");
    const made = sandboxAnswer(SandboxSignupVerifiedAnswer, v, 201);
    assert.match(made.api_key, /^sk_sandbox_/);
    assert.match(made.webhook_secret, /^whsec_/);
    assert.match(made.base_url, /\/api$/);
    assert.deepEqual((await signUp(t, "ann@example.com")).body.data, s);
    const profile = await t.call("GET", "/business/profile", { key: made.api_key });
    assert.equal(profile.status, 200, JSON.stringify(profile.body));
    assert.equal(profile.body.data.id, made.business_id);
    assert.equal(profile.body.data.plan, "starter");
    const wallet = await t.call("GET", "/business/wallet", { key: made.api_key });
    assert.equal(wallet.status, 200);
  }, sandbox));

Deno.test("sandbox sign-up: signing up again rotates the key of the same business", () =>
  withTestEnv(async (t) => {
    await signUp(t, "bo@example.com");
    const first = (await verify(t, "bo@example.com")).body.data;
    await signUp(t, "bo@example.com");
    const second = sandboxAnswer(
      SandboxSignupVerifiedAnswer,
      await verify(t, "bo@example.com"),
      201,
    );
    assert.equal(second.business_id, first.business_id);
    assert.notEqual(second.api_key, first.api_key);
    assert.notEqual(second.webhook_secret, first.webhook_secret);
    const old = await t.call("GET", "/business/profile", { key: first.api_key });
    assert.equal(old.status, 401);
    assert.equal(old.body.code, "live_key_on_sandbox");
    const now = await t.call("GET", "/business/profile", { key: second.api_key });
    assert.equal(now.body.data.id, first.business_id);
  }, sandbox));

// spec: business 8: "topped up to 100,000 when below 10,000 and credentials are created again":
// signing up again creates them again, as POST /business/sandbox/credentials does for a twin.
Deno.test("sandbox sign-up: signing up again tops each wallet below 10,000 up to 100,000", () =>
  withTestEnv(async (t) => {
    await signUp(t, "gu@example.com");
    const first = (await verify(t, "gu@example.com")).body.data;
    assert.deepEqual(await balances(t, first.api_key), { BWP: 100_000, ZAR: 100_000 });
    for (const [currency, balance] of [["BWP", "9999.99"], ["ZAR", "10000"]]) {
      const r = await t.call("PUT", "/business/sandbox/wallet", {
        key: first.api_key,
        body: { currency, balance },
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
    }
    await signUp(t, "gu@example.com");
    const second = (await verify(t, "gu@example.com")).body.data;
    assert.deepEqual(await balances(t, second.api_key), { BWP: 100_000, ZAR: 10_000 });
  }, sandbox));

Deno.test("sandbox sign-up: 20 verifies at once make one business; the rest find none pending", () =>
  withTestEnv(async (t) => {
    await signUp(t, "cy@example.com");
    const all = await Promise.all(Array.from({ length: 20 }, () => verify(t, "cy@example.com")));
    const made = all.filter((r) => r.status === 201);
    assert.equal(made.length, 1);
    for (const r of all.filter((r) => r.status !== 201)) {
      assert.equal(r.status, 422);
      assert.equal(r.body.code, "no_signup_pending");
    }
    await t.settle();
    const owners = await t.env.db.selectFrom("snapshots").select("id")
      .where("type", "=", "business").execute();
    assert.equal(owners.length, 1);
  }, sandbox));

Deno.test("sandbox sign-up: wrong codes say the tries left; the fifth spends it; expiry is 410", () =>
  withTestEnv(async (t) => {
    await signUp(t, "di@example.com");
    for (let left = 4; left >= 0; left--) {
      const r = await verify(t, "di@example.com", "654321");
      assert.equal(r.status, 422);
      assert.equal(r.body.code, "signup_code_invalid");
      assert.equal(r.body.tries_left, left);
    }
    assert.equal((await verify(t, "di@example.com")).body.code, "no_signup_pending");
    await signUp(t, "di@example.com");
    t.clock.advanceBy(15 * 60_000);
    const late = await verify(t, "di@example.com");
    assert.equal(late.status, 410);
    assert.equal(late.body.code, "signup_code_expired");
    const bad = await t.call("POST", "/sandbox/signup", { body: { email: "nope" } });
    assert.equal(bad.status, 422);
    const paths = bad.body.errors.map((e: { path: string }) => e.path).sort();
    assert.deepEqual(paths, ["company", "email", "first_names", "surname"]);
  }, sandbox));

Deno.test("sandbox sign-up: on live both routes answer 404 naming the sandbox base", () =>
  withTestEnv(async (t) => {
    const s = await signUp(t, "ed@example.com");
    assert.equal(s.status, 404);
    assert.equal(s.body.code, "not_found");
    assert.match(s.body.message, /sandbox base/);
    const v = await verify(t, "ed@example.com");
    assert.equal(v.status, 404);
    assert.match(v.body.message, /sandbox base/);
  }));

Deno.test("sandbox sign-up: a code taken before a crash made the business: signing up again makes it", () =>
  withTestEnv(async (t) => {
    await signUp(t, "fa@example.com");
    // The code is taken (the sign-up actor's step) and the process stops before the business.
    const taken = await t.env.runtime.ask(
      sandboxSignupActor,
      SANDBOX_SIGNUP_TENANT,
      "fa@example.com",
      {
        kind: "verify",
        code: SANDBOX_CODE,
      },
    );
    assert.ok(taken.ok && taken.reply.outcome === "verified");
    await signUp(t, "fa@example.com");
    const made = sandboxAnswer(SandboxSignupVerifiedAnswer, await verify(t, "fa@example.com"), 201);
    assert.equal(made.business_id, taken.reply.business_id);
    const profile = await t.call("GET", "/business/profile", { key: made.api_key });
    assert.equal(profile.body.data.id, taken.reply.business_id);
  }, sandbox));

// spec: business 4.4: a live account's twin holds no claim to its owner's e-mail (the sandbox
// signs no one in to the portal), so a sign-up of that e-mail makes its own account, which
// neither reaches the twin nor is reached by it.
Deno.test("sandbox sign-up: an e-mail a live account's twin has as owner signs up its own account", () =>
  withTwins(async ({ live, sandbox }) => {
    const b = await live.createBusiness();
    const twin = await credentials(live, b.api_key);
    await signUp(sandbox, b.owner.email);
    const made = sandboxAnswer(
      SandboxSignupVerifiedAnswer,
      await verify(sandbox, b.owner.email),
      201,
    );
    assert.notEqual(made.business_id, b.id);
    const rotated = await credentials(live, b.api_key);
    for (const [key, id] of [[made.api_key, made.business_id], [rotated.api_key, b.id]]) {
      const seen = await sandbox.call("GET", "/business/profile", { key });
      assert.equal(seen.status, 200, JSON.stringify(seen.body));
      assert.equal(seen.body.data.id, id);
    }
    const old = await sandbox.call("GET", "/business/profile", { key: twin.api_key });
    assert.equal(old.status, 401);
  }));
