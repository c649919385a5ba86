import assert from "node:assert/strict";
import fc from "fast-check";
import { requestIdOf } from "../../src/http/request_log.ts";
import { logLines } from "../helpers/log_lines.ts";
import { OPERATOR_TOKEN, withTestEnv } from "../helpers/test_env.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

Deno.test("request log: one line per request with its id, route pattern, status, tenant and credential", async () => {
  const log = logLines();
  await withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const read = await t.call("GET", `/operator/businesses/${b.id}`, {
      operator: true,
      headers: { "X-Request-Id": "trace-abc.1:2" },
    });
    assert.equal(read.status, 200);
    const profile = await t.call("GET", "/business/profile", { key: b.api_key });
    assert.equal(profile.status, 200);
    const lines = log.all().filter((l) => l.msg === "request");
    assert.equal(lines.length, 3);
    const [, byOperator, byKey] = lines;
    assert.equal(byOperator!.request_id, "trace-abc.1:2");
    assert.equal(byOperator!.method, "GET");
    // The pattern Hono matched, never the URL with its id.
    assert.equal(byOperator!.route, "/api/operator/businesses/:id");
    assert.equal(byOperator!.status, 200);
    assert.equal(typeof byOperator!.duration_ms, "number");
    assert.equal(byOperator!.credential, "operator");
    assert.equal(byOperator!.tenant_id, null);
    assert.equal(byOperator!.environment, "live");
    assert.equal(byKey!.route, "/api/business/profile");
    assert.equal(byKey!.tenant_id, b.id);
    assert.equal(byKey!.credential, "business_key");
    assert.equal(byKey!.request_id, profile.headers.get("X-Request-Id"));
    assert.ok(!JSON.stringify(lines).includes(`/operator/businesses/${b.id}`));
  }, { log: log.destination });
});

Deno.test("request log: no key, token, password or body in any line", async () => {
  const log = logLines();
  await withTestEnv(async (t) => {
    const b = await t.createBusiness();
    await t.call("GET", "/business/profile", { key: b.api_key });
    const login = await t.call("POST", "/business/login", {
      body: { email: b.owner.email, password: b.owner.password },
    });
    assert.equal(login.status, 200);
    // A wrong password is refused and logged as a refusal, the password still nowhere.
    await t.call("POST", "/business/login", {
      body: { email: b.owner.email, password: "wrong-password-Zx81!" },
    });
    const text = log.raw.join("");
    assert.ok(log.raw.length >= 4);
    for (
      const secret of [
        b.api_key,
        b.webhook_secret,
        b.owner.password,
        "wrong-password-Zx81!",
        login.body.data.token,
        OPERATOR_TOKEN,
        b.owner.email,
      ]
    ) {
      assert.ok(!text.includes(secret), `a log line holds ${secret.slice(0, 6)}...`);
    }
  }, { log: log.destination });
});

Deno.test("request log: a refusal is a line of its own, with its code and the request's id", async () => {
  const log = logLines();
  await withTestEnv(async (t) => {
    const r = await t.call("GET", "/business/profile", {
      key: "sk_live_not_a_real_key_000000000000",
      headers: { "X-Request-Id": "refused-1" },
    });
    assert.equal(r.status, 401);
    const refused = log.all().filter((l) => l.event === "refused");
    assert.deepEqual(
      refused.map((l) => [l.request_id, l.status, l.code]),
      [["refused-1", 401, "unauthenticated"]],
    );
    const request = log.all().find((l) => l.msg === "request" && l.request_id === "refused-1");
    assert.equal(request?.status, 401);
    assert.equal(request?.route, "/api/business/profile");
    // A tracking link's refusal, in its own shape ({error}), is a line of its own too.
    const link = await t.call("GET", "/s/tok123abc", { headers: { "X-Request-Id": "refused-2" } });
    assert.equal(link.status, 404);
    const linkRefused = log.all().find((l) =>
      l.event === "refused" && l.request_id === "refused-2"
    );
    assert.equal(linkRefused?.code, "not_found");
  }, { log: log.destination });
});

Deno.test("request log: a path no route matches is logged as unmatched", async () => {
  const log = logLines();
  await withTestEnv(async (t) => {
    const r = await t.call("GET", "/no/such/thing/sk_live_secretish");
    assert.equal(r.status, 404);
    const line = log.all().find((l) => l.msg === "request");
    assert.equal(line?.route, "unmatched");
    assert.ok(!log.raw.join("").includes("sk_live_secretish"));
  }, { log: log.destination });
});

Deno.test("X-Request-Id: a safe one is kept and echoed, an unsafe or missing one replaced", () =>
  withTestEnv(async (t) => {
    const kept = await t.call("GET", "/operator/clock", {
      operator: true,
      headers: { "X-Request-Id": "Abc-123_x.y:z" },
    });
    assert.equal(kept.headers.get("X-Request-Id"), "Abc-123_x.y:z");
    for (const unsafe of ["a b", "x".repeat(129), "id<script>", "caf\u00e9"]) {
      const r = await t.call("GET", "/operator/clock", {
        operator: true,
        headers: { "X-Request-Id": unsafe },
      });
      assert.match(r.headers.get("X-Request-Id")!, UUID, unsafe);
    }
    const none = await t.call("GET", "/operator/clock", { operator: true });
    assert.match(none.headers.get("X-Request-Id")!, UUID);
  }));

Deno.test("requestIdOf() keeps exactly 1-128 characters of [A-Za-z0-9._:-]", () => {
  const safe = fc.stringMatching(/^[A-Za-z0-9._:-]{1,128}$/);
  fc.assert(fc.property(safe, (id) => requestIdOf(id) === id));
  fc.assert(
    fc.property(
      fc.string({ minLength: 0, maxLength: 200 }).filter((s) =>
        !/^[A-Za-z0-9._:-]{1,128}$/.test(s)
      ),
      (id) => UUID.test(requestIdOf(id)),
    ),
  );
  assert.match(requestIdOf(undefined), UUID);
});

Deno.test("X-Request-Id: answers a route makes itself (a page, the metrics scrape) carry the id, environment and rate headers", () =>
  withTestEnv(async (t) => {
    const page = await t.app.request("/api/business/courier/board", {
      headers: { "X-Request-Id": "page-1" },
    });
    assert.equal(page.status, 200);
    assert.match(page.headers.get("Content-Type")!, /^text\/html/);
    await page.arrayBuffer();
    assert.equal(page.headers.get("X-Request-Id"), "page-1");
    assert.equal(page.headers.get("X-Service-Environment"), "live");
    // The page is anyone's, counted against the caller's address (guards.ts anonymous).
    assert.ok(page.headers.get("X-RateLimit-Remaining"));
    const scrape = await t.app.request("/api/metrics", {
      headers: { Authorization: `Bearer ${OPERATOR_TOKEN}` },
    });
    assert.equal(scrape.status, 200);
    assert.match(
      await scrape.text(),
      /http_request_duration_seconds_count\{method="GET",route="\/api\/business\/courier\/board",status="200"\} 1/,
    );
    assert.match(scrape.headers.get("X-Request-Id")!, UUID);
    assert.equal(scrape.headers.get("X-Service-Environment"), "live");
  }));

Deno.test("request log and metrics: a method no route knows is `OTHER`, never the caller's text", async () => {
  const log = logLines();
  await withTestEnv(async (t) => {
    // A request line's method is any token the caller writes (Deno serves them all): as a label
    // each would be a new series, and a caller could fill the scrape and the memory behind it.
    const methods = ["SK_LIVE_SECRETISH", "PROPFIND", "X1", "X2"];
    for (const method of methods) {
      const r = await t.app.request("/api/business/profile", { method });
      assert.ok(r.status >= 400 && r.status < 500, `${method}: ${r.status}`);
      await r.body?.cancel();
    }
    const scrape = await t.app.request("/api/metrics", {
      headers: { Authorization: `Bearer ${OPERATOR_TOKEN}` },
    });
    const text = await scrape.text();
    for (const method of methods) assert.ok(!text.includes(method), `${method} is a label`);
    assert.match(text, /http_request_duration_seconds_count\{method="OTHER",[^}]*\} 4/);
    const lines = log.all().filter((l) => l.msg === "request" && l.method !== "GET");
    assert.deepEqual(lines.map((l) => l.method), ["OTHER", "OTHER", "OTHER", "OTHER"]);
    assert.ok(!log.raw.join("").includes("SK_LIVE_SECRETISH"));
  }, { log: log.destination });
});

Deno.test("request log: a known credential's refusal (scope denied) names its tenant and credential kind", async () => {
  const log = logLines();
  await withTestEnv(async (t) => {
    const b = await t.createBusiness();
    // The business key holds no billing scope (courier 5 rule 1).
    const r = await t.call("GET", "/business/courier/billing/events", {
      key: b.api_key,
      headers: { "X-Request-Id": "scope-1" },
    });
    assert.equal(r.status, 403, JSON.stringify(r.body));
    assert.equal(r.body.code, "scope_denied");
    const line = log.all().find((l) => l.msg === "request" && l.request_id === "scope-1");
    assert.equal(line?.tenant_id, b.id);
    assert.equal(line?.credential, "business_key");
  }, { log: log.destination });
});

Deno.test("request log: X-Service-Test refused on live names its tenant and credential; a wrong key with it is 401", async () => {
  const log = logLines();
  await withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const flagged = { "X-Service-Test": "true", "X-Request-Id": "flag-1" };
    const r = await t.call("GET", "/business/profile", { key: b.api_key, headers: flagged });
    assert.equal(r.status, 422, JSON.stringify(r.body));
    assert.equal(r.body.code, "test_mode_moved_to_sandbox");
    const line = log.all().find((l) => l.msg === "request" && l.request_id === "flag-1");
    assert.equal(line?.tenant_id, b.id);
    assert.equal(line?.credential, "business_key");
    // Who is calling is checked first, as on every other request.
    const wrong = await t.call("GET", "/business/profile", {
      key: "wrong",
      headers: { "X-Service-Test": "true" },
    });
    assert.equal(wrong.status, 401, JSON.stringify(wrong.body));
    // A page, served by no define()d route, still refuses it before anything.
    const page = await t.call("GET", "/business/dispatch-board", { headers: flagged });
    assert.equal(page.status, 422, JSON.stringify(page.body));
  }, { log: log.destination });
});
