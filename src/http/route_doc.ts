/**
 * A route as the OpenAPI document shows it (Business API 9.1): its request parts, its success
 * envelope, and every refusal it can answer by status, from the same schemas that validate it.
 */
import { type OpenAPIHono, z } from "@hono/zod-openapi";
// The router's type from its parts, not app.ts: the app mounts the documents, whose own routes
// (docs_paths.ts) are documented with this module's refusals.
import type { AppEnv } from "./context.ts";
import { isKnownCode, statusOf } from "./errors.ts";
import {
  BODY_TOO_LARGE,
  guardRefusals,
  mergeRefusals,
  PROJECTIONS_BEHIND,
  STORED_TOO_LARGE,
  TEST_FLAG_REFUSED,
} from "./refusals.ts";
import { UNSUPPORTED_MEDIA_TYPE, unsupportedBesides } from "./media_type.ts";
import { takesOptionalBody } from "./request.ts";
import type { FileType, RouteSpec, Schema, Security } from "./route_spec.ts";
import type { SECURITY_SCHEMES } from "./openapi_shape.ts";

/** Business API 2.2: every sandbox answer says so; live answers carry no such field. */
const SandboxMark = z.literal("sandbox").optional().openapi({
  description: "Sandbox answers only: `sandbox`; absent on live",
});

export const ErrorBody = z.object({
  success: z.literal(false),
  code: z.string().openapi({ example: "validation_failed" }),
  message: z.string(),
  /** validation_failed: each bad field (CONTRACT "Errors not named in the spec"). */
  errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  environment: SandboxMark,
}).openapi("Error");

/** `meta` of a page of a keyset list (app.ts ok()): the page size asked and the next cursor. */
export const PageMeta = z.object({
  limit: z.number().int().openapi({ description: "The page size this page was asked with" }),
  next_cursor: z.string().nullable().openapi({
    description: "Pass as `cursor` for the next page; null on the last page",
  }),
}).openapi("PageMeta");

/** `meta` of a page of a list paged by offset: the page size and the offset asked. */
export const OffsetPageMeta = z.object({
  limit: z.number().int(),
  offset: z.number().int(),
}).openapi("OffsetPageMeta");

/**
 * The success envelope as the OpenAPI document shows it: `data` as the route declares it,
 * `meta` on a paged list, and the fields a route also answers beside `data` (RouteSpec.beside).
 */
function envelopeOf(spec: RouteSpec<Schema, Schema, Schema>) {
  const { paged } = spec;
  const meta = paged === undefined
    ? {}
    : { meta: paged === "cursor" ? PageMeta : paged === "offset" ? OffsetPageMeta : paged };
  return z.object({
    success: z.literal(true),
    ...spec.beside?.shape,
    data: spec.response ?? z.unknown(),
    ...meta,
    environment: SandboxMark,
  });
}

type Requirement = { [scheme in keyof typeof SECURITY_SCHEMES]?: string[] };

/** The security requirement of each kind of route (RouteSpec.security). */
export const SECURITY: Record<Security, Requirement[]> = {
  operator: [{ operatorToken: [] }],
  business: [{ businessKey: [] }],
  client: [{ clientKey: [] }],
  driver: [{ driverToken: [] }],
  channel: [{ channelToken: [] }],
  public: [],
};

/** The `Idempotency-Key` header parameter as the OpenAPI document shows it. */
function idempotencyHeaderParam(description: string) {
  return z.object({
    "Idempotency-Key": z.string().min(1).max(120).optional().openapi({ description }),
  });
}

const Binary = z.string().openapi({ format: "binary" });

/** An error answer as the OpenAPI document shows it. */
function refusal(description: string) {
  return { description, content: { "application/json": { schema: ErrorBody } } };
}

/**
 * Every refusal the route can answer: its own, its guards' and those its request's parts bring.
 * Throws at start for a guard that never said what it refuses, or a code without a status.
 */
function refusalsOf(spec: RouteSpec<Schema, Schema, Schema>): Record<string, string> {
  const route = `${spec.method.toUpperCase()} ${spec.path}`;
  const guards = (spec.middleware ?? []).map((m) => {
    const r = guardRefusals(m);
    if (!r) throw new Error(`${route}: a guard that does not say what it refuses (refusing())`);
    return r;
  });
  const parts = [
    spec.params ? "a path parameter" : "",
    spec.query ? "a query parameter" : "",
    spec.body ? "a body field" : "",
    spec.upload ? "the uploaded file" : "",
  ].filter(Boolean);
  // A parameter that is one of a fixed set (an action) names nothing that could be missing.
  const shape = spec.params instanceof z.ZodObject ? spec.params.shape : {};
  const names = [...spec.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!)
    .filter((n) => !(shape[n] instanceof z.ZodEnum)).map((n) => `\`${n}\``);
  const all = mergeRefusals(
    TEST_FLAG_REFUSED,
    ...guards,
    parts.length > 0
      ? { validation_failed: `${parts.join(" or ")} is missing or invalid; \`errors\` names each` }
      : {},
    spec.body || spec.upload ? BODY_TOO_LARGE : {},
    spec.body ? UNSUPPORTED_MEDIA_TYPE : {},
    spec.multipart || spec.upload === "file" ? unsupportedBesides("multipart/form-data") : {},
    spec.upload === "text/csv"
      ? unsupportedBesides("text/csv, text/plain or multipart/form-data")
      : {},
    spec.method === "get" ? {} : STORED_TOO_LARGE,
    spec.method === "get" ? {} : PROJECTIONS_BEHIND,
    takesOptionalBody(spec)
      ? {
        ...UNSUPPORTED_MEDIA_TYPE,
        validation_failed: "a body was sent and it is not valid JSON",
        ...BODY_TOO_LARGE,
      }
      : {},
    names.length > 0 && spec.notFound !== false
      ? { not_found: `the ${names.join(" or ")} named does not exist, or is not the caller's` }
      : {},
    spec.refusals ?? {},
  );
  for (const code of Object.keys(all)) {
    if (!isKnownCode(code)) throw new Error(`${route}: refusal code without a status: ${code}`);
  }
  return all;
}

/**
 * The refusals as the OpenAPI document shows them: one answer per status, listing each code
 * (also as the enum of `code`) with when; the status is statusOf's, as the answer's is. Codes in
 * `inError` are named by the body's `error` instead (CONTRACT "Errors": tracking endpoints).
 */
export function refusalResponses(
  refusals: Readonly<Record<string, string>>,
  inError: ReadonlySet<string> = new Set(),
) {
  const byStatus = new Map<number, [string, string][]>();
  for (const [code, when] of Object.entries(refusals)) {
    const status = statusOf(code);
    byStatus.set(status, [...(byStatus.get(status) ?? []), [code, when]]);
  }
  const responses: Record<string, ReturnType<typeof refusalWithCodes>> = {};
  for (const status of [...byStatus.keys()].sort()) {
    const codes = byStatus.get(status)!.sort(([a], [b]) => a.localeCompare(b));
    responses[status] = refusalWithCodes(codes, inError);
  }
  return responses;
}

function refusalWithCodes(codes: readonly [string, string][], inError: ReadonlySet<string>) {
  const named = codes.map(([c]) => c).filter((c) => !inError.has(c));
  const inErrorField = codes.map(([c]) => c).filter((c) => inError.has(c));
  const schemas = [
    ...(named.length > 0
      ? [{
        allOf: [
          { $ref: "#/components/schemas/Error" },
          {
            type: "object" as const,
            properties: { code: { type: "string" as const, enum: named } },
          },
        ],
      }]
      : []),
    ...(inErrorField.length > 0
      ? [{
        type: "object" as const,
        required: ["success", "error", "message"],
        properties: {
          success: { type: "boolean" as const, enum: [false] },
          error: { type: "string" as const, enum: inErrorField },
          message: { type: "string" as const },
        },
      }]
      : []),
  ];
  return {
    description: codes.map(([code, when]) => `- \`${code}\`: ${when}`).join("\n"),
    content: {
      "application/json": { schema: schemas.length === 1 ? schemas[0]! : { oneOf: schemas } },
    },
  };
}

/** The request body as the OpenAPI document shows it. */
function requestBody(
  spec: {
    body?: z.ZodType | undefined;
    upload?: "text/csv" | "file" | undefined;
    form?: { readonly files: readonly string[] } | undefined;
    multipart?: z.ZodObject | undefined;
  },
) {
  if (spec.multipart) {
    return {
      body: { required: true, content: { "multipart/form-data": { schema: spec.multipart } } },
    };
  }
  if (spec.upload) {
    const multipart = z.object({ file: Binary }).passthrough();
    return {
      body: {
        required: true,
        content: spec.upload === "text/csv"
          ? {
            "multipart/form-data": { schema: multipart },
            "text/csv": { schema: Binary },
            // Read as text/csv: what a client sending a file as plain text means.
            "text/plain": { schema: Binary },
          }
          : { "multipart/form-data": { schema: multipart } },
      },
    };
  }
  if (spec.body && spec.form && spec.body instanceof z.ZodObject) {
    const files = Object.fromEntries(spec.form.files.map((f) => [f, Binary.optional()]));
    return {
      body: {
        required: true,
        content: {
          "application/json": { schema: spec.body },
          "multipart/form-data": { schema: spec.body.extend(files) },
        },
      },
    };
  }
  return spec.body
    ? { body: { required: true, content: { "application/json": { schema: spec.body } } } }
    : {};
}

/**
 * Enters the route in the environment's OpenAPI document; answers the refusals it documents. A
 * route that only refuses lists its one refusal beside its guards' and parameters' (an unknown
 * key, a card of another courier), and no success.
 */
export function registerRoute(
  api: OpenAPIHono<AppEnv>,
  spec: RouteSpec<Schema, Schema, Schema>,
): Record<string, string> {
  const refusals = spec.alwaysRefused
    ? mergeRefusals(refusalsOf(spec), {
      [spec.alwaysRefused.code]: "always, once the caller and the resource named are known",
    })
    : refusalsOf(spec);
  api.openAPIRegistry.registerPath({
    method: spec.method,
    path: spec.path,
    summary: spec.summary,
    ...(spec.description === undefined ? {} : { description: spec.description }),
    tags: [spec.tag],
    security: SECURITY[spec.security],
    request: {
      ...(spec.params instanceof z.ZodObject ? { params: spec.params } : {}),
      ...(spec.query instanceof z.ZodObject ? { query: spec.query } : {}),
      ...(spec.idempotencyKey ? { headers: idempotencyHeaderParam(spec.idempotencyKey) } : {}),
      ...requestBody(spec),
    },
    responses: spec.alwaysRefused
      ? refusalAnswers(spec, refusals)
      : { ...successResponses(spec), ...refusalAnswers(spec, refusals) },
  });
  return refusals;
}

/** A file answer: each media type it may have, and the headers of its own. */
function fileResponse(
  produces: FileType | readonly FileType[],
  headers: Readonly<Record<string, string>> | undefined,
) {
  const types: readonly FileType[] = typeof produces === "string" ? [produces] : produces;
  return {
    description: `The file (${types.join(", ")})`,
    content: Object.fromEntries(types.map((t) => [t, { schema: Binary }])),
    ...(headers === undefined ? {} : {
      headers: Object.fromEntries(
        Object.entries(headers).map(([name, description]) => [name, {
          description,
          required: true,
          schema: { type: "string" },
        }]),
      ),
    }),
  };
}

/** The success answers: the file or the envelope, and the replay's or the other status's. */
function successResponses(spec: RouteSpec<Schema, Schema, Schema>) {
  const status = spec.status ?? 200;
  const success = envelopeOf(spec);
  return {
    [status]: spec.produces ? fileResponse(spec.produces, spec.fileHeaders) : {
      description: "Success: `{success: true, data}`",
      content: { "application/json": { schema: success } },
    },
    ...(spec.replay && status !== 200
      ? {
        200: {
          description: `The same request again: the first answer (\`replayed\` or ` +
            `\`already_booked\`), nothing done twice. ${spec.replay}`,
          content: { "application/json": { schema: success } },
        },
      }
      : {}),
    ...(spec.alsoAnswers && spec.alsoAnswers.status !== status
      ? {
        [spec.alsoAnswers.status]: {
          description: `Success: \`{success: true, data}\`, ${spec.alsoAnswers.when}`,
          content: { "application/json": { schema: success } },
        },
      }
      : {}),
  };
}

/** The refusals by status, and the `default` error answer. */
function refusalAnswers(
  spec: RouteSpec<Schema, Schema, Schema>,
  refusals: Readonly<Record<string, string>>,
) {
  return {
    ...refusalResponses(
      refusals,
      new Set(spec.errorField === "error" ? Object.keys(refusals) : []),
    ),
    default: refusal(
      spec.errorField === "error"
        ? "Error: `{success: false, error, message}`"
        : "Error: `{success: false, code, message}`; 422 `validation_failed` lists each bad " +
          "field in `errors`",
    ),
  };
}
