import assert from "node:assert/strict";
import { withTestEnv } from "../helpers/test_env.ts";

/** Routes whose handler honours the Idempotency-Key header (idempotencyHeader). */
const IDEMPOTENT = [
  ["post", "/client/shipments"],
  ["post", "/client/shipments/bulk"],
  ["post", "/client/shipments/csv"],
  ["post", "/business/shipments"],
  ["post", "/business/courier/clients/{client}/billing/correct"],
  ["post", "/business/courier/clients/{client}/invoice"],
] as const;

Deno.test("routes: the OpenAPI document shows Idempotency-Key where a route honours it, and nowhere else", () =>
  withTestEnv(async (t) => {
    const doc = await t.call("GET", "/api-docs/openapi.json");
    assert.equal(doc.status, 200);
    const withHeader: string[] = [];
    for (const [path, item] of Object.entries(doc.body.paths as Record<string, unknown>)) {
      for (const [method, op] of Object.entries(item as Record<string, { parameters?: unknown }>)) {
        const params = (op.parameters ?? []) as { in: string; name: string; required?: boolean }[];
        const header = params.find((p) => p.in === "header" && p.name === "Idempotency-Key");
        if (!header) continue;
        assert.notEqual(header.required, true, `${method} ${path}: the header is optional`);
        withHeader.push(`${method} ${path}`);
      }
    }
    assert.deepEqual(withHeader.sort(), IDEMPOTENT.map(([m, p]) => `${m} ${p}`).sort());
    // A handler that starts reading the header must join the list (and declare it).
    let reads = 0;
    for (const dir of ["routes", "routes/courier", "routes/business"]) {
      for (const f of Deno.readDirSync(new URL(`../../${dir}/`, import.meta.url))) {
        if (!f.isFile || !f.name.endsWith(".ts")) continue;
        const text = Deno.readTextFileSync(new URL(`../../${dir}/${f.name}`, import.meta.url));
        reads += text.split("idempotencyHeader(c)").length - 1;
      }
    }
    assert.equal(reads, IDEMPOTENT.length);
  }));
