/**
 * Reading a route's request as its schemas say (define() in route.ts): path, query and body parts
 * parsed (422 `validation_failed` naming each bad field), a form's files, text that cannot be
 * kept refused.
 */
import type { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "./context.ts";
import { ApiError, validationFailed } from "./errors.ts";
import type { FieldError } from "../runtime/actor.ts";
import type { Infer, RouteSpec, Schema } from "./route_spec.ts";
import { boundedForm, boundedText, isMultipart } from "./upload.ts";
import { requireJsonBody } from "./media_type.ts";
import { JSON_DEPTH_MAX } from "../limits.ts";

/** A request's parts, parsed (RouteSpec's schemas). */
export interface Input<P extends Schema, Q extends Schema, B extends Schema> {
  readonly params: Infer<P>;
  readonly query: Infer<Q>;
  readonly body: Infer<B>;
  /** The form's files by field name (RouteSpec.form), only those sent and not empty. */
  readonly files: Readonly<Record<string, File>>;
}

/**
 * Parses the request's parts by the route's schemas; `queryNames`: the query parameters the
 * route reads (each taken once).
 */
export async function readRequest<P extends Schema, Q extends Schema, B extends Schema>(
  c: Context<AppEnv>,
  spec: RouteSpec<P, Q, B>,
  queryNames: ReadonlySet<string> | null,
): Promise<Input<P, Q, B>> {
  // Only the parts a route declares are read: Hono parses the path and query on each read.
  const params = (spec.params ? parse(spec.params, c.req.param(), "params") : undefined) as Infer<
    P
  >;
  if (queryNames) refuseRepeated(c, queryNames);
  const query = (spec.query ? parse(spec.query, c.req.query(), "query") : undefined) as Infer<Q>;
  const files: Record<string, File> = {};
  let sent: unknown;
  if (spec.form && isMultipart(c)) {
    sent = await readForm(c, spec.form, files);
  } else if (spec.body) {
    requireJsonBody(c, spec.form ? "multipart/form-data" : undefined);
    sent = await readJson(c, spec.bodyBytesMax);
  } else if (takesOptionalBody(spec) && c.req.raw.body !== null) {
    // An action with nothing to read still refuses a body it cannot read, a form too, rather
    // than act as if it were not there (the route may read it itself: readJson keeps the text
    // for it; one reading a form declares it: RouteSpec.form or multipart).
    requireJsonBody(c);
    await readJson(c);
  }
  const body = (spec.body ? await parseBody(c, spec, sent) : undefined) as Infer<B>;
  return { params, query, body, files };
}

/** The body by its schema; refused, with what the route's alsoCheck finds beside (RouteSpec). */
async function parseBody<B extends Schema>(
  c: Context<AppEnv>,
  spec: RouteSpec<Schema, Schema, B>,
  sent: unknown,
): Promise<unknown> {
  try {
    return parse(spec.body, sent, "body");
  } catch (e) {
    if (!spec.alsoCheck || !(e instanceof ApiError) || e.code !== "validation_failed") throw e;
    const named = e.extra.errors as readonly FieldError[];
    const more = (await spec.alsoCheck(c, sent)).filter((p) =>
      !named.some((n) => n.path === p.path)
    );
    throw more.length === 0 ? e : validationFailed([...named, ...more]);
  }
}

/**
 * A route that changes something and declares no body, file or form: a body sent to it must
 * still be JSON (some read an optional one themselves).
 */
export function takesOptionalBody(
  spec: Pick<
    RouteSpec<Schema, Schema, Schema>,
    "method" | "body" | "upload" | "form" | "multipart"
  >,
): boolean {
  return spec.method !== "get" && !spec.body && !spec.upload && !spec.form && !spec.multipart;
}

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

/** Validates one part of a request; an issue with the whole part (`[]` for `{}`) names the part. */
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
  // A part given twice (two proof photos, two amounts): which was meant is not known, and
  // keeping the last dropped the other without a word (refuseRepeated, for a query).
  const repeated = [...new Set(data.keys())].filter((name) => data.getAll(name).length > 1);
  if (repeated.length > 0) {
    throw validationFailed(repeated.map((path) => ({
      path,
      message: "given more than once: it takes one value",
    })));
  }
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
export async function readJson(c: Context<AppEnv>, max?: number): Promise<unknown> {
  const text = await boundedText(c, max);
  if (text.trim() === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw validationFailed([{ path: "body", message: `not valid JSON: ${(e as Error).message}` }]);
  }
  const deep = tooDeep(parsed);
  if (deep !== null) {
    throw validationFailed([{
      path: deep,
      message: `nested more than ${JSON_DEPTH_MAX} levels of objects and arrays deep`,
    }]);
  }
  return parsed;
}

/** A value met walking a body: its parent and key, to name its path if it is too deep. */
interface Nested {
  readonly value: unknown;
  readonly level: number;
  readonly parent: Nested | null;
  readonly key: string;
}

/**
 * The path of the first object or array nested past JSON_DEPTH_MAX in `body`, or null: walked
 * without recursion, as any depth may be sent, and naming a path only for the one refused.
 */
function tooDeep(body: unknown): string | null {
  if (!isContainer(body)) return null;
  // Only objects and arrays are held: a body's strings and numbers, most of it, are passed by.
  const stack: Nested[] = [{ value: body, level: 1, parent: null, key: "body" }];
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (n.level > JSON_DEPTH_MAX) return pathOf(n);
    for (const [key, value] of Object.entries(n.value as object)) {
      if (isContainer(value)) stack.push({ value, level: n.level + 1, parent: n, key });
    }
  }
  return null;
}

function isContainer(value: unknown): boolean {
  return value !== null && typeof value === "object";
}

function pathOf(n: Nested): string {
  const keys: string[] = [];
  for (let at: Nested | null = n; at !== null && at.parent !== null; at = at.parent) {
    keys.unshift(at.key);
  }
  return keys.join(".") || "body";
}
