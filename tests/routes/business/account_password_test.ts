/**
 * POST /business/change-password (Business API 4.3, 5.6): the new password follows the same rules
 * as a client person's (courier 5, routes/courier/client_api.ts), and a refused change changes
 * nothing: every session stays signed in.
 */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { login } from "./account_fixtures.ts";

Deno.test("account: a staff password change to the current password is refused naming new_password, as for client people; nothing changes", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const laptop = await login(t, b.owner.email, b.owner.password);
    const phone = await login(t, b.owner.email, b.owner.password);
    const same = await t.call("POST", "/business/change-password", {
      key: laptop,
      body: { current_password: b.owner.password, new_password: b.owner.password },
    });
    assert.equal(same.status, 422, JSON.stringify(same.body));
    assert.equal(same.body.code, "validation_failed");
    assert.deepEqual(same.body.errors, [{
      path: "new_password",
      message: "must differ from the current one",
    }]);
    // Refused: no device was signed out.
    for (const key of [laptop, phone]) {
      assert.equal((await t.call("GET", "/business/profile", { key })).status, 200);
    }
  }));

Deno.test("account: a password change keeps the caller's session signed in (its token answered) and signs out only the other devices; a later change from another device signs it out", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const laptop = await login(t, b.owner.email, b.owner.password);
    const phone = await login(t, b.owner.email, b.owner.password);
    const profile = (key: string) => t.call("GET", "/business/profile", { key });
    const first = await t.call("POST", "/business/change-password", {
      key: laptop,
      body: { current_password: b.owner.password, new_password: "a-much-better-password" },
    });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    // spec: business 4.3: "other devices signed out": the device that changed it stays in.
    assert.equal(first.body.data.token, laptop);
    assert.equal((await profile(laptop)).status, 200);
    assert.equal((await profile(phone)).status, 401);
    // The kept session changes the password again, as a session of the current epoch.
    const second = await t.call("POST", "/business/change-password", {
      key: laptop,
      body: { current_password: "a-much-better-password", new_password: "an-even-better-one-9" },
    });
    assert.equal(second.status, 200, JSON.stringify(second.body));
    assert.equal((await profile(laptop)).status, 200);
    // Another device signed in with the new password changes it: the laptop is another device.
    const tablet = await login(t, b.owner.email, "an-even-better-one-9");
    const third = await t.call("POST", "/business/change-password", {
      key: tablet,
      body: { current_password: "an-even-better-one-9", new_password: "the-third-password-7" },
    });
    assert.equal(third.status, 200, JSON.stringify(third.body));
    assert.equal((await profile(tablet)).status, 200);
    assert.equal((await profile(laptop)).status, 401);
    assert.equal((await profile(phone)).status, 401);
  }));
