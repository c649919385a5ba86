/**
 * One way to declare a route: its schemas validate the request (422 `validation_failed` naming
 * each bad field) and describe it in the OpenAPI document, so the two can never drift apart.
 */
import { z } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { every } from "hono/combine";
import { type Api, errorResponse } from "./app.ts";
import type { AppEnv } from "./context.ts";
import { ApiError, isKnownCode, statusOf, validationFailed } from "./errors.ts";
import {
  BODY_TOO_LARGE,
  guardRefusals,
  mergeRefusals,
  type Refusals,
  strictReport,
  type UndocumentedRefusal,
} from "./refusals.ts";
import { boundedForm, boundedText, isMultipart } from "./upload.ts";

// A field left out is named as missing, not as "Invalid input" (a union's default message), and a
// value of the wrong kind says what it was; other messages are the schema's own.
z.config({
  customError: (issue) => {
    if (issue.input === undefined) return "required";
    if (issue.code === "invalid_union" || issue.code === "invalid_type") {
      const got = issue.input === null
        ? "null"
        : Array.isArray(issue.input)
        ? "array"
        : typeof issue.input;
      return issue.code === "invalid_type"
        ? `expected ${issue.expected}, received ${got}`
        : `not a valid value (received ${got})`;
    }
    return undefined;
  },
});

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

/** How a list pages (its `meta`): by cursor, by offset, or by offset with more (the board). */
type Paging = "cursor" | "offset" | z.ZodObject;

/**
 * The success envelope as the OpenAPI document shows it: `data` as the route declares it, and
 * `meta` on a paged list.
 */
function envelopeOf(response: z.ZodType | undefined, paged: Paging | undefined) {
  const meta = paged === undefined
    ? {}
    : { meta: paged === "cursor" ? PageMeta : paged === "offset" ? OffsetPageMeta : paged };
  return z.object({
    success: z.literal(true),
    data: response ?? z.unknown(),
    ...meta,
    environment: SandboxMark,
  });
}

type Security = "operator" | "business" | "client" | "driver" | "public";

const SECURITY: Record<Security, Record<string, string[]>[]> = {
  operator: [{ bearer: [] }],
  business: [{ businessKey: [] }],
  client: [{ clientKey: [] }],
  driver: [{ bearer: [] }],
  public: [],
};

type Schema = z.ZodType | undefined;
type Infer<S> = S extends z.ZodType ? z.infer<S> : undefined;

export interface RouteSpec<P extends Schema, Q extends Schema, B extends Schema> {
  readonly method: "get" | "post" | "put" | "patch" | "delete";
  /** OpenAPI form: `/operator/businesses/{id}`. */
  readonly path: string;
  readonly summary: string;
  /** Longer OpenAPI text: what the answer's fields mean where their names do not say it all. */
  readonly description?: string;
  /**
   * A route that exists only to refuse (editing a published rate card): the OpenAPI document
   * shows this refusal and no success.
   */
  readonly alwaysRefused?: { readonly status: 409; readonly code: string };
  readonly tag: string;
  readonly security: Security;
  readonly middleware?: readonly MiddlewareHandler<AppEnv>[];
  readonly params?: P;
  readonly query?: Q;
  readonly body?: B;
  readonly status?: 200 | 201 | 202;
  /** A file answer instead of the JSON envelope (a PDF, a CSV), as the OpenAPI document says. */
  readonly produces?: "application/pdf" | "text/csv" | "application/octet-stream";
  /** A file the request carries instead of a JSON body: multipart field `file`, or the raw text. */
  readonly upload?: "text/csv" | "file";
  /**
   * What the `Idempotency-Key` header does on this route, when it honours one: shown in the
   * OpenAPI document as the header parameter (the handler reads it with idempotencyHeader).
   */
  readonly idempotencyKey?: string;
  /**
   * The JSON body may come as multipart/form-data instead: its text fields are the body (checked
   * by the same schema) and these file fields reach the handler as `files`, within `maxBytes`.
   */
  readonly form?: { readonly files: readonly string[]; readonly maxBytes: number };
  /** When the same request again answers 200 with the first answer: what makes it the same. */
  readonly replay?: string;
  /**
   * Another success status the route answers besides `status`, not as a replay (a packet move
   * answers 201 only when stock adds the packet): when. Shown with the same envelope.
   */
  readonly alsoAnswers?: { readonly status: 200 | 201; readonly when: string };
  /**
   * What `data` holds on success (and on a replay), for the OpenAPI document only: answers are
   * not checked against it. Without it the document shows `data` as any value.
   */
  readonly response?: z.ZodType;
  /** A list answered a page at a time: the envelope carries `meta` (PageMeta, OffsetPageMeta). */
  readonly paged?: Paging;
  /**
   * The route's own refusals (courier 7): each code its handler, and what it asks, can answer,
   * with when. define adds its guards' refusals, `validation_failed` for a request with parts,
   * `payload_too_large` for one with a body and `not_found` for one with path parameters.
   */
  readonly refusals?: Refusals;
  /** False where no path parameter can name something missing (no `not_found`). */
  readonly notFound?: false;
  /**
   * `error`: every refusal of the route, its guards' and its request's too, names its code in
   * `error`, not `code` (CONTRACT "Errors": tracking endpoints).
   */
  readonly errorField?: "error";
}

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
    ...guards,
    parts.length > 0
      ? { validation_failed: `${parts.join(" or ")} is missing or invalid; \`errors\` names each` }
      : {},
    spec.body || spec.upload ? BODY_TOO_LARGE : {},
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

/**
 * Runs after the route (guards included) answered: Hono has already rendered a thrown refusal
 * (onError) or the handler made its own, so the answer's body says the code either way.
 */
function refusalCheck(
  route: string,
  documented: Readonly<Record<string, string>>,
  report: (u: UndocumentedRefusal) => void,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    const status = c.res.status;
    // 5xx is the document's `default`: unforeseen by definition.
    if (status < 400 || status >= 500) return;
    const body = await c.res.clone().json().catch(() => null);
    // Tracking answers name it `error` (CONTRACT "Errors").
    const code = body?.code ?? body?.error;
    if (typeof code !== "string" || Object.hasOwn(documented, code)) return;
    report({ route, code, status });
    c.res = errorResponse(
      c,
      new ApiError(
        "undocumented_refusal",
        `${route} answered ${status} \`${code}\`, which its OpenAPI entry does not list`,
        { route, refusal: code, refused_status: status },
      ),
    );
  };
}

/** The request body as the OpenAPI document shows it. */
function requestBody(
  spec: {
    body?: z.ZodType | undefined;
    upload?: "text/csv" | "file" | undefined;
    form?: { readonly files: readonly string[] } | undefined;
  },
) {
  if (spec.upload) {
    const multipart = z.object({ file: Binary }).passthrough();
    return {
      body: {
        required: true,
        content: spec.upload === "text/csv"
          ? { "multipart/form-data": { schema: multipart }, "text/csv": { schema: Binary } }
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

export interface Input<P extends Schema, Q extends Schema, B extends Schema> {
  readonly params: Infer<P>;
  readonly query: Infer<Q>;
  readonly body: Infer<B>;
  /** The form's files by field name (RouteSpec.form), only those sent and not empty. */
  readonly files: Readonly<Record<string, File>>;
}

export type Handler<P extends Schema, Q extends Schema, B extends Schema> = (
  c: Context<AppEnv>,
  input: Input<P, Q, B>,
) => Response | Promise<Response>;

export function define<
  P extends Schema = undefined,
  Q extends Schema = undefined,
  B extends Schema = undefined,
>(api: Api, spec: RouteSpec<P, Q, B>, handler: Handler<P, Q, B>): void {
  const status = spec.status ?? 200;
  const success = envelopeOf(spec.response, spec.paged);
  const refusals = spec.alwaysRefused ? {} : refusalsOf(spec);
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
      ? {
        [spec.alwaysRefused.status]: refusal(`Always refused: \`${spec.alwaysRefused.code}\``),
        default: refusal("Error: `{success: false, code, message}`"),
      }
      : {
        [status]: spec.produces
          ? {
            description: `The file (${spec.produces})`,
            content: { [spec.produces]: { schema: Binary } },
          }
          : {
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
      },
  });
  const honoPath = spec.path.replace(/\{([^}]+)\}/g, ":$1");
  const errorField = spec.errorField;
  const middleware = [
    ...(errorField ? [errorFieldOf(errorField)] : []),
    ...(spec.middleware ?? []),
  ];
  const guards: MiddlewareHandler<AppEnv> = middleware.length
    ? every(...middleware)
    : (_c, next) => next();
  const method = spec.method.toUpperCase();
  const queryNames = spec.query instanceof z.ZodObject
    ? new Set(Object.keys(spec.query.shape))
    : null;
  const run = async (c: Context<AppEnv>) => {
    const params = parse(spec.params, c.req.param(), "params") as Infer<P>;
    if (queryNames) refuseRepeated(c, queryNames);
    const query = parse(spec.query, c.req.query(), "query") as Infer<Q>;
    const files: Record<string, File> = {};
    let sent: unknown;
    if (spec.form && isMultipart(c)) {
      sent = await readForm(c, spec.form, files);
    } else if (spec.body) {
      sent = await readJson(c);
    }
    const body = (spec.body ? parse(spec.body, sent, "body") : undefined) as Infer<B>;
    return await handler(c, { params, query, body, files });
  };
  const report = strictReport(api);
  if (report && !spec.alwaysRefused) {
    api.on(method, honoPath, refusalCheck(`${method} ${spec.path}`, refusals, report), guards, run);
  } else {
    api.on(method, honoPath, guards, run);
  }
}

/** Marks the request's error answers as naming their code in `field` (app.ts errorResponse). */
function errorFieldOf(field: "error"): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    c.set("errorField", field);
    await next();
  };
}

/** Validates one part of a request; an issue with the whole part (`[]` for `{}`) names the part. */
/**
 * A query parameter the route reads, given twice (`?client_id=A&client_id=B`): which one was
 * meant is not known, and reading the first would act on half of what was asked (an export
 * marking one client's range of two). No route's query takes a list.
 */
function refuseRepeated(c: Context<AppEnv>, names: ReadonlySet<string>): void {
  if (!c.req.url.includes("&")) return;
  const repeated = Object.entries(c.req.queries())
    .filter(([name, values]) => values.length > 1 && names.has(name))
    .map(([name]) => name);
  if (repeated.length > 0) {
    throw validationFailed(repeated.map((path) => ({
      path,
      message: "given more than once: it takes one value",
    })));
  }
}

export function parse(schema: z.ZodType | undefined, value: unknown, part: string): unknown {
  if (!schema) return undefined;
  const r = schema.safeParse(value);
  if (r.success) {
    const unstorable: string[][] = [];
    collectUnstorable(r.data, [], unstorable);
    if (unstorable.length > 0) {
      throw validationFailed(unstorable.map((path) => ({
        path: path.join(".") || part,
        message: UNSTORABLE_TEXT,
      })));
    }
    return r.data;
  }
  throw validationFailed(r.error.issues.map((i) => ({
    path: i.path.map(String).join(".") || part,
    message: i.message,
  })));
}

export const UNSTORABLE_TEXT =
  "text with the NUL character (U+0000) or an unpaired UTF-16 surrogate cannot be kept";

/**
 * Whether text can be kept: Postgres holds neither U+0000 nor an unpaired surrogate, so such
 * text was accepted, committed, and then never reached the query side (a ledger entry missing
 * from statements and exports, a shipment from search), or made a search answer 500.
 */
export function storableText(s: string): boolean {
  return !s.includes("\u0000") && s.isWellFormed();
}

/**
 * Adds to `out` the path of every string (or key) in `value` that is not storableText. Every
 * request's parts pass here: the path in hand is one array, copied only for text refused.
 */
function collectUnstorable(value: unknown, at: string[], out: string[][]): void {
  if (typeof value === "string") {
    if (!storableText(value)) out.push([...at]);
    return;
  }
  if (value === null || typeof value !== "object" || value instanceof File) return;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      at.push(String(i));
      collectUnstorable(value[i], at, out);
      at.pop();
    }
    return;
  }
  for (const [k, v] of Object.entries(value)) {
    at.push(k);
    if (storableText(k)) collectUnstorable(v, at, out);
    else out.push([...at]);
    at.pop();
  }
}

/** A form's text fields as the body; its declared files into `files`, any other file refused. */
async function readForm(
  c: Context<AppEnv>,
  form: { readonly files: readonly string[]; readonly maxBytes: number },
  files: Record<string, File>,
): Promise<Record<string, string>> {
  const data = await boundedForm(c, form.maxBytes, `upload over ${form.maxBytes} bytes`);
  const fields: Record<string, string> = {};
  for (const [name, value] of data.entries()) {
    if (typeof value === "string") {
      fields[name] = value;
    } else if (!form.files.includes(name)) {
      throw validationFailed([{ path: name, message: "not a file field of this route" }]);
    } else if (value.size > 0) {
      files[name] = value;
    }
  }
  for (const name of form.files) {
    if (typeof fields[name] === "string") {
      throw validationFailed([{ path: name, message: "must be a file upload" }]);
    }
  }
  return fields;
}

/** The JSON body within the request cap (boundedText); an empty one is `{}`. */
export async function readJson(c: Context<AppEnv>): Promise<unknown> {
  const text = await boundedText(c);
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch (e) {
    throw validationFailed([{ path: "body", message: `not valid JSON: ${(e as Error).message}` }]);
  }
}

export { z };
