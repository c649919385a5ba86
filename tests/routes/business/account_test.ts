import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { invite, invited, login } from "./account_fixtures.ts";
import { BUSINESS_KEY_DEFAULT_SCOPES } from "../../../src/platform/rules/scopes.ts";
import { businessActor } from "../../../actors/platform/business/mod.ts";
import { hashSecret } from "../../../src/domain/secrets.ts";

Deno.test("account: profile names the principal: owner, admin, coordinator or api_key", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const owner = await login(t, b.owner.email, b.owner.password);
    const admin = await invite(t, owner, "admin");
    const coordinator = await invite(t, owner, "coordinator");
    const cases: [string, string, string | null][] = [
      [owner, "owner", "owner"],
      [admin, "admin", "admin"],
      [coordinator, "coordinator", "coordinator"],
      [b.api_key, "api_key", null],
    ];
    for (const [key, principal, role] of cases) {
      const r = await t.call("GET", "/business/profile", { key });
      assert.equal(r.status, 200);
      assert.equal(r.body.data.principal, principal);
      assert.equal(r.body.data.portal_role, role);
    }
  }));

Deno.test("account: a wrong password or unknown e-mail is refused alike", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const wrong = await t.call("POST", "/business/login", {
      body: { email: b.owner.email, password: "not-the-password" },
    });
    const unknown = await t.call("POST", "/business/login", {
      body: { email: "nobody@example.com", password: "whatever-it-is" },
    });
    assert.equal(wrong.status, 401);
    assert.equal(unknown.status, 401);
    assert.equal(wrong.body.message, unknown.body.message);
  }));

Deno.test("account: people need a signed-in admin: the key gets signed_in_admin_only, a coordinator portal_admin_only", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const owner = await login(t, b.owner.email, b.owner.password);
    const coordinator = await invite(t, owner, "coordinator");
    const body = { name: "X", email: "x@example.com", portal_role: "admin" };
    const byKey = await t.call("POST", "/business/people", { key: b.api_key, body });
    assert.equal(byKey.status, 403);
    assert.equal(byKey.body.code, "signed_in_admin_only");
    const byCoordinator = await t.call("POST", "/business/people", { key: coordinator, body });
    assert.equal(byCoordinator.status, 403);
    assert.equal(byCoordinator.body.code, "portal_admin_only");
    const list = await t.call("GET", "/business/people", { key: owner });
    assert.equal(list.body.data.length, 2);
    assert.ok(!JSON.stringify(list.body).includes("pbkdf2"));
  }));

Deno.test("account: a coordinator cannot touch credentials or the company record", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const owner = await login(t, b.owner.email, b.owner.password);
    const coordinator = await invite(t, owner, "coordinator");
    for (
      const [method, path] of [
        ["POST", "/business/api-key/regenerate"],
        ["POST", "/business/webhook-secret/regenerate"],
        ["PATCH", "/business/profile"],
      ] as const
    ) {
      const r = await t.call(method, path, { key: coordinator, body: { name: "Mine now" } });
      assert.equal(r.status, 403, path);
      assert.equal(r.body.code, "portal_admin_only");
    }
    assert.equal((await t.call("GET", "/business/profile", { key: coordinator })).status, 200);
  }));

Deno.test("account: the wallet is money: a coordinator gets portal_admin_only, the owner, an admin and the key read it", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const owner = await login(t, b.owner.email, b.owner.password);
    const admin = await invite(t, owner, "admin");
    const coordinator = await invite(t, owner, "coordinator");
    // spec: business 5.6: money is for an admin (403 portal_admin_only); the integration key reads.
    const refused = await t.call("GET", "/business/wallet", { key: coordinator });
    assert.equal(refused.status, 403, JSON.stringify(refused.body));
    assert.equal(refused.body.code, "portal_admin_only");
    assert.equal(refused.body.success, false);
    assert.ok(refused.body.message);
    for (const key of [owner, admin, b.api_key]) {
      const r = await t.call("GET", "/business/wallet", { key });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body.data.billing_type, "wallet");
    }
  }));

Deno.test("account: a body that claims a role or scopes changes nothing", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const owner = await login(t, b.owner.email, b.owner.password);
    const coordinator = await invite(t, owner, "coordinator");
    const claim = {
      portal_role: "owner",
      principal: "owner",
      role: "admin",
      scopes: ["billing:administer"],
      courier_platform_enabled: true,
    };
    const r = await t.call("POST", "/business/webhook-secret/regenerate", {
      key: coordinator,
      body: claim,
    });
    assert.equal(r.status, 403);
    const viaKey = await t.call("PATCH", "/business/profile", {
      key: b.api_key,
      body: { ...claim, webhook_url: "https://hooks.example.com/courier" },
    });
    assert.equal(viaKey.status, 200);
    assert.equal(viaKey.body.data.principal, "api_key");
    assert.equal(viaKey.body.data.courier_platform_enabled, false);
    const settings = await t.call("GET", `/operator/businesses/${b.id}`, { operator: true });
    assert.deepEqual(settings.body.data.api_key_scopes, []);
    const asOwner = await t.call("POST", "/business/people", {
      key: owner,
      body: { name: "Y", email: "y@example.com", portal_role: "owner" },
    });
    assert.equal(asOwner.status, 422, "nobody is invited as a second owner");
  }));

Deno.test("account: the integration key manages the webhook but not the company record", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const hook = await t.call("PATCH", "/business/profile", {
      key: b.api_key,
      body: { webhook_url: "https://hooks.example.com/x" },
    });
    assert.equal(hook.body.data.webhook_url, "https://hooks.example.com/x");
    const name = await t.call("PATCH", "/business/profile", {
      key: b.api_key,
      body: { name: "New" },
    });
    assert.equal(name.status, 403);
    assert.equal(name.body.code, "signed_in_admin_only");
    for (
      const url of [
        "http://hooks.example.com",
        "https://10.0.0.5/x",
        "https://169.254.169.254/",
        "https://u:p@example.com",
      ]
    ) {
      const bad = await t.call("PATCH", "/business/profile", {
        key: b.api_key,
        body: { webhook_url: url },
      });
      assert.equal(bad.status, 422, url);
      assert.equal(bad.body.errors[0].path, "webhook_url");
    }
  }));

Deno.test("account: the webhook URL is kept trimmed, and a blank one clears it, as the billing endpoint's", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const patch = (webhook_url: string | null) =>
      t.call("PATCH", "/business/profile", { key: b.api_key, body: { webhook_url } });
    const spaced = await patch("  https://hooks.example.com/x  ");
    assert.equal(spaced.status, 200, JSON.stringify(spaced.body));
    assert.equal(spaced.body.data.webhook_url, "https://hooks.example.com/x");
    for (const blank of ["", "   "]) {
      assert.equal((await patch("https://hooks.example.com/x")).status, 200);
      const cleared = await patch(blank);
      assert.equal(cleared.status, 200, JSON.stringify(cleared.body));
      assert.equal(cleared.body.data.webhook_url, null, JSON.stringify(blank));
    }
    // The billing endpoint falls back to no address, not to an empty one.
    const endpoint = await t.call("GET", `/operator/businesses/${b.id}`, { operator: true });
    assert.equal(endpoint.body.data.webhook_url, null);
  }));

Deno.test("account: a regenerated API key replaces the old one at once", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const r = await t.call("POST", "/business/api-key/regenerate", { key: b.api_key });
    assert.equal(r.status, 201);
    const fresh = r.body.data.api_key;
    assert.match(fresh, /^sk_live_/);
    assert.notEqual(fresh, b.api_key);
    assert.equal((await t.call("GET", "/business/profile", { key: b.api_key })).status, 401);
    assert.equal((await t.call("GET", "/business/profile", { key: fresh })).status, 200);
    const meta = await t.call("GET", "/business/api-key", { key: fresh });
    assert.equal(meta.body.data.hint, fresh.slice(-4));
    assert.ok(!JSON.stringify(meta.body).includes(fresh));
    // The scopes the key holds: its defaults, then what the operator grants and what that implies.
    assert.deepEqual(meta.body.data.scopes, [...BUSINESS_KEY_DEFAULT_SCOPES]);
    await t.call("PATCH", `/operator/businesses/${b.id}`, {
      operator: true,
      body: { api_key_scopes: ["billing:administer"] },
    });
    const granted = await t.call("GET", "/business/api-key", { key: fresh });
    assert.deepEqual(
      granted.body.data.scopes.sort(),
      [
        ...BUSINESS_KEY_DEFAULT_SCOPES,
        "billing:administer",
        "billing:view-own",
      ].sort(),
    );
  }));

Deno.test("account: a regenerated webhook secret is whsec_ and shown once; every change is in the audit trail", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const owner = await login(t, b.owner.email, b.owner.password);
    const r = await t.call("POST", "/business/webhook-secret/regenerate", { key: owner });
    assert.equal(r.status, 201);
    assert.match(r.body.data.webhook_secret, /^whsec_/);
    assert.notEqual(r.body.data.webhook_secret, b.webhook_secret);
    await t.call("PATCH", "/business/profile", {
      key: b.api_key,
      body: { webhook_url: "https://hooks.example.com/y" },
    });
    await t.call("POST", "/business/api-key/regenerate", { key: owner });
    const audit = await t.call("GET", "/business/audit-log", { key: owner });
    const actions = audit.body.data.entries.map((
      e: { action: string; by: string },
    ) => [e.action, e.by]);
    assert.deepEqual(actions.map((a: string[]) => a[0]), [
      "business_created",
      "webhook_secret_rotated",
      "profile_changed",
      "api_key_rotated",
    ]);
    assert.match(actions[1][1], /^staff:usr_/);
    assert.equal(actions[2][1], "api_key");
    const text = JSON.stringify(audit.body);
    assert.ok(!text.includes(r.body.data.webhook_secret) && !text.includes("hash"));
  }));

Deno.test("account: changing a password signs out the other devices", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const laptop = await login(t, b.owner.email, b.owner.password);
    const phone = await login(t, b.owner.email, b.owner.password);
    const r = await t.call("POST", "/business/change-password", {
      key: laptop,
      body: { current_password: b.owner.password, new_password: "a-much-better-password" },
    });
    assert.equal(r.status, 200);
    assert.equal((await t.call("GET", "/business/profile", { key: phone })).status, 401);
    // spec: business 4.3: "other devices signed out": the laptop that changed it stays signed
    // in, its own token answered.
    assert.equal(r.body.data.token, laptop);
    assert.equal(
      (await t.call("GET", "/business/profile", { key: r.body.data.token })).status,
      200,
    );
    await login(t, b.owner.email, "a-much-better-password");
    const old = await t.call("POST", "/business/login", {
      body: { email: b.owner.email, password: b.owner.password },
    });
    assert.equal(old.status, 401);
    const logout = await t.call("POST", "/business/logout", { key: r.body.data.token });
    assert.equal(logout.status, 200);
    assert.equal(
      (await t.call("GET", "/business/profile", { key: r.body.data.token })).status,
      401,
    );
  }));

Deno.test("account: two sessions of one person changing the password at once: one change stands and its new session works; the other is refused 401 and changes nothing", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const sessions = [
      await login(t, b.owner.email, b.owner.password),
      await login(t, b.owner.email, b.owner.password),
    ];
    const wanted = ["first-new-pass-81", "second-new-pass-82"];
    const answers = await Promise.all(
      sessions.map((key, i) =>
        t.call("POST", "/business/change-password", {
          key,
          body: { current_password: b.owner.password, new_password: wanted[i] },
        })
      ),
    );
    const won = answers.findIndex((r) => r.status === 200);
    assert.notEqual(won, -1, JSON.stringify(answers.map((r) => r.body)));
    const lost = 1 - won;
    // spec: business 5: the change ends the other sessions; the one that lost was one of them.
    assert.equal(answers[lost]!.status, 401, JSON.stringify(answers[lost]!.body));
    assert.equal(answers[lost]!.body.code, "unauthenticated");
    const me = await t.call("GET", "/business/profile", { key: answers[won]!.body.data.token });
    assert.equal(me.status, 200, "the session answered with the change works");
    await login(t, b.owner.email, wanted[won]!);
    const other = await t.call("POST", "/business/login", {
      body: { email: b.owner.email, password: wanted[lost] },
    });
    assert.equal(other.status, 401, "the refused change set nothing");
  }));

Deno.test("account: a person removed while changing their password is signed out (401), never answered not_found; neither password signs in", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const owner = await login(t, b.owner.email, b.owner.password);
    const person = await invited(t, owner, "admin");
    const session = await login(t, person.email, person.password);
    const [changed, removed] = await Promise.all([
      t.call("POST", "/business/change-password", {
        key: session,
        body: { current_password: person.password, new_password: "a-much-better-pass-77" },
      }),
      t.call("DELETE", `/business/people/${person.id}`, { key: owner }),
    ]);
    assert.equal(removed.status, 200, JSON.stringify(removed.body));
    // spec: business 5.6 (people), 4.3 change-password: the removal signs the person out.
    if (changed.status !== 200) {
      assert.equal(changed.status, 401, JSON.stringify(changed.body));
      assert.equal(changed.body.code, "unauthenticated");
    }
    for (const password of [person.password, "a-much-better-pass-77"]) {
      const r = await t.call("POST", "/business/login", {
        body: { email: person.email, password },
      });
      assert.equal(r.status, 401, password);
    }
  }));

Deno.test("account: a staff password change refuses weak passwords and throttles wrong guesses, as for client people", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const token = await login(t, b.owner.email, b.owner.password);
    const change = (current_password: string, new_password: string) =>
      t.call("POST", "/business/change-password", {
        key: token,
        body: { current_password, new_password },
      });
    for (const weak of ["aaaaaaaaaaaa", "password123", "1234567890", b.owner.email]) {
      const r = await change(b.owner.password, weak);
      assert.equal(r.status, 422, weak);
      assert.deepEqual(r.body.errors.map((e: { path: string }) => e.path), ["new_password"]);
    }
    for (let i = 0; i < 5; i++) {
      assert.equal((await change(`wrong-guess-${i}`, "a-much-better-password")).status, 422);
    }
    const held = await change(b.owner.password, "a-much-better-password");
    assert.equal(held.status, 429, JSON.stringify(held.body));
    assert.equal(held.body.code, "rate_limited");
    assert.ok(Number(held.headers.get("Retry-After")) > 0);
    t.clock.advanceBy(3_600_000);
    assert.equal((await change(b.owner.password, "a-much-better-password")).status, 200);
  }));

Deno.test("account: the Starter plan allows five employee accounts", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness({ plan: "starter" });
    const owner = await login(t, b.owner.email, b.owner.password);
    for (let i = 0; i < 4; i++) {
      const r = await t.call("POST", "/business/people", {
        key: owner,
        body: { name: `P${i}`, email: `p${i}.${b.id}@example.com`, portal_role: "coordinator" },
      });
      assert.equal(r.status, 201);
    }
    const sixth = await t.call("POST", "/business/people", {
      key: owner,
      body: { name: "P5", email: `p5.${b.id}@example.com`, portal_role: "coordinator" },
    });
    assert.equal(sixth.status, 422);
    assert.equal(sixth.body.code, "employee_limit_reached");
  }));

Deno.test("account: the OpenAPI document and the Postman collection grow with the routes", () =>
  withTestEnv(async (t) => {
    const doc = await t.call("GET", "/api-docs/openapi.json");
    assert.equal(doc.status, 200);
    assert.equal(doc.body.openapi, "3.1.0");
    for (const path of ["/operator/businesses", "/business/profile", "/business/login"]) {
      assert.ok(doc.body.paths[path], path);
    }
    assert.ok(doc.body.paths["/operator/businesses"].post.requestBody);
    const postman = await t.call("GET", "/api-docs/postman.json");
    assert.ok(postman.body.variable.some((v: { key: string }) => v.key === "apiKey"));
    // A folder per document, a folder per section within it, and the requests in those.
    const requests = postman.body.item.flatMap((d: { item: { item: unknown[] }[] }) =>
      d.item.flatMap((s) => s.item)
    );
    assert.ok(requests.length >= Object.keys(doc.body.paths).length);
  }));

Deno.test("account: the low-balance threshold is an exact amount in the account's currency, answered as a number", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const cases: [number | string, number][] = [[50, 50], ["007.5", 7.5], [0.1, 0.1]];
    for (const [sent, stored] of cases) {
      const r = await t.call("PATCH", "/business/profile", {
        key: b.api_key,
        body: { low_balance_threshold: sent },
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body.data.low_balance_threshold, stored);
    }
    for (const sent of [10.123, "10.123", 1e21, 0.30000000000000004]) {
      const r = await t.call("PATCH", "/business/profile", {
        key: b.api_key,
        body: { low_balance_threshold: sent },
      });
      assert.equal(r.status, 422, `${sent}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.code, "validation_failed");
      assert.equal(r.body.errors[0].path, "low_balance_threshold");
    }
    const profile = await t.call("GET", "/business/profile", { key: b.api_key });
    assert.equal(profile.body.data.low_balance_threshold, 0.1);
    const settings = await t.call("GET", `/operator/businesses/${b.id}`, { operator: true });
    assert.equal(settings.body.data.low_balance_threshold, 0.1);
    // The audit trail shows the change as the profile does, not as its stored text ("0.10").
    const audit = await t.call("GET", "/business/audit-log", { key: b.api_key });
    const changes = audit.body.data.entries
      .filter((e: { action: string }) => e.action === "profile_changed")
      .map((e: { detail: { changes: unknown } }) => e.detail.changes);
    assert.deepEqual(changes, [
      { low_balance_threshold: 50 },
      { low_balance_threshold: 7.5 },
      { low_balance_threshold: 0.1 },
    ]);
  }));

/** The owner invites a person; answers the person's id, e-mail and password. */
Deno.test("account: regenerating the API key ends a legacy unprefixed key too", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const legacy = "0a1b2c3d4e5f60718293a4b5c6d7e8f9";
    await t.env.runtime.ask(businessActor, b.id, b.id, {
      kind: "import_legacy_key",
      key: { hash: await hashSecret(legacy), hint: legacy.slice(-4), created_at: 0 },
      by: "operator",
    });
    assert.equal((await t.call("GET", "/business/profile", { key: legacy })).status, 200);
    const r = await t.call("POST", "/business/api-key/regenerate", { key: legacy });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    // spec: business 4.3: the previous key is invalid at once, whichever key it was.
    for (const old of [legacy, b.api_key]) {
      const refused = await t.call("GET", "/business/profile", { key: old });
      assert.equal(refused.status, 401, old);
      assert.equal(refused.body.code, "unauthenticated");
    }
    assert.equal(
      (await t.call("GET", "/business/profile", { key: r.body.data.api_key })).status,
      200,
    );
  }));

Deno.test("account: a webhook URL keeps only what was checked: control characters and other ports are refused", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const patch = (webhook_url: string) =>
      t.call("PATCH", "/business/profile", { key: b.api_key, body: { webhook_url } });
    for (
      const url of [
        "https://hooks.example.com/a\tb",
        "https://hooks.example.com/a\nX-Injected: 1",
        "https://hooks.example.com/\u0000",
        "https://hooks.example.com:8443/x",
        "https://hooks.example.com:80/x",
      ]
    ) {
      const bad = await patch(url);
      assert.equal(bad.status, 422, JSON.stringify(url));
      assert.equal(bad.body.code, "validation_failed");
      assert.equal(bad.body.errors[0].path, "webhook_url");
    }
    const profile = await t.call("GET", "/business/profile", { key: b.api_key });
    assert.equal(profile.body.data.webhook_url ?? null, null, "nothing refused was kept");
    // What is kept is the address as checked, not the text as sent.
    const kept = await patch("HTTPS://Hooks.Example.COM:443/x");
    assert.equal(kept.status, 200, JSON.stringify(kept.body));
    assert.equal(kept.body.data.webhook_url, "https://hooks.example.com/x");
  }));
