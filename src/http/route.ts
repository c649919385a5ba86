/**
 * One way to declare a route: its schemas validate the request (422 `validation_failed` naming
 * each bad field, request.ts) and describe it in the OpenAPI document (route_doc.ts), so the two
 * can never drift apart.
 */
import { z } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { every } from "hono/combine";
import { type Api, errorResponse } from "./app.ts";
import type { AppEnv } from "./context.ts";
import { ApiError } from "./errors.ts";
import { strictReport, type UndocumentedRefusal } from "./refusals.ts";
import { type Input, readRequest } from "./request.ts";
import { registerRoute } from "./route_doc.ts";
import { refuseTestFlag } from "./test_flag.ts";
import { markRoute } from "./route_marks.ts";
import { REQUEST_BODY_BYTES_MAX } from "../limits.ts";
import type { RouteSpec, Schema } from "./route_spec.ts";

export type { Input, RouteSpec };
// What routes import from here beside define(): the shared answer schemas and request helpers.
export { ErrorBody, OffsetPageMeta, PageMeta, refusalResponses } from "./route_doc.ts";
export { parse, readJson, storableText, UNSTORABLE_TEXT } from "./request.ts";

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
      // JSON's 1e400 parses to Infinity, which zod refuses as "not a number" of type number.
      if (typeof issue.input === "number" && !Number.isFinite(issue.input)) {
        return "not a finite number";
      }
      return issue.code === "invalid_type"
        ? `expected ${issue.expected}, received ${got}`
        : `not a valid value (received ${got})`;
    }
    return undefined;
  },
});

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

export type Handler<P extends Schema, Q extends Schema, B extends Schema> = (
  c: Context<AppEnv>,
  input: Input<P, Q, B>,
) => Response | Promise<Response>;

export function define<
  P extends Schema = undefined,
  Q extends Schema = undefined,
  B extends Schema = undefined,
>(api: Api, spec: RouteSpec<P, Q, B>, handler: Handler<P, Q, B>): void {
  const refusals = registerRoute(api, spec);
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
  const run = markRoute(async (c: Context<AppEnv>) => {
    refuseTestFlag(c);
    return await handler(c, await readRequest(c, spec, queryNames));
  }, { bodyBytesMax: spec.bodyBytesMax ?? REQUEST_BODY_BYTES_MAX });
  const report = strictReport(api);
  if (report) {
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

export { z };
