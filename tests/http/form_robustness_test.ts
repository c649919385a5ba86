/**
 * Bad forms, by construction (Business API 9.1; CONTRACT "Errors"): every operation of the
 * OpenAPI document that takes a multipart form is sent, by its own tenant with real identifiers,
 * an empty form, a form without its boundary, a form cut short, a file where a text field goes
 * and text where a file goes, a file field it does not declare, and text Postgres cannot keep.
 * Each answers a 4xx in the error shape, never a 500, and changes nothing. The JSON bodies'
 * probes (guard_robustness_test.ts) never reached the operations that take only a form.
 */
import assert from "node:assert/strict";
import { openTestEnv } from "../helpers/test_env.ts";
import { digest, newTenant } from "../helpers/guard_world.ts";
import { send, unrefused } from "../helpers/guard_probe.ts";
import {
  type JsonSchema,
  nameOf,
  openApiDocument,
  type Operation,
  operations,
  sampleBody,
} from "../helpers/openapi_ops.ts";

type Probe = { form: FormData } | { text: string; type: string };

const isFile = (schema: JsonSchema) => schema?.format === "binary";

/** The form the schema describes (its required fields), files as small text files. */
function baseForm(op: Operation): [string, string | File][] {
  const sample = (sampleBody(op.form) ?? {}) as Record<string, unknown>;
  const props: Record<string, JsonSchema> = op.form.properties ?? {};
  return Object.entries(sample).map(([k, v]) => [
    k,
    isFile(props[k]) ? new File(["receipt"], `${k}.txt`, { type: "text/plain" }) : textOf(v),
  ]);
}

function textOf(v: unknown): string {
  return typeof v === "string" ? v : JSON.stringify(v);
}

/** `fields` as a form, with `name` set to `value` (added when absent). */
function formOf(fields: [string, string | File][], name?: string, value?: string | File) {
  const f = new FormData();
  for (const [k, v] of fields) if (k !== name) f.append(k, v);
  if (name !== undefined && value !== undefined) f.append(name, value);
  return f;
}

/** Every bad form for the operation, named. */
function badForms(op: Operation): [string, Probe][] {
  const base = baseForm(op);
  const file = new File(["not text"], "wrong.bin", { type: "application/octet-stream" });
  const out: [string, Probe][] = [
    ["an empty form", { form: new FormData() }],
    ["a form without its boundary", { text: "a=1", type: "multipart/form-data" }],
    ["a form cut short", {
      text: '--b\r\nContent-Disposition: form-data; name="a"\r\n\r\nx',
      type: "multipart/form-data; boundary=b",
    }],
    ["a file field it does not declare", { form: formOf(base, "undeclared_file", file) }],
  ];
  const props: Record<string, JsonSchema> = op.form.properties ?? {};
  let unkept = false;
  for (const [k, schema] of Object.entries(props)) {
    if (isFile(schema)) {
      out.push([`${k} as text`, { form: formOf(base, k, "not a file") }]);
      continue;
    }
    out.push([`${k} as a file`, { form: formOf(base, k, file) }]);
    if (!unkept && [schema.type].flat().includes("string")) {
      unkept = true;
      out.push([`${k} with U+0000`, { form: formOf(base, k, "a\u0000b") }]);
    }
  }
  return out;
}

Deno.test("guards: every operation that takes a form refuses bad forms with a 4xx in the error shape, and changes nothing", async () => {
  const t = await openTestEnv();
  try {
    const a = await newTenant(t, "A");
    const ops = operations(await openApiDocument(t)).filter((op) => op.form !== null);
    assert.ok(ops.length >= 8, `operations with a form: ${ops.map(nameOf).join(", ")}`);
    const before = await digest(t, a);
    const { failures } = await unrefused(t, a, ops, {
      width: 4,
      probesOf: badForms,
      sendOne: (op, url, headers, probe: Probe) =>
        "form" in probe
          ? send(t, op, url, headers, probe.form, null)
          : send(t, op, url, headers, probe.text, probe.type),
    });
    assert.deepEqual(failures, [], "bad forms not refused in the error shape");
    assert.equal(await digest(t, a), before, "a bad form changed what the tenant sees");
  } finally {
    await t.close();
  }
});
