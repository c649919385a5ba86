/**
 * The OpenAPI document's schemas checked as JSON Schema 2020-12 (OpenAPI 3.1's dialect) by Ajv in
 * strict mode: each is a valid schema (patterns valid regexes, no unknown keyword), and compiles
 * to a validator of the values it describes (the Postman collection's example bodies).
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

import { METHODS } from "../../src/http/openapi_shape.ts";

// deno-lint-ignore no-explicit-any
export type Doc = any;

export interface Operation {
  operationId?: string;
  responses?: Record<string, unknown>;
  security?: Record<string, string[]>[];
  requestBody?: { content: Record<string, { schema?: unknown }> };
}

/** Every operation of the document, in its order. */
export function operationsOf(doc: Doc): { method: string; path: string; op: Operation }[] {
  return Object.entries(doc.paths as Record<string, Record<string, Operation>>).flatMap((
    [path, item],
  ) => METHODS.filter((m) => item[m]).map((method) => ({ method, path, op: item[method]! })));
}

/** The components' `$ref`s as ids Ajv knows each component schema by. */
function withComponentIds(schema: unknown): unknown {
  return JSON.parse(
    JSON.stringify(schema).replaceAll('"#/components/schemas/', '"urn:component:'),
  );
}

export function schemaChecker(doc: Doc) {
  const ajv = new Ajv2020({ strict: true, allErrors: true, validateFormats: true });
  addFormats.default(ajv);
  // OpenAPI's own keywords (3.1 section 4.8.24) and its `binary` format (a file).
  ajv.addKeyword("example").addKeyword("discriminator").addKeyword("xml")
    .addKeyword("externalDocs").addFormat("binary", true);
  for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) {
    ajv.addSchema(withComponentIds(schema) as object, `urn:component:${name}`);
  }
  return {
    /** Compiles the schema (throws naming what is wrong with it). */
    compile(schema: unknown) {
      return ajv.compile(withComponentIds(schema) as object);
    },
    /** Checks the schema against the 2020-12 meta-schema and its formats (a pattern's regex). */
    validSchema(schema: unknown): string | null {
      return ajv.validateSchema(withComponentIds(schema) as object) ? null : ajv.errorsText();
    },
    errorsText: (errors: Parameters<typeof ajv.errorsText>[0]) => ajv.errorsText(errors),
  };
}

/** The schemas of an operation's request: its parameters' and its bodies'. */
export function requestSchemasOf(op: Doc): unknown[] {
  const bodies = Object.values(op.requestBody?.content ?? {}) as { schema?: unknown }[];
  return [
    ...(op.parameters ?? []).map((p: { schema?: unknown }) => p.schema),
    ...bodies.map((c) => c.schema),
  ].filter((s) => s !== undefined);
}

/** The schemas of an operation's answers. */
export function responseSchemasOf(op: Doc): unknown[] {
  return Object.values(op.responses ?? {}).flatMap((r) =>
    Object.values((r as { content?: object }).content ?? {}).map((c) =>
      (c as { schema?: unknown }).schema
    )
  ).filter((s) => s !== undefined);
}
