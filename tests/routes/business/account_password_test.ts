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
