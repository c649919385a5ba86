/**
 * Real answers checked against the OpenAPI document the service serves: the operation the
 * request reached, the status among those it documents, and the JSON body against that status's
 * schema, with every success object closed (a field the schema does not name is a mismatch, as
 * one it requires and the answer lacks). Refusals stay open: their `Error` carries the extra
 * fields some codes add (`reference`, `limit`).
 */
import { type JsonSchema, resolveRefs } from "./openapi_ops.ts";
import { type Doc, operationsOf, schemaChecker } from "./openapi_schemas.ts";

/** `allOf` of objects merged into one object, so that it can be closed as a whole. */
function merged(node: JsonSchema): JsonSchema {
  if (Array.isArray(node)) return node.map(merged);
  if (node === null || typeof node !== "object") return node;
  const o: JsonSchema = Object.fromEntries(
    Object.entries(node).map(([k, v]) => [
      k,
      k === "properties"
        ? Object.fromEntries(Object.entries(v as object).map(([p, s]) => [p, merged(s)]))
        : merged(v),
    ]),
  );
  if (!Array.isArray(o.allOf) || !o.allOf.every((s: JsonSchema) => s.properties)) return o;
  const { allOf, ...rest } = o;
  return {
    ...rest,
    type: "object",
    properties: Object.assign({}, ...allOf.map((s: JsonSchema) => s.properties)),
    required: [...new Set(allOf.flatMap((s: JsonSchema) => s.required ?? []))],
  };
}

/** Every object naming its properties and silent on others made closed. */
function closed(node: JsonSchema): JsonSchema {
  if (Array.isArray(node)) return node.map(closed);
  if (node === null || typeof node !== "object") return node;
  const o: JsonSchema = Object.fromEntries(
    Object.entries(node).map(([k, v]) => [
      k,
      k === "properties"
        ? Object.fromEntries(Object.entries(v as object).map(([p, s]) => [p, closed(s)]))
        : closed(v),
    ]),
  );
  if (o.properties && o.additionalProperties === undefined) o.additionalProperties = false;
  return o;
}

/** The operation of `doc` a request of `method` to `path` (no `/api`, any query) reaches. */
function operationOf(doc: Doc, method: string, path: string) {
  const bare = path.split("?")[0]!;
  const m = method.toLowerCase();
  // A literal segment wins over a parameter (`/trips/active` over `/trips/{id}`).
  const candidates = operationsOf(doc).filter((o) =>
    o.method === m &&
    new RegExp(`^${o.path.replace(/\{[^}]+\}/g, "[^/]+")}$`).test(bare)
  );
  return candidates.sort((a, b) =>
    (a.path.match(/\{/g) ?? []).length - (b.path.match(/\{/g) ?? []).length
  )[0];
}

/** The headers `response` declares required that `headers` lacks. */
function missingHeaders(doc: Doc, response: JsonSchema, headers: Headers | undefined): string[] {
  if (!headers) return [];
  return Object.entries(response.headers ?? {})
    .filter(([name, h]) => resolveRefs(doc, h).required && !headers.has(name))
    .map(([name]) => name);
}

/**
 * Checks answers against `doc`; each check answers what is wrong, or null. With the answer's
 * headers, those its response declares required are checked too.
 */
export function answerChecker(doc: Doc) {
  const checker = schemaChecker(doc);
  const compiled = new Map<string, ReturnType<typeof checker.compile>>();
  return (
    method: string,
    path: string,
    status: number,
    body: unknown,
    headers?: Headers,
  ): string | null => {
    const found = operationOf(doc, method, path);
    const what = `${method.toUpperCase()} ${path} ${status}`;
    if (!found) return `${what}: no operation of the document`;
    const responses = (found.op.responses ?? {}) as Record<string, JsonSchema>;
    const response = responses[String(status)];
    // An answer of a status not listed is the `default` one's, headers included.
    const lacking = missingHeaders(doc, response ?? responses.default ?? {}, headers);
    if (lacking.length > 0) return `${what}: without the headers it declares: ${lacking}`;
    if (!response) return `${what}: a status ${found.path} does not document`;
    const schema = response.content?.["application/json"]?.schema;
    if (!schema) return null;
    const key = `${found.method} ${found.path} ${status}`;
    let validate = compiled.get(key);
    if (!validate) {
      const whole = resolveRefs(doc, schema);
      validate = checker.compile(status < 400 ? closed(merged(whole)) : whole);
      compiled.set(key, validate);
    }
    if (validate(body)) return null;
    const problems = [
      ...new Set(
        validate.errors!.map((e) =>
          `${e.instancePath.replace(/\/\d+/g, "/N")} ${e.message} ${JSON.stringify(e.params)}`
        ),
      ),
    ];
    return `${what} (${found.path}): ${problems.join("; ")}`;
  };
}
