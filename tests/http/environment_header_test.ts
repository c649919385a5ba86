/**
 * Business API 2.2 and 9.4: every response carries `X-Service-Environment` (`live` or
 * `sandbox`), whoever makes it (a route, a guard's refusal, the rate limit, an unknown path, an
 * internal error, /health, a document that is no envelope), and every envelope the sandbox answers
 * says `environment: sandbox`.
 */
import assert from "node:assert/strict";
import { withTestEnv } from "../helpers/test_env.ts";
import type { Api } from "../../src/http/app.ts";
import { define } from "../../src/http/route.ts";
import { REQUEST_BODY_BYTES_MAX } from "../../src/limits.ts";

function boom(api: Api): void {
  define(api, {
    method: "get",
    path: "/business/environment-boom",
    summary: "probe",
    tag: "Probe",
    security: "public",
  }, () => {
    throw new Error("a defect");
  });
}

for (const name of ["live", "sandbox"] as const) {
  Deno.test(`environment: every ${name} answer names it, refusals, 404s, 429s, 500s and /health too`, () =>
    withTestEnv(async (t) => {
      const b = await t.createBusiness({ plan: "enterprise" });
      await t.call("PATCH", `/operator/businesses/${b.id}`, {
        operator: true,
        body: { rate_limit_per_minute: 1 },
      });
      const key = { "X-Business-API-Key": b.api_key };
      const json = { "Content-Type": "application/json" };
      const requests: [string, number, string, RequestInit?][] = [
        ["/health", 200, "health"],
        ["/nowhere", 404, "outside /api"],
        ["/api/business/nothing-here", 404, "unknown endpoint"],
        ["/api/business/profile", 401, "no key"],
        ["/api/business/profile", 200, "a route", { headers: key }],
        ["/api/business/profile", 429, "rate limited", { headers: key }],
        ["/api/business/profile", 405, "another method", { method: "DELETE", headers: key }],
        ["/api/business/login", 422, "invalid JSON", { method: "POST", headers: json, body: "{" }],
        ["/api/business/login", 413, "too large", {
          method: "POST",
          headers: { ...json, "Content-Length": String(REQUEST_BODY_BYTES_MAX + 1) },
          body: "{}",
        }],
        ["/api/business/environment-boom", 500, "internal error"],
        ["/api/api-docs/openapi.json", 200, "a document"],
      ];
      for (const [path, status, what, init] of requests) {
        const r = await t.app.request(path, init);
        assert.equal(r.status, status, `${what}: ${r.status}`);
        assert.equal(r.headers.get("X-Service-Environment"), name, what);
        const body = await r.json();
        if (typeof body.success !== "boolean") continue; // a document, no envelope
        // spec: business 2.2: "Sandbox responses also carry environment: sandbox".
        assert.equal(body.environment, name === "sandbox" ? "sandbox" : undefined, what);
      }
    }, { name, routers: [boom] }));
}
