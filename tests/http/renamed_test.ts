/** renamedFields: a field renamed to the spec's word still reads the former name (courier 9.2). */
import assert from "node:assert/strict";
import fc from "fast-check";
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { renamedFields } from "../../src/http/renamed.ts";
import { parse } from "../../src/http/route.ts";
import { ApiError } from "../../src/http/errors.ts";

const Run = renamedFields(
  z.object({ capacities: z.object({ kg: z.number() }), kind: z.string() }),
  { capacity: "capacities" },
);

Deno.test("renamedFields: the spec's name and the former one read alike; other fields pass", () => {
  fc.assert(
    fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.string(), (kg, kind) => {
      const named = Run.parse({ capacities: { kg }, kind });
      assert.deepEqual(Run.parse({ capacity: { kg }, kind }), named);
      assert.deepEqual(named, { capacities: { kg }, kind });
    }),
  );
});

Deno.test("renamedFields: both names at once are refused 422 on the former name", () => {
  assert.throws(
    () => parse(Run, { capacity: { kg: 1 }, capacities: { kg: 1 }, kind: "x" }, "body"),
    (e: unknown) =>
      e instanceof ApiError && e.status === 422 && e.code === "validation_failed" &&
      JSON.stringify(e.extra.errors) === JSON.stringify([{
          path: "capacity",
          message: "capacity is the former name of capacities: send one of them, not both",
        }]),
  );
});

Deno.test("renamedFields: a missing field is refused under the spec's name; non-objects as the schema says", () => {
  const r = Run.safeParse({ kind: "x" });
  assert.equal(r.success, false);
  assert.deepEqual(r.error?.issues.map((i) => i.path), [["capacities"]]);
  assert.equal(Run.safeParse(null).success, false);
  assert.equal(Run.safeParse([{ capacity: 1 }]).success, false);
});

Deno.test("renamedFields: the OpenAPI document shows only the spec's name", () => {
  const app = new OpenAPIHono();
  app.openapi(
    createRoute({
      method: "post",
      path: "/runs",
      request: { body: { content: { "application/json": { schema: Run } } } },
      responses: { 200: { description: "ok" } },
    }),
    (c) => c.json({}),
  );
  const doc = app.getOpenAPIDocument({ openapi: "3.0.0", info: { title: "t", version: "1" } });
  const body = doc.paths["/runs"]?.post?.requestBody as {
    content: Record<string, { schema: { properties: object; required: string[] } }>;
  };
  const schema = body.content["application/json"]!.schema;
  assert.deepEqual(Object.keys(schema.properties).sort(), ["capacities", "kind"]);
  assert.deepEqual(schema.required.sort(), ["capacities", "kind"]);
});
