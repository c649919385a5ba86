/**
 * The operations of an environment's OpenAPI document, for tests generated from it (a route added
 * later is covered by default), and request bodies sampled from their schemas.
 */
import assert from "node:assert/strict";
import { generateSync } from "json-schema-faker";
import type { TestEnv } from "./test_env.ts";

// deno-lint-ignore no-explicit-any
export type JsonSchema = any;

export interface Operation {
  readonly method: string;
  /** OpenAPI form: `/business/network-runs/{run}`. */
  readonly path: string;
  /** `operator`, `business`, `client`, `driver` or `public` (route_spec.ts Security). */
  readonly security: string;
  readonly pathParams: readonly Param[];
  readonly queryParams: readonly Param[];
  /** The JSON body's schema, `$ref`s resolved; null without a JSON body. */
  readonly body: JsonSchema | null;
  /** The multipart form's schema (files as `format: binary`); null without a form. */
  readonly form: JsonSchema | null;
}

export interface Param {
  readonly name: string;
  readonly schema: JsonSchema;
}

export async function openApiDocument(t: TestEnv): Promise<JsonSchema> {
  const r = await t.call("GET", "/api-docs/openapi.json");
  assert.equal(r.status, 200);
  return r.body;
}

/** Replaces every local `$ref` with what it names (the document's schemas have no cycles). */
export function resolveRefs(doc: JsonSchema, node: JsonSchema = doc): JsonSchema {
  if (Array.isArray(node)) return node.map((n) => resolveRefs(doc, n));
  if (node === null || typeof node !== "object") return node;
  if (typeof node.$ref === "string") {
    const target = node.$ref.slice(2).split("/").reduce((a: JsonSchema, k: string) => a[k], doc);
    return resolveRefs(doc, target);
  }
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, resolveRefs(doc, v)]));
}

function securityOf(path: string, op: JsonSchema): string {
  const scheme = Object.keys(op.security?.[0] ?? {})[0];
  if (scheme === undefined) return "public";
  if (scheme === "businessKey") return "business";
  if (scheme === "clientKey") return "client";
  if (scheme === "channelToken") return "channel";
  return path.startsWith("/operator/") ? "operator" : "driver";
}

export function operations(doc: JsonSchema): Operation[] {
  const out: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths as Record<string, JsonSchema>)) {
    for (const [method, op] of Object.entries(methods as Record<string, JsonSchema>)) {
      const params = (op.parameters ?? []).map((p: JsonSchema) => resolveRefs(doc, p));
      const of = (where: string) =>
        params.filter((p: JsonSchema) => p.in === where).map((p: JsonSchema) => ({
          name: p.name,
          schema: p.schema ?? {},
        }));
      const json = op.requestBody?.content?.["application/json"]?.schema;
      const form = op.requestBody?.content?.["multipart/form-data"]?.schema;
      out.push({
        method: method.toUpperCase(),
        path,
        security: securityOf(path, op),
        pathParams: of("path"),
        queryParams: of("query"),
        body: json ? resolveRefs(doc, json) : null,
        form: form ? resolveRefs(doc, form) : null,
      });
    }
  }
  return out;
}

export const nameOf = (op: Operation) => `${op.method} ${op.path}`;

/** A body the schema describes, the required fields only, the same on every run. */
export function sampleBody(schema: JsonSchema): unknown {
  return generateSync(schema, {
    seed: 7,
    optionalsProbability: 0,
    useExamplesValue: true,
    useDefaultValue: true,
    maxDefaultItems: 1,
  });
}
