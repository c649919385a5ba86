/**
 * A named schema (`.openapi("Name")`) is a component of the OpenAPI document: two schemas given
 * one name leave one of them in the document, silently (a webhook's BillingEvent replaced the
 * billing events list's row). Each name is given once in the product's code.
 */
import assert from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url);

/** Every .ts file below `dir` (a path relative to the project). */
async function* sources(dir: string): AsyncGenerator<string> {
  for await (const e of Deno.readDir(new URL(dir, ROOT))) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory) yield* sources(path);
    else if (e.name.endsWith(".ts")) yield path;
  }
}

Deno.test("schema names: each component name is given to one schema", async () => {
  const places = new Map<string, string[]>();
  for (const dir of ["src", "routes", "actors"]) {
    for await (const path of sources(dir)) {
      const text = await Deno.readTextFile(new URL(path, ROOT));
      for (const m of text.matchAll(/\.openapi\(\s*"([A-Za-z0-9_]+)"/g)) {
        places.set(m[1]!, [...places.get(m[1]!) ?? [], path]);
      }
    }
  }
  assert.ok(places.size > 50, `named schemas: ${places.size}`);
  const twice = [...places].filter(([, at]) => at.length > 1);
  assert.deepEqual(twice, [], "a component name given to more than one schema");
});
