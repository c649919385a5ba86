/**
 * PATCH /business/profile (Business API 4.3): the company record's text fields are text a person
 * writes, checked as every kept text is (PlainText: no control characters); a refused change
 * changes nothing.
 */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { login } from "./account_fixtures.ts";

Deno.test("account: a company name or billing contact holding a control character is refused naming the field, and nothing changes", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const owner = await login(t, b.owner.email, b.owner.password);
    const before = (await t.call("GET", "/business/profile", { key: owner })).body.data;
    for (
      const [field, value] of [
        ["name", "Acme\u0007 Ltd"],
        ["name", "Acme\u001b[2J"],
        ["name", "Acme\u0085Ltd"],
        ["billing_contact", "accounts@example.com\u0008\u0008"],
        ["billing_contact", "Neo\nKgosi"],
      ] as const
    ) {
      const r = await t.call("PATCH", "/business/profile", {
        key: owner,
        body: { [field]: value, webhook_url: "https://hooks.example.com/x" },
      });
      assert.equal(r.status, 422, `${field} ${JSON.stringify(value)}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.code, "validation_failed");
      assert.deepEqual(r.body.errors.map((e: { path: string }) => e.path), [field]);
    }
    const after = (await t.call("GET", "/business/profile", { key: owner })).body.data;
    assert.deepEqual(after, before);
    const fine = await t.call("PATCH", "/business/profile", {
      key: owner,
      body: { name: "  Acme Ltd – Gaborone  ", billing_contact: "Neo Kgosi, accounts@example.com" },
    });
    assert.equal(fine.status, 200, JSON.stringify(fine.body));
    assert.equal(fine.body.data.name, "Acme Ltd – Gaborone");
    assert.equal(fine.body.data.billing_contact, "Neo Kgosi, accounts@example.com");
  }));

Deno.test("account: a blank billing contact clears it (null), as a blank webhook_url does", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const owner = await login(t, b.owner.email, b.owner.password);
    const patch = (billing_contact: string | null) =>
      t.call("PATCH", "/business/profile", { key: owner, body: { billing_contact } });
    for (const blank of ["", "   ", null]) {
      assert.equal(
        (await patch("accounts@example.com")).body.data.billing_contact,
        "accounts@example.com",
      );
      const cleared = await patch(blank);
      assert.equal(cleared.status, 200, JSON.stringify(cleared.body));
      assert.equal(cleared.body.data.billing_contact, null, JSON.stringify(blank));
      const read = await t.call("GET", "/business/profile", { key: owner });
      assert.equal(read.body.data.billing_contact, null);
    }
  }));
