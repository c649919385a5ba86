/**
 * What the README and docs/ name as an endpoint, in their tables (`| POST | /operator/drivers |`)
 * or inline (`GET /business/profile`), is an operation of the OpenAPI document the service
 * serves, with that method: a page that names a path or a method the service does not have sends
 * the integrator to a 404 or a 405.
 */
import assert from "node:assert/strict";
import { operationsOf } from "../helpers/openapi_schemas.ts";
import { withTestEnv } from "../helpers/test_env.ts";

const ROOT = new URL("../../", import.meta.url);
const METHOD = "GET|POST|PUT|PATCH|DELETE";

/** The README and every page of docs/. */
async function pages(): Promise<[string, string][]> {
  const names = ["README.md"];
  for await (const e of Deno.readDir(new URL("docs/", ROOT))) {
    if (e.name.endsWith(".md")) names.push(`docs/${e.name}`);
  }
  return await Promise.all(
    names.map(async (n) => [n, await Deno.readTextFile(new URL(n, ROOT))] as [string, string]),
  );
}

/** Each `[method, path]` a page names, as written (the formatter may wrap inside a code span). */
export function endpointsNamed(markdown: string): [string, string][] {
  const text = markdown.replace(/\n\s*/g, " ");
  const named: [string, string][] = [];
  const row = new RegExp(
    `\\|\\s*((?:${METHOD})(?:,\\s*(?:${METHOD}))*)\\s*\\|\\s*(/[^|\\s,]+)`,
    "g",
  );
  for (const m of text.matchAll(row)) {
    for (const method of m[1]!.split(/,\s*/)) named.push([method, m[2]!]);
  }
  const inline = new RegExp(`\`((?:${METHOD})(?:/(?:${METHOD}))*)\\s+(/[^\`\\s]+)`, "g");
  for (const m of text.matchAll(inline)) {
    for (const method of m[1]!.split("/")) named.push([method, m[2]!]);
  }
  return named
    .filter(([, path]) => !path.includes("...") && path !== "/health")
    .map(([method, path]) => [
      method,
      path.replace(/^\/api(?=\/)/, "").replace(/\?.*$/, "").replace(/[.,;:]+$/, ""),
    ]);
}

const shape = (path: string) => path.replace(/\{[^}]+\}/g, "{}");

Deno.test("docs: every endpoint the README and docs/ name is an operation of the OpenAPI document", () =>
  withTestEnv(async (t) => {
    const doc = (await t.call("GET", "/api-docs/openapi.json")).body;
    const served = new Set(
      operationsOf(doc).map(({ method, path }) => `${method.toUpperCase()} ${shape(path)}`),
    );
    let seen = 0;
    const missing: string[] = [];
    for (const [page, text] of await pages()) {
      for (const [method, path] of endpointsNamed(text)) {
        seen++;
        if (!served.has(`${method} ${shape(path)}`)) missing.push(`${page}: ${method} ${path}`);
      }
    }
    assert.ok(seen > 100, `only ${seen} endpoints found: the pages' forms are no longer read`);
    assert.deepEqual(missing, []);
    // The reading itself: a table row and an inline span, a method the path lacks is caught.
    assert.deepEqual(endpointsNamed("| GET, PUT | /operator/settings |\n`POST /api/s/{token}`."), [
      ["GET", "/operator/settings"],
      ["PUT", "/operator/settings"],
      ["POST", "/s/{token}"],
    ]);
    assert.equal(served.has(`POST ${shape("/s/{token}")}`), false);
  }));

/** Each link target a page writes (`[text](target)`), the formatter's wraps undone. */
function linksOf(markdown: string): string[] {
  const text = markdown.replace(/\n\s*/g, " ");
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
}

Deno.test("docs: the README and docs/ link only to files inside the repository that exist", async () => {
  // issue 35 item 6: everything a user needs is in the project, never a path outside it.
  const root = await Deno.realPath(ROOT);
  const broken: string[] = [];
  let seen = 0;
  for (const [page, text] of await pages()) {
    for (const target of linksOf(text)) {
      if (/^[a-z]+:/i.test(target) || target.startsWith("#")) continue;
      seen++;
      const file = new URL(target.replace(/#.*$/, ""), new URL(page, ROOT));
      const real = await Deno.realPath(file).catch(() => null);
      if (real === null || !(real === root || real.startsWith(`${root}/`))) {
        broken.push(`${page}: ${target}`);
      }
    }
  }
  assert.ok(seen > 5, `only ${seen} links found: the pages' links are no longer read`);
  assert.deepEqual(broken, []);
  assert.deepEqual(linksOf("see [the\n  spec](../shared/spec/x.md#a) and [b](https://x.test)"), [
    "../shared/spec/x.md#a",
    "https://x.test",
  ]);
});
