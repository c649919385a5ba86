import assert from "node:assert/strict";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { bearerToken } from "../../../src/http/guards.ts";
import { business, driver } from "../../../src/platform/auth/auth.ts";
import { courierPlatform } from "../../../src/courier/auth.ts";
import type { Api } from "../../../src/http/app.ts";
import { ok } from "../../../src/http/app.ts";
import { define } from "../../../src/http/route.ts";
import { hashSecret } from "../../../src/domain/secrets.ts";
import { ANONYMOUS_RATE_LIMIT } from "../../../src/limits.ts";
import { businessActor } from "../../../actors/platform/business/mod.ts";

/** Probe routes for the shared guards (the courier endpoints themselves arrive with later issues). */
function probes(api: Api): void {
  define(api, {
    method: "get",
    path: "/business/courier/probe",
    summary: "probe",
    tag: "Probe",
    security: "business",
    middleware: [business({ scope: "shipments:view-own" }), courierPlatform],
  }, (c) => ok(c, { reached: true }));
  define(api, {
    method: "get",
    path: "/business/billing-probe",
    summary: "probe",
    tag: "Probe",
    security: "business",
    middleware: [business({ scope: "billing:administer" })],
  }, (c) => ok(c, { reached: true }));
  // An endpoint of Business API 5's deliveries table not built yet: declared behind business()
  // naming no scope, the table alone lets deliveries partner keys reach it.
  define(api, {
    method: "get",
    path: "/business/checkouts",
    summary: "probe",
    tag: "Probe",
    security: "business",
    middleware: [business()],
  }, (c) => ok(c, { reached: true }));
  define(api, {
    method: "get",
    path: "/driver/probe",
    summary: "probe",
    tag: "Probe",
    security: "driver",
    middleware: [driver],
  }, (c) => ok(c, { reached: true }));
  define(api, {
    method: "get",
    path: "/business/boom",
    summary: "probe",
    tag: "Probe",
    security: "public",
  }, () => {
    throw new Error("secret internals: password=hunter2");
  });
}

function withEnv(fn: (t: TestEnv) => Promise<void>, name: "live" | "sandbox" = "live") {
  return withTestEnv(fn, { name, routers: [probes] });
}

Deno.test("auth: live refuses a sandbox key with 401 sandbox_key_on_live", () =>
  withEnv(async (t) => {
    const r = await t.call("GET", "/business/profile", { key: "sk_sandbox_abcdefabcdefabcdef" });
    assert.equal(r.status, 401);
    assert.equal(r.body.code, "sandbox_key_on_live");
    const missing = await t.call("GET", "/business/profile");
    assert.equal(missing.status, 401);
    assert.equal(missing.body.code, "unauthenticated");
    const unknown = await t.call("GET", "/business/profile", {
      key: "sk_live_nottherightkey000000",
    });
    assert.equal(unknown.body.code, "unauthenticated");
  }));

Deno.test("auth: the sandbox refuses live keys, missing keys and portal sign-ins with live_key_on_sandbox", () =>
  withEnv(async (t) => {
    const b = await t.createBusiness();
    assert.match(b.api_key, /^sk_sandbox_/);
    assert.equal((await t.call("GET", "/business/profile", { key: b.api_key })).status, 200);
    for (
      const key of [undefined, "sk_live_abcdefabcdefabcdef", "st_sessiontoken", "legacykey123"]
    ) {
      const r = await t.call("GET", "/business/profile", key ? { key } : {});
      assert.equal(r.status, 401, `key ${key}`);
      assert.equal(r.body.code, "live_key_on_sandbox");
    }
    const login = await t.call("POST", "/business/login", {
      body: { email: b.owner.email, password: b.owner.password },
    });
    assert.equal(login.status, 401);
    assert.equal(login.body.code, "live_key_on_sandbox");
    const profile = await t.call("GET", "/business/profile", { key: b.api_key });
    assert.equal(profile.headers.get("X-Service-Environment"), "sandbox");
    assert.equal(profile.body.data.environment, "sandbox");
  }, "sandbox"));

Deno.test("auth: the sandbox refuses a missing, unknown or live driver token with live_key_on_sandbox", () =>
  withEnv(async (t) => {
    const b = await t.createBusiness();
    const d = await t.call("POST", `/operator/businesses/${b.id}/drivers`, {
      operator: true,
      body: { name: "Neo", phone: "+26771234567", vehicle_type_id: 1 },
    });
    assert.equal(d.status, 201);
    assert.equal((await t.call("GET", "/driver/probe", { bearer: d.body.data.token })).status, 200);
    const missing = await t.call("GET", "/driver/probe");
    assert.equal(missing.status, 401);
    assert.equal(missing.body.code, "live_key_on_sandbox");
    // A token the sandbox never issued (a live driver's, say) is refused the same way.
    for (const bearer of ["dt_issuedonlive000000000000", b.api_key]) {
      const r = await t.call("GET", "/driver/probe", { bearer });
      assert.equal(r.status, 401, bearer);
      assert.equal(r.body.code, "live_key_on_sandbox");
      assert.equal(r.body.success, false);
    }
  }, "sandbox"));

Deno.test("auth: a legacy unprefixed key keeps working on live", () =>
  withEnv(async (t) => {
    const b = await t.createBusiness();
    const legacy = "9f8e7d6c5b4a39281706f5e4d3c2b1a0";
    await t.env.runtime.ask(businessActor, b.id, b.id, {
      kind: "import_legacy_key",
      key: { hash: await hashSecret(legacy), hint: legacy.slice(-4), created_at: 0 },
      by: "operator",
    });
    const r = await t.call("GET", "/business/profile", { key: legacy });
    assert.equal(r.status, 200);
    assert.equal(r.body.data.principal, "api_key");
  }));

Deno.test("auth: the business key has the default courier scopes; more only when the operator stores them", () =>
  withEnv(async (t) => {
    const b = await t.createBusiness();
    await t.call("PATCH", `/operator/businesses/${b.id}`, {
      operator: true,
      body: { courier_platform_enabled: true },
    });
    assert.equal((await t.call("GET", "/business/courier/probe", { key: b.api_key })).status, 200);
    const denied = await t.call("GET", "/business/billing-probe", { key: b.api_key });
    assert.equal(denied.status, 403);
    assert.equal(denied.body.code, "scope_denied");
    assert.match(denied.body.message, /billing:administer/);
    await t.call("PATCH", `/operator/businesses/${b.id}`, {
      operator: true,
      body: { api_key_scopes: ["billing:administer"] },
    });
    assert.equal((await t.call("GET", "/business/billing-probe", { key: b.api_key })).status, 200);
    assert.equal((await t.call("GET", "/business/courier/probe", { key: b.api_key })).status, 200);
  }));

Deno.test("auth: courier endpoints answer 403 until the operator enables the courier platform", () =>
  withEnv(async (t) => {
    const b = await t.createBusiness();
    const r = await t.call("GET", "/business/courier/probe", { key: b.api_key });
    assert.equal(r.status, 403);
    assert.equal(r.body.code, "courier_platform_disabled");
    await t.call("PATCH", `/operator/businesses/${b.id}`, {
      operator: true,
      body: { courier_platform_enabled: true },
    });
    assert.equal((await t.call("GET", "/business/courier/probe", { key: b.api_key })).status, 200);
  }));

Deno.test("auth: a partner key reaches only its stored scopes and dies when revoked", () =>
  withEnv(async (t) => {
    const b = await t.createBusiness();
    const pk = await t.call("POST", `/operator/businesses/${b.id}/partner-keys`, {
      operator: true,
      body: { partner: "Connector", scopes: ["deliveries"] },
    });
    const key = pk.body.data.key;
    assert.equal((await t.call("GET", "/business/checkouts", { key })).status, 200);
    for (
      const path of ["/business/profile", "/business/billing-probe", "/business/courier/probe"]
    ) {
      const r = await t.call("GET", path, { key });
      assert.equal(r.status, 403, path);
      assert.equal(r.body.code, "scope_denied");
    }
    await t.call("DELETE", `/operator/partner-keys/${pk.body.data.id}`, { operator: true });
    assert.equal((await t.call("GET", "/business/checkouts", { key })).status, 401);
    // The business key is unaffected.
    assert.equal((await t.call("GET", "/business/profile", { key: b.api_key })).status, 200);
  }));

Deno.test("auth: a driver token authenticates the driver routes only", () =>
  withEnv(async (t) => {
    const b = await t.createBusiness();
    const d = await t.call("POST", `/operator/businesses/${b.id}/drivers`, {
      operator: true,
      body: { name: "Neo", phone: "+26771234567", vehicle_type_id: 1 },
    });
    const token = d.body.data.token;
    assert.equal((await t.call("GET", "/driver/probe", { bearer: token })).status, 200);
    assert.equal((await t.call("GET", "/driver/probe", { bearer: "dt_wrong" })).status, 401);
    assert.equal((await t.call("GET", "/driver/probe", { bearer: b.api_key })).status, 401);
    assert.equal((await t.call("GET", "/business/profile", { key: token })).status, 401);
  }));

Deno.test("auth: the Bearer scheme is matched in any case (RFC 9110 11.1), the token as sent", () =>
  withEnv(async (t) => {
    const b = await t.createBusiness();
    const d = await t.call("POST", `/operator/businesses/${b.id}/drivers`, {
      operator: true,
      body: { name: "Neo", phone: "+26771234567", vehicle_type_id: 1 },
    });
    const token = d.body.data.token as string;
    for (const scheme of ["bearer", "BEARER", "Bearer"]) {
      const r = await t.call("GET", "/driver/probe", {
        headers: { Authorization: `${scheme} ${token}` },
      });
      assert.equal(r.status, 200, scheme);
    }
    // The token itself is compared as sent: another case is another token.
    const upper = await t.call("GET", "/driver/probe", {
      headers: { Authorization: `Bearer ${token.toUpperCase()}` },
    });
    assert.equal(upper.status, 401);
    assert.equal(bearerToken("bearer  dt_x "), "dt_x");
    assert.equal(bearerToken("Basic dt_x"), "");
    assert.equal(bearerToken("Bearerdt_x"), "");
    assert.equal(bearerToken(undefined), "");
  }));

Deno.test("auth: rate limits per plan set X-RateLimit headers and answer 429 past them", () =>
  withEnv(async (t) => {
    const b = await t.createBusiness({ plan: "starter" });
    let last;
    for (let i = 0; i < 30; i++) {
      last = await t.call("GET", "/business/profile", { key: b.api_key });
      assert.equal(last.status, 200);
      assert.equal(last.headers.get("X-RateLimit-Remaining"), String(29 - i));
      assert.ok(Number(last.headers.get("X-RateLimit-Reset")) * 1000 > t.clock.now());
    }
    const refused = await t.call("GET", "/business/profile", { key: b.api_key });
    assert.equal(refused.status, 429);
    assert.equal(refused.body.code, "rate_limited");
    assert.ok(Number(refused.headers.get("Retry-After")) >= 1);
    assert.equal(refused.headers.get("X-RateLimit-Remaining"), "0");
    // Another business is not affected; the next minute starts afresh.
    const other = await t.createBusiness({ plan: "starter" });
    assert.equal((await t.call("GET", "/business/profile", { key: other.api_key })).status, 200);
    t.clock.advanceBy(60_000);
    assert.equal((await t.call("GET", "/business/profile", { key: b.api_key })).status, 200);
    // Enterprise limits are set per business by the operator.
    const ent = await t.createBusiness({ plan: "enterprise" });
    await t.call("PATCH", `/operator/businesses/${ent.id}`, {
      operator: true,
      body: { rate_limit_per_minute: 2 },
    });
    await t.call("GET", "/business/profile", { key: ent.api_key });
    await t.call("GET", "/business/profile", { key: ent.api_key });
    assert.equal((await t.call("GET", "/business/profile", { key: ent.api_key })).status, 429);
  }));

Deno.test("auth: every response carries X-Request-Id; an internal error never shows internals", () =>
  withEnv(async (t) => {
    const r = await t.call("GET", "/business/boom");
    assert.equal(r.status, 500);
    assert.equal(r.body.code, "internal_error");
    const id = r.headers.get("X-Request-Id");
    assert.ok(id && r.body.message.includes(id));
    assert.ok(!JSON.stringify(r.body).includes("hunter2"));
    assert.ok(!JSON.stringify(r.body).includes("at "), "no stack trace");
    const missing = await t.call("GET", "/nowhere");
    assert.equal(missing.status, 404);
    assert.equal(missing.body.code, "not_found");
    assert.ok(missing.headers.get("X-Request-Id"));
    assert.equal(missing.headers.get("X-Service-Environment"), "live");
  }));

Deno.test("auth: another tenant's resources answer 404", () =>
  withEnv(async (t) => {
    const a = await t.createBusiness();
    const b = await t.createBusiness();
    // B's key cannot read A's business actor through any path parameter: ids are scoped.
    const r = await t.env.runtime.ask(businessActor, b.id, a.id, { kind: "get" });
    assert.ok(!r.ok && r.code === "not_found");
    const audit = await t.call("GET", "/business/audit-log", { key: b.api_key });
    assert.ok(
      audit.body.data.entries.every((e: { detail: unknown }) => !JSON.stringify(e).includes(a.id)),
    );
  }));

Deno.test("envelope: sandbox answers carry environment: sandbox at the top level, live ones do not", async () => {
  await withEnv(async (t) => {
    const b = await t.createBusiness();
    const wallet = await t.call("GET", "/business/wallet", { key: b.api_key });
    assert.equal(wallet.status, 200);
    assert.equal(wallet.body.success, true);
    assert.equal(wallet.body.environment, "sandbox");
    const refused = await t.call("GET", "/business/profile");
    assert.equal(refused.body.code, "live_key_on_sandbox");
    assert.equal(refused.body.environment, "sandbox");
    const missing = await t.call("GET", "/business/nothing-here", { key: b.api_key });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.environment, "sandbox");
    // A document is no envelope: the OpenAPI file stays a valid OpenAPI document.
    const doc = await t.call("GET", "/api-docs/openapi.json");
    assert.equal(doc.status, 200);
    assert.equal("environment" in doc.body, false);
  }, "sandbox");
  await withEnv(async (t) => {
    const b = await t.createBusiness();
    const wallet = await t.call("GET", "/business/wallet", { key: b.api_key });
    assert.equal(wallet.status, 200);
    assert.equal("environment" in wallet.body, false);
  });
});

Deno.test("envelope: live refuses X-Service-Test: true with 422 test_mode_moved_to_sandbox and changes nothing; the sandbox ignores it", async () => {
  const hook = { webhook_url: "https://hooks.example.com/test-run" };
  await withEnv(async (t) => {
    const b = await t.createBusiness();
    for (const value of ["true", "TRUE", " true "]) {
      const r = await t.call("PATCH", "/business/profile", {
        key: b.api_key,
        body: hook,
        headers: { "X-Service-Test": value },
      });
      assert.equal(r.status, 422, JSON.stringify(r.body));
      assert.equal(r.body.success, false);
      assert.equal(r.body.code, "test_mode_moved_to_sandbox");
      assert.match(r.body.message, /sandbox/);
    }
    const profile = await t.call("GET", "/business/profile", { key: b.api_key });
    assert.equal(profile.body.data.webhook_url, null, "nothing changed");
    const plain = await t.call("PATCH", "/business/profile", {
      key: b.api_key,
      body: hook,
      headers: { "X-Service-Test": "false" },
    });
    assert.equal(plain.status, 200, "only a true flag is refused");
  });
  await withEnv(async (t) => {
    const b = await t.createBusiness();
    const r = await t.call("PATCH", "/business/profile", {
      key: b.api_key,
      body: hook,
      headers: { "X-Service-Test": "true" },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.data.webhook_url, hook.webhook_url);
  }, "sandbox");
});

Deno.test("routing: a path that exists under other methods answers 405 with Allow; an unknown path 404", () =>
  withEnv(async (t) => {
    const b = await t.createBusiness();
    const wrong = await t.call("GET", "/client/book", { key: b.api_key });
    assert.equal(wrong.status, 405, JSON.stringify(wrong.body));
    assert.equal(wrong.body.code, "method_not_allowed");
    assert.equal(wrong.headers.get("Allow"), "POST");
    assert.deepEqual(wrong.body.allow, ["POST"]);
    assert.match(wrong.body.message, /\/api\/client\/book does not take GET; it takes POST/);
    assert.ok(wrong.headers.get("X-Request-Id"));
    // A path with a parameter: the quote's book action takes only POST.
    const param = await t.call("DELETE", "/client/quotes/Q-1/book");
    assert.equal(param.status, 405);
    assert.equal(param.headers.get("Allow"), "POST");
    // GET routes also take HEAD.
    const profile = await t.call("DELETE", "/business/profile", { key: b.api_key });
    assert.equal(profile.status, 405);
    assert.match(profile.headers.get("Allow") ?? "", /^GET, HEAD/);
    // A trailing slash is another path to the router: 404, never 405 naming the method sent.
    const slashed = await t.call("POST", "/client/book/", { key: b.api_key });
    assert.equal(slashed.status, 404, JSON.stringify(slashed.body));
    assert.equal(slashed.body.code, "not_found");
    const nowhere = await t.call("POST", "/client/nowhere");
    assert.equal(nowhere.status, 404);
    assert.equal(nowhere.body.code, "not_found");
    assert.equal(nowhere.headers.get("Allow"), null);
    // /health, outside /api, as any other path (before, 404 not_found).
    const health = await t.app.request("/health", { method: "POST" });
    assert.equal(health.status, 405);
    assert.equal(health.headers.get("Allow"), "GET, HEAD");
    assert.equal((await health.json()).code, "method_not_allowed");
  }));

Deno.test("auth: refusals of unknown callers carry X-RateLimit headers and are throttled per address", () =>
  withEnv(async (t) => {
    const limit = ANONYMOUS_RATE_LIMIT.perMinute;
    const first = await t.call("GET", "/client/account");
    assert.equal(first.status, 401);
    assert.equal(first.headers.get("X-RateLimit-Remaining"), String(limit - 1));
    assert.ok(Number(first.headers.get("X-RateLimit-Reset")) * 1000 > t.clock.now());
    const wrongKey = await t.call("GET", "/business/profile", { key: "sk_live_guess" });
    assert.equal(wrongKey.status, 401);
    assert.equal(wrongKey.headers.get("X-RateLimit-Remaining"), String(limit - 2));
    const nowhere = await t.call("GET", "/nowhere");
    assert.equal(nowhere.status, 404);
    assert.equal(nowhere.headers.get("X-RateLimit-Remaining"), String(limit - 3));
    // Guessing keys from one address is throttled as sign-in is.
    for (let i = 3; i < limit; i++) {
      assert.equal(
        (await t.call("GET", "/client/account", { headers: { "X-Client-API-Key": `k${i}` } }))
          .status,
        401,
      );
    }
    const throttled = await t.call("GET", "/client/account", {
      headers: { "X-Client-API-Key": "k" },
    });
    assert.equal(throttled.status, 429);
    assert.equal(throttled.body.code, "rate_limited");
    assert.equal(throttled.headers.get("X-RateLimit-Remaining"), "0");
    assert.ok(Number(throttled.headers.get("Retry-After")) >= 1);
    // A known caller is counted on its own limit, not the address's.
    const b = await t.createBusiness();
    const known = await t.call("GET", "/business/profile", { key: b.api_key });
    assert.equal(known.status, 200);
    t.clock.advanceBy(60_000);
    assert.equal((await t.call("GET", "/client/account")).status, 401, "a new minute");
  }));

Deno.test("auth: the OpenAPI document and the Postman collection carry X-RateLimit headers and are throttled per address", () =>
  withEnv(async (t) => {
    const limit = ANONYMOUS_RATE_LIMIT.perMinute;
    const doc = await t.call("GET", "/api-docs/openapi.json");
    assert.equal(doc.status, 200);
    assert.equal(doc.headers.get("X-RateLimit-Remaining"), String(limit - 1));
    assert.ok(Number(doc.headers.get("X-RateLimit-Reset")) * 1000 > t.clock.now());
    const postman = await t.call("GET", "/api-docs/postman.json");
    assert.equal(postman.status, 200);
    assert.equal(postman.headers.get("X-RateLimit-Remaining"), String(limit - 2));
    for (let i = 2; i < limit; i++) {
      assert.equal((await t.call("GET", "/client/account")).status, 401);
    }
    const throttled = await t.call("GET", "/api-docs/openapi.json");
    assert.equal(throttled.status, 429);
    assert.equal(throttled.body.code, "rate_limited");
    assert.ok(Number(throttled.headers.get("Retry-After")) >= 1);
  }));

Deno.test("auth: guessed driver-app tokens are throttled per address with the documented 429", () =>
  withEnv(async (t) => {
    // The platform driver's routes (CONTRACT "Driver app") count an unknown token against its
    // address as every credential does; the 429 that follows is one their entries list
    // (strict mode answers an unlisted one 500 undocumented_refusal).
    const doc = (await t.call("GET", "/api-docs/openapi.json")).body;
    assert.ok(doc.paths["/driver/me"].get.responses["429"], "GET /driver/me lists its 429");
    const limit = ANONYMOUS_RATE_LIMIT.perMinute;
    for (let i = 1; i < limit; i++) {
      const r = await t.call("GET", "/driver/me", { bearer: `dt_live_guess${i}` });
      assert.equal(r.status, 401);
    }
    const throttled = await t.call("GET", "/driver/offers", { bearer: "dt_live_guess" });
    assert.equal(throttled.status, 429, JSON.stringify(throttled.body));
    assert.equal(throttled.body.code, "rate_limited");
    assert.ok(Number(throttled.headers.get("Retry-After")) >= 1);
  }));

Deno.test("auth: the operator's refused calls never throttle its address; a wrong token does", () =>
  withEnv(async (t) => {
    const limit = ANONYMOUS_RATE_LIMIT.perMinute;
    for (let i = 0; i <= limit; i++) {
      const r = await t.call("PATCH", "/operator/businesses/nobody", { operator: true, body: {} });
      assert.equal(r.status, 404);
      assert.equal(r.headers.get("X-RateLimit-Remaining"), null);
    }
    const guess = await t.call("GET", "/operator/businesses/nobody", {
      headers: { Authorization: "Bearer op_guess" },
    });
    assert.equal(guess.status, 401);
    assert.equal(guess.headers.get("X-RateLimit-Remaining"), String(limit - 1));
  }));

Deno.test("auth: a driver token says its environment; live answers a sandbox one sandbox_key_on_live", async () => {
  let sandboxToken = "";
  await withEnv(async (t) => {
    const b = await t.createBusiness();
    const d = await t.call("POST", `/operator/businesses/${b.id}/drivers`, {
      operator: true,
      body: { name: "Neo", phone: "+26771234567", vehicle_type_id: 1 },
    });
    sandboxToken = d.body.data.token;
    assert.match(sandboxToken, /^dt_sandbox_/);
    assert.equal((await t.call("GET", "/driver/probe", { bearer: sandboxToken })).status, 200);
  }, "sandbox");
  await withEnv(async (t) => {
    const r = await t.call("GET", "/driver/probe", { bearer: sandboxToken });
    assert.equal(r.status, 401);
    assert.equal(r.body.code, "sandbox_key_on_live");
    const unknown = await t.call("GET", "/driver/probe", { bearer: "dt_live_unknown000000" });
    assert.equal(unknown.status, 401);
    assert.equal(unknown.body.code, "unauthenticated");
  });
});
