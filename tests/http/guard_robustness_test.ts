/**
 * Bad input, by construction (Business API 9.1; CONTRACT "Errors"): every operation of the
 * OpenAPI document that takes a JSON body is sent, by its own tenant with real identifiers, the
 * wrong JSON type, text that is no JSON, each declared field of a wrong type, strings past their
 * cap and 10,000 levels of nesting, in place of a field and inside one that takes an object. Each answers a 4xx in the error shape, never a 500, and
 * changes nothing. A route added later is probed without anyone listing it.
 */
import assert from "node:assert/strict";
import { openTestEnv } from "../helpers/test_env.ts";
import { digest, newTenant } from "../helpers/guard_world.ts";
import { send, unrefused } from "../helpers/guard_probe.ts";
import {
  type JsonSchema,
  openApiDocument,
  type Operation,
  operations,
  sampleBody,
} from "../helpers/openapi_ops.ts";

const DEPTH = 10_000;
/** Past every request cap (limits.ts REQUEST_BODY_BYTES_MAX). */
const MEGABYTE = "x".repeat(1024 * 1024 + 1);
const DEEP_ARRAY = "[".repeat(DEPTH) + "]".repeat(DEPTH);
const DEEP_OBJECT = '{"a":'.repeat(DEPTH) + "1" + "}".repeat(DEPTH);

/** The declared fields of a body: an object's properties, a union's branches' together. */
function fieldsOf(schema: JsonSchema): Record<string, JsonSchema> {
  const branches = [
    schema,
    ...(schema.anyOf ?? []),
    ...(schema.oneOf ?? []),
    ...(schema.allOf ?? []),
  ];
  return Object.assign({}, ...branches.map((b: JsonSchema) => b.properties ?? {}));
}

/** The JSON types a field accepts; empty when it takes any value. */
function typesOf(schema: JsonSchema): Set<string> {
  const out = new Set<string>();
  const branches = [schema, ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])];
  for (const b of branches) {
    for (const ty of [b.type ?? []].flat()) out.add(ty === "integer" ? "number" : ty);
    for (const v of [...(b.enum ?? []), ...("const" in b ? [b.const] : [])]) {
      out.add(v === null ? "null" : typeof v);
    }
  }
  return out;
}

/** A value of a type the field does not take; null when it takes any. */
function wrongValue(schema: JsonSchema): unknown {
  const accepted = typesOf(schema);
  if (accepted.size === 0) return null;
  const candidates: [string, unknown][] = [
    ["object", { wrong: true }],
    ["number", 12345],
    ["string", "wrong"],
    ["boolean", true],
    ["array", [1]],
  ];
  const found = candidates.find(([ty]) => !accepted.has(ty));
  return found ? found[1] : null;
}

/** The maximum length of the field's string forms, if it has one. */
function maxLengthOf(schema: JsonSchema): number | null {
  const lengths = [schema, ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]
    .filter((b: JsonSchema) => b.type === "string" && typeof b.maxLength === "number")
    .map((b: JsonSchema) => b.maxLength as number);
  return lengths.length > 0 ? Math.max(...lengths) : null;
}

/** Every declared field, nested ones too (an array's by its first item), with its path. */
function declaredFields(schema: JsonSchema, at: string[] = []): [string[], JsonSchema][] {
  if (at.length >= 4) return [];
  return Object.entries(fieldsOf(schema)).flatMap(([k, field]) => {
    const items = [field, ...(field.anyOf ?? []), ...(field.oneOf ?? [])]
      .filter((b: JsonSchema) => b.type === "array" && b.items).map((b: JsonSchema) => b.items);
    return [
      [[...at, k], field] as [string[], JsonSchema],
      ...declaredFields(field, [...at, k]),
      ...items.flatMap((i: JsonSchema) => declaredFields(i, [...at, k, "0"])),
    ];
  });
}

/** `base` with `value` (JSON text) at `path`, the objects and arrays on the way made. */
function withValue(base: unknown, path: readonly string[], value: string): string {
  const PLACE = "\u0001";
  const root = structuredClone(base ?? {}) as Record<string, unknown>;
  let node: Record<string, unknown> = root;
  for (const [i, k] of path.entries()) {
    if (i === path.length - 1) {
      node[k] = PLACE;
    } else {
      const next = node[k];
      const fresh = /^\d+$/.test(path[i + 1]!) ? [] : {};
      node[k] = next !== null && typeof next === "object" ? next : fresh;
      node = node[k] as Record<string, unknown>;
    }
  }
  return JSON.stringify(root).replace(JSON.stringify(PLACE), value);
}

/** Every bad body for the operation, named, as the text sent. */
function badBodies(op: Operation): [string, string][] {
  const base = sampleBody(op.body);
  const out: [string, string][] = [
    ["an array", "[]"],
    ["a string", '"text"'],
    ["a number", "42"],
    ["null", "null"],
    ["invalid JSON", '{"a":'],
    ["deep nesting", DEEP_ARRAY],
  ];
  // Parsing 10,000 levels or a megabyte is the cost: once each is enough.
  let megabyte = false, deep = false, deepInside = false;
  for (const [path, schema] of declaredFields(op.body)) {
    const k = path.join(".");
    const types = typesOf(schema);
    const wrong = wrongValue(schema);
    if (wrong !== null) {
      out.push([`${k} of a wrong type`, withValue(base, path, JSON.stringify(wrong))]);
    }
    if (!deep && !types.has("object") && types.size > 0) {
      deep = true;
      out.push([`${k} nested deep`, withValue(base, path, DEEP_OBJECT)]);
    }
    // A field that takes an object (an order_payload, a cart) holding one nested past the bound.
    if (!deepInside && types.has("object")) {
      deepInside = true;
      out.push([`${k} holding deep nesting`, withValue(base, path, DEEP_OBJECT)]);
    }
    const max = maxLengthOf(schema);
    if (max !== null) {
      out.push([`${k} over ${max}`, withValue(base, path, `"${"x".repeat(max + 1)}"`)]);
    } else if (types.has("string") && !megabyte) {
      megabyte = true;
      out.push([`${k} of a megabyte`, withValue(base, path, `"${MEGABYTE}"`)]);
    }
  }
  return out;
}

Deno.test("guards: every operation with a JSON body refuses bad bodies with a 4xx in the error shape, and changes nothing", async () => {
  const t = await openTestEnv();
  try {
    const a = await newTenant(t, "A");
    const ops = operations(await openApiDocument(t)).filter((op) => op.body !== null);
    assert.ok(ops.length >= 60, `operations with a JSON body: ${ops.length}`);
    const before = await digest(t, a);
    const { failures, sent } = await unrefused(t, a, ops, {
      width: 8,
      probesOf: badBodies,
      sendOne: (op, url, headers, body: string) => send(t, op, url, headers, body),
    });
    assert.deepEqual(failures, [], "bad bodies not refused in the error shape");
    assert.ok(sent > ops.length * 6, `bad bodies sent: ${sent}`);
    assert.equal(await digest(t, a), before, "a bad body changed what the tenant sees");
  } finally {
    await t.close();
  }
});
