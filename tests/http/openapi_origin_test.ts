import assert from "node:assert/strict";
import { keptForAnyOrigin } from "../../src/http/openapi.ts";
import { withTestEnv } from "../helpers/test_env.ts";

Deno.test("documents: made once whatever Host a caller names, each answer naming the caller's origin", () => {
  let made = 0;
  const kept = keptForAnyOrigin((origin) => {
    made++;
    return { servers: [{ url: `${origin}/api` }], variable: { value: `${origin}/api` } };
  });
  for (let i = 0; i < 50; i++) {
    const origin = `http://h${i}.example`;
    const doc = JSON.parse(kept(origin));
    assert.equal(doc.servers[0].url, `${origin}/api`);
    assert.equal(doc.variable.value, `${origin}/api`);
  }
  // Before, every origin past the fourth made the document again (some 100 ms a call).
  assert.equal(made, 1);
  // An origin is JSON text inside the document, escaped as any string is.
  assert.equal(JSON.parse(kept('http://a"b')).servers[0].url, 'http://a"b/api');
});

Deno.test("documents: the OpenAPI document and the collection name the origin they were asked at", () =>
  withTestEnv(async (t) => {
    for (const host of ["one.example", "two.example:8443"]) {
      const doc = await (await t.app.request(`http://${host}/api/api-docs/openapi.json`)).json();
      assert.equal(doc.servers[0].url, `http://${host}/api`);
      const postman = await (await t.app.request(`http://${host}/api/api-docs/postman.json`))
        .json();
      const base = postman.variable.find((v: { key: string }) => v.key === "baseUrl");
      assert.equal(base.value, `http://${host}/api`);
    }
  }));
