/**
 * Issue 35.1: the OpenAPI document is a valid OpenAPI 3.1 document, every operation has a stable
 * operationId and every body its schema, and each operation's security is how it really
 * authenticates; an integrator's typed client generated from it (openapi-typescript, in process)
 * type-checks a call and refuses a wrong one.
 */
import assert from "node:assert/strict";
import { Validator } from "@seriousme/openapi-schema-validator";
import openapiTS, { astToString } from "openapi-typescript";
import { operationIdOf } from "../../src/http/openapi.ts";
import {
  type Doc,
  operationsOf,
  requestSchemasOf,
  responseSchemasOf,
  schemaChecker,
} from "../helpers/openapi_schemas.ts";
import { answerChecker } from "../helpers/openapi_answers.ts";
import { OPERATOR_TOKEN, type TestEnv, withTestEnv } from "../helpers/test_env.ts";

async function documentOf(t: TestEnv): Promise<Doc> {
  const answer = await t.call("GET", "/api-docs/openapi.json");
  assert.equal(answer.status, 200);
  return answer.body;
}

Deno.test("contract: the OpenAPI document passes a strict OpenAPI 3.1 validator", () =>
  withTestEnv(async (t) => {
    const doc = await documentOf(t);
    const result = await new Validator().validate(structuredClone(doc));
    assert.deepEqual(result.errors, undefined);
    assert.equal(result.valid, true);
    assert.equal(doc.openapi, "3.1.0");
    // The validator leaves Schema Objects to their dialect: each is checked as JSON Schema
    // 2020-12 in strict mode, the request's compiled (no unknown keyword, every pattern a
    // regex), the answers' against the meta-schema.
    const checker = schemaChecker(doc);
    for (const { method, path, op } of operationsOf(doc)) {
      for (const schema of requestSchemasOf(op)) checker.compile(schema);
      for (const schema of responseSchemasOf(op)) {
        assert.equal(checker.validSchema(schema), null, `${method} ${path}`);
      }
    }
    // Every pattern is a regex with the `u` flag too, and none ends in a flag written into it.
    const patterns = JSON.stringify(doc).matchAll(/"pattern":("(?:[^"\\]|\\.)*")/g);
    let count = 0;
    for (const [, json] of patterns) {
      const pattern = JSON.parse(json!) as string;
      assert.doesNotThrow(() => new RegExp(pattern, "u"), pattern);
      assert.doesNotMatch(pattern, /\/[a-z]+$/, pattern);
      count++;
    }
    assert.ok(count > 100);
  }));

Deno.test("contract: every operation has its stable, unique operationId and every body a schema", () =>
  withTestEnv(async (t) => {
    const doc = await documentOf(t);
    const ops = operationsOf(doc);
    assert.ok(ops.length > 100);
    const ids = ops.map(({ op }) => op.operationId);
    for (const { method, path, op } of ops) {
      assert.equal(op.operationId, operationIdOf(method, path), `${method} ${path}`);
      assert.match(op.operationId!, /^[a-z][A-Za-z0-9]+$/);
      for (const [type, media] of Object.entries(op.requestBody?.content ?? {})) {
        assert.ok(media.schema, `${method} ${path}: ${type} body without a schema`);
      }
    }
    assert.equal(new Set(ids).size, ids.length, "operationIds are unique");
    // The same again: ids come from the method and path alone.
    const again = operationsOf(await documentOf(t)).map(({ op }) => op.operationId);
    assert.deepEqual(again, ids);
    assert.equal(
      operationIdOf("post", "/business/network-runs/{run}/expenses"),
      "postBusinessNetworkRunsByRunExpenses",
    );
    // The expense forms read by hand are shown with their fields (receipt as a file).
    for (
      const path of ["/business/network-runs/{run}/expenses", "/driver/network-runs/{run}/expenses"]
    ) {
      const form = doc.paths[path].post.requestBody.content["multipart/form-data"].schema;
      assert.equal(form.properties.receipt.format, "binary");
      assert.deepEqual(
        [...form.required].sort(),
        ["amount", "currency", "idempotency_key", "receipt"],
      );
    }
  }));

/** The credential header each scheme names, with a value that is a real credential of another kind. */
const SCHEMES = {
  operatorToken: { type: "http", scheme: "bearer" },
  businessKey: { type: "apiKey", in: "header", name: "X-Business-API-Key" },
  clientKey: { type: "apiKey", in: "header", name: "X-Client-API-Key" },
  driverToken: { type: "http", scheme: "bearer" },
  channelToken: { type: "http", scheme: "bearer", bearerFormat: "JWT" },
};

Deno.test("contract: each operation's security is how it authenticates: none answers 401, the right kind passes", () =>
  withTestEnv(async (t) => {
    const doc = await documentOf(t);
    for (const [name, scheme] of Object.entries(SCHEMES)) {
      assert.deepEqual({ ...doc.components.securitySchemes[name], description: undefined }, {
        ...scheme,
        description: undefined,
      });
    }
    const business = await t.createBusiness();
    const credentials: Record<string, Record<string, string>> = {
      operatorToken: { Authorization: `Bearer ${OPERATOR_TOKEN}` },
      businessKey: { "X-Business-API-Key": business.api_key },
      clientKey: { "X-Client-API-Key": "ck_not_a_client_key" },
      driverToken: { Authorization: "Bearer not_a_driver_token" },
    };
    const seen = new Set<string>();
    for (const { method, path, op } of operationsOf(doc)) {
      // Four calls an operation without a known credential, from one address: a minute apart,
      // the anonymous limit a minute (ANONYMOUS_RATE_LIMIT) never counts more than one's.
      t.clock.advanceBy(60_000);
      const url = `/api${path.replace(/\{[^}]+\}/g, "x")}`;
      const schemes = (op.security ?? []).flatMap((s) => Object.keys(s));
      assert.ok(schemes.length <= 1, `${method} ${path}: one scheme`);
      const scheme = schemes[0];
      seen.add(scheme ?? "none");
      // A WebSocket's credential comes with the upgrade (tests/routes/courier/board tests it).
      if (op.responses?.["101"]) continue;
      const bare = await t.app.request(url, { method: method.toUpperCase() });
      await bare.body?.cancel();
      if (scheme === undefined) {
        assert.notEqual(bare.status, 401, `${method} ${path} is public`);
        continue;
      }
      assert.ok(scheme in SCHEMES, `${method} ${path}: ${scheme} is declared`);
      // A channel's route is the sandbox's (checked there, below).
      if (scheme === "channelToken") continue;
      assert.equal(bare.status, 401, `${method} ${path} needs ${scheme}`);
      // Every other kind's credential is refused too.
      for (const [other, headers] of Object.entries(credentials)) {
        if (other === scheme) continue;
        const r = await t.app.request(url, { method: method.toUpperCase(), headers });
        await r.body?.cancel();
        assert.equal(r.status, 401, `${method} ${path} (${scheme}) refuses ${other}`);
      }
    }
    assert.deepEqual([...seen].sort(), [
      "businessKey",
      "channelToken",
      "clientKey",
      "driverToken",
      "none",
      "operatorToken",
    ]);
    // The operator's token and the business key pass their own routes' guard.
    const own = await t.app.request("/api/operator/settings", {
      headers: credentials.operatorToken!,
    });
    assert.equal(own.status, 200);
    const key = await t.app.request("/api/business/profile", {
      headers: credentials.businessKey!,
    });
    assert.equal(key.status, 200);
  }));

Deno.test("contract: a sales channel's route needs its channel token, on the sandbox", () =>
  withTestEnv(async (t) => {
    const doc = await documentOf(t);
    const op = doc.paths["/channel/{source}/events"].post;
    assert.deepEqual(op.security, [{ channelToken: [] }]);
    const business = await t.createBusiness();
    for (
      const headers of [{}, { "X-Business-API-Key": business.api_key }, {
        Authorization: "Bearer not.a.jwt",
      }]
    ) {
      const r = await t.app.request("/api/channel/shop/events", {
        method: "POST",
        headers: { ...headers, "Content-Type": "application/json" },
        body: "{}",
      });
      assert.equal(r.status, 401, JSON.stringify(headers));
      await r.body?.cancel();
    }
  }, { name: "sandbox" }));

/** A call through the generated types: a booking's body and its answer's `data`. */
const CALL = `
import type { operations, paths } from "./api.ts";

type Book = operations["postClientBook"];
type Body = NonNullable<Book["requestBody"]>["content"]["application/json"];
type Answer = Book["responses"][201]["content"]["application/json"];

async function book(baseUrl: string, key: string, body: Body): Promise<Answer> {
  const res = await fetch(\`\${baseUrl}/client/book\`, {
    method: "POST",
    headers: { "X-Client-API-Key": key, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  return await res.json() as Answer;
}

export async function bookAndRead(body: Body): Promise<string> {
  const answer = await book("http://localhost:8000/api", "ck_key", body);
  const waybill: string = answer.data.waybill;
  return waybill;
}

export type BookPath = paths["/client/book"]["post"];
// @ts-expect-error: no such operation
export type Missing = operations["postNoSuchThing"];
// @ts-expect-error: a field of the wrong type (were the types loose, this line would fail)
export const wrong: Body = { prices_reference: 42, service_level: "express" };
`;

Deno.test("codegen: openapi-typescript makes a client from the document that type-checks a call", () =>
  withTestEnv(async (t) => {
    const types = astToString(await openapiTS(await documentOf(t)));
    const dir = await Deno.makeTempDir({ prefix: "codegen_" });
    try {
      await Deno.writeTextFile(`${dir}/api.ts`, types);
      await Deno.writeTextFile(`${dir}/call.ts`, CALL);
      await Deno.writeTextFile(`${dir}/deno.json`, JSON.stringify({}));
      const check = (file: string) =>
        new Deno.Command(Deno.execPath(), {
          args: ["check", "--quiet", "--config", `${dir}/deno.json`, file],
          stdout: "piped",
          stderr: "piped",
        }).output();
      // One check for both: an unused @ts-expect-error is itself an error.
      const checked = await check(`${dir}/call.ts`);
      assert.equal(checked.code, 0, new TextDecoder().decode(checked.stderr));
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }));

Deno.test("contract: every operation's answers to any caller (the test flag too) are statuses, bodies and headers it declares", () =>
  withTestEnv(async (t) => {
    const doc = await documentOf(t);
    const check = answerChecker(doc);
    const business = await t.createBusiness();
    const callers = [
      {},
      { "X-Business-API-Key": business.api_key },
      { Authorization: `Bearer ${OPERATOR_TOKEN}` },
      // Business 7: on live every request with the test flag is refused, after its credential is checked.
      { "X-Business-API-Key": business.api_key, "X-Service-Test": "true" },
    ];
    const lacking: string[] = [];
    for (const { method, path, op } of operationsOf(doc)) {
      if (op.responses?.["101"]) continue;
      const url = path.replace(/\{[^}]+\}/g, "x");
      for (const headers of callers) {
        // A minute apart, as above: the anonymous limit never counts more than these calls.
        t.clock.advanceBy(60_000);
        const r = await t.app.request(`/api${url}`, { method: method.toUpperCase(), headers });
        const text = await r.text();
        const json = r.headers.get("Content-Type")?.startsWith("application/json");
        const problem = check(method, url, r.status, json ? JSON.parse(text) : text, r.headers);
        if (problem) lacking.push(problem);
      }
    }
    assert.deepEqual(lacking, []);
  }));
