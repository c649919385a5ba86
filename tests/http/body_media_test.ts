/**
 * A JSON route refuses a body of another media type (415), and an action route with nothing to
 * read refuses a body that is not valid JSON (422) instead of acting; both are in the OpenAPI
 * document (strict mode: an undocumented refusal fails the test's close()).
 */
import assert from "node:assert/strict";
import { OPERATOR_TOKEN, withTestEnv } from "../helpers/test_env.ts";

const NEW_BUSINESS = JSON.stringify({
  name: "Media Couriers",
  plan: "business",
  currency: "BWP",
  country: "BW",
  owner_email: "media@example.com",
});

Deno.test("body: a JSON body sent as another media type answers 415 unsupported_media_type and makes nothing", () =>
  withTestEnv(async (t) => {
    const post = (type: string) =>
      t.app.request("/api/operator/businesses", {
        method: "POST",
        headers: { Authorization: `Bearer ${OPERATOR_TOKEN}`, "Content-Type": type },
        body: NEW_BUSINESS,
      });
    for (const type of ["application/x-www-form-urlencoded", "text/plain;charset=UTF-8"]) {
      const r = await post(type);
      assert.equal(r.status, 415, type);
      const body = await r.json();
      assert.equal(body.success, false);
      assert.equal(body.code, "unsupported_media_type");
      assert.match(body.message, /application\/json/);
    }
    // The same body as JSON is taken: the e-mail was not used by the refused ones.
    const json = await post("application/json; charset=utf-8");
    assert.equal(json.status, 201);
    const doc = (await t.call("GET", "/api-docs/openapi.json")).body;
    const listed = doc.paths["/operator/businesses"].post.responses["415"];
    assert.match(JSON.stringify(listed), /unsupported_media_type/);
  }));

Deno.test("body: an action route without a body refuses one that is not valid JSON, and does nothing", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    // Regenerating the key needs the owner signed in (Business API 5.6).
    const login = await t.call("POST", "/business/login", { body: b.owner });
    assert.equal(login.status, 200, JSON.stringify(login.body));
    const regenerate = (body: string, type = "application/json") =>
      t.app.request("/api/business/api-key/regenerate", {
        method: "POST",
        headers: { "X-Business-API-Key": login.body.data.token, "Content-Type": type },
        body,
      });
    const broken = await regenerate("{not json");
    assert.equal(broken.status, 422);
    const refused = await broken.json();
    assert.equal(refused.code, "validation_failed");
    assert.equal(refused.errors[0].path, "body");
    const form = await regenerate("a=1", "application/x-www-form-urlencoded");
    assert.equal(form.status, 415);
    await form.body?.cancel();
    // A multipart form is no more read than any other body the route does not declare.
    const multipart = new Response(new FormData());
    const parts = await regenerate(
      await multipart.text(),
      multipart.headers.get("Content-Type")!,
    );
    assert.equal(parts.status, 415);
    assert.equal((await parts.json()).code, "unsupported_media_type");
    // The key was not regenerated: it still works, until a readable body regenerates it.
    assert.equal((await t.call("GET", "/business/profile", { key: b.api_key })).status, 200);
    const done = await regenerate("{}");
    assert.equal(done.status, 201);
    await done.body?.cancel();
    assert.equal((await t.call("GET", "/business/profile", { key: b.api_key })).status, 401);
    const doc = (await t.call("GET", "/api-docs/openapi.json")).body;
    const responses = doc.paths["/business/api-key/regenerate"].post.responses;
    assert.match(JSON.stringify(responses["422"]), /validation_failed/);
    assert.match(JSON.stringify(responses["415"]), /unsupported_media_type/);
  }));

Deno.test("body: bytes that are no UTF-8 are refused 422 naming the body, with a length or chunked, and make nothing", () =>
  withTestEnv(async (t) => {
    const text = new TextEncoder().encode(NEW_BUSINESS);
    // A Latin-1 "é" (0xE9) inside the name: no UTF-8 sequence.
    const at = NEW_BUSINESS.indexOf(`"name":"`) + 8;
    const bytes = new Uint8Array([...text.slice(0, at), 0xe9, ...text.slice(at)]);
    const chunked = () =>
      new ReadableStream({
        start(c) {
          c.enqueue(bytes);
          c.close();
        },
      });
    for (const body of [bytes, chunked()]) {
      const r = await t.app.request("/api/operator/businesses", {
        method: "POST",
        headers: { Authorization: `Bearer ${OPERATOR_TOKEN}`, "Content-Type": "application/json" },
        body,
      });
      const answer = await r.json();
      assert.equal(r.status, 422, JSON.stringify(answer));
      assert.deepEqual(answer.errors, [{ path: "body", message: "not valid UTF-8" }]);
    }
    // Taken as UTF-8: its e-mail was not used by the refused ones.
    const taken = await t.app.request("/api/operator/businesses", {
      method: "POST",
      headers: { Authorization: `Bearer ${OPERATOR_TOKEN}`, "Content-Type": "application/json" },
      body: NEW_BUSINESS.replace(`"name":"`, `"name":"é`),
    });
    assert.equal(taken.status, 201, await taken.text());
  }));
