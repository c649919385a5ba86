/**
 * The Hono app of one environment: `/health` outside the API, everything else under `/api`, the
 * `{success, data}` envelope, one error renderer, `X-Request-Id` and `X-Service-Environment` on
 * every response (Business API 2.2) with a log line and metrics per request (request_log.ts),
 * request schemas feeding the OpenAPI document.
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import { Hono } from "hono";
import type { Context, MiddlewareHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { Environment } from "./context.ts";
import {
  PROJECTION_BEHIND_RETRY_S,
  REQUEST_BODY_BYTES_MAX,
  UPLOAD_BODY_BYTES_MAX,
} from "../limits.ts";
import { ApiError, asApiError, validationFailed } from "./errors.ts";
import { PartitionUnavailable } from "../runtime/forwarding.ts";
import type { AppEnv } from "./context.ts";
import { countUncounted } from "./guards.ts";
import { allowedMethods, noSuchEndpoint } from "./no_endpoint.ts";
import { mountDocs } from "./openapi.ts";
import { checkRefusals, type UndocumentedRefusal } from "./refusals.ts";
import { observeRequests } from "./request_log.ts";
import { gateTestFlag } from "./test_flag.ts";
import { bodyCapOf } from "./route_marks.ts";
import { partitionsHeld } from "../runtime/placement.ts";

export type Api = OpenAPIHono<AppEnv>;

/** A router for one section of a spec; its schemas join the environment's OpenAPI document. */
export function newRouter(): Api {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) {
        throw validationFailed(result.error.issues.map((i) => ({
          path: i.path.map(String).join("."),
          message: i.message,
        })));
      }
    },
  });
}

export interface AppOptions {
  /**
   * Strict mode (tests): a route answering a refusal its OpenAPI entry does not list answers 500
   * `undocumented_refusal` instead, and it is reported here (refusals.ts checkRefusals).
   */
  readonly undocumentedRefusal?: (u: UndocumentedRefusal) => void;
}

export function createApp(
  env: Environment,
  routers: readonly ((api: Api) => void)[],
  options: AppOptions = {},
): Hono {
  const app = new Hono();
  app.use("*", observeRequests(env));
  // Which instance answers, and the partitions of actors it holds (issue 43 item 6).
  app.get("/health", (c) =>
    ok(c, {
      status: "ok",
      environment: env.name,
      instance: env.runtime.placement.instance,
      partitions: partitionsHeld(env.runtime.placement),
    }));

  const api = newRouter();
  api.use("*", requestGate(env));
  if (options.undocumentedRefusal) checkRefusals(api, options.undocumentedRefusal);
  for (const mount of routers) mount(api);
  mountDocs(api, env);
  // The whole app's routes, /health's too (read at the first refusal, once every route is in).
  const allowed = allowedMethods(app, "");
  const noEndpoint = (c: Context) => {
    // CONTRACT "Errors", business 7: a tracking link (TRACKING_PATH) mangled on its way to the
    // customer (a trailing slash, a cut-off token, another method) still answers in the tracking
    // shape.
    if (TRACKING_PATH.test(c.req.path)) (c as Context<AppEnv>).set("errorField", "error");
    return refuse(c, noSuchEndpoint(c, allowed(c.req.path)));
  };
  const refuse = (c: Context, e: ApiError): Response | Promise<Response> => {
    const counted = countUncounted(c, env.addressCounter, e);
    return counted instanceof Promise
      ? counted.then((answer) => errorResponse(c, answer))
      : errorResponse(c, counted);
  };
  api.notFound(noEndpoint);
  api.onError((err, c) => renderError(c, err, refuse, env));
  app.route("/api", api);
  app.notFound(noEndpoint);
  app.onError((err, c) => renderError(c, err, refuse, env));
  return app;
}

/**
 * What every API request passes first: the environment and request id set for the routes, a
 * body over its cap refused before it is read, and on live the test flag refused (test_flag.ts:
 * a route define() serves refuses it after its guards).
 */
function requestGate(env: Environment): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    // Set by observeRequests (request_log.ts) outside /api.
    if (c.get("requestId") === undefined) c.set("requestId", crypto.randomUUID());
    // The flows a route calls with it ask their commands for this request (Deps.requestId).
    c.set("env", { ...env, requestId: c.get("requestId") });
    // CONTRACT "Errors", business 7: a tracking link's refusals, these too, name their code in
    // `error`.
    if (TRACKING_PATH.test(c.req.path)) c.set("errorField", "error");
    const length = Number(c.req.header("Content-Length") ?? "0");
    // File uploads (evidence, CSV bookings) are larger; their routes cap what they read.
    // Media types are case-insensitive (RFC 9110 8.3.1), as the upload routes read them.
    const type = (c.req.header("Content-Type") ?? "").toLowerCase();
    const upload = type.startsWith("multipart/form-data") || type.startsWith("text/csv");
    // Past the common cap, a route's own may still take it (RouteSpec.bodyBytesMax).
    const max = upload
      ? UPLOAD_BODY_BYTES_MAX
      : length > REQUEST_BODY_BYTES_MAX
      ? bodyCapOf(c)
      : REQUEST_BODY_BYTES_MAX;
    if (length > max) {
      throw new ApiError("payload_too_large", `request body over ${max} bytes: ${length}`);
    }
    gateTestFlag(c, env.name);
    refuseWhileBehind(env, c.req.method);
    await next();
  };
}

/**
 * Issue 36 item 1: the projections' lag is bounded. While one is past its bound, a request that
 * would write is refused before anything is done, so what it would add does not pile up behind
 * it; reads go on (src/db/projection_bound.ts).
 */
function refuseWhileBehind(env: Environment, method: string): void {
  if (method === "GET" || method === "HEAD" || method === "OPTIONS") return;
  const behind = env.projectionBehind();
  if (behind === null) return;
  throw new ApiError(
    "projections_behind",
    `the query side is ${behind.changes} change${behind.changes === 1 ? "" : "s"} behind ` +
      `(${behind.projection}); nothing was done: send the request again shortly`,
    {},
    { "Retry-After": String(PROJECTION_BEHIND_RETRY_S) },
  );
}

/**
 * The public tracking links' paths, whatever follows: courier 2.11 `GET /s/{token}`, business 2.4
 * and 4.1 `GET /trip-track/{reference or token}`, and 2.4's reference links `/track/<reference>`.
 */
const TRACKING_PATH = /^\/api\/(s|trip-track|track)(\/|$)/;

function renderError(
  c: Context,
  err: Error,
  refuse: (c: Context, e: ApiError) => Response | Promise<Response>,
  env: Environment,
): Response | Promise<Response> {
  const answer = asApiError(err);
  if (err instanceof PartitionUnavailable) {
    // The caller is told the partition; the log names the actor, for whoever runs the cluster.
    const requestId = (c as Context<AppEnv>).get("requestId");
    env.log.warn(
      { actor: err.actor, partition: err.partition, request_id: requestId },
      err.message,
    );
  }
  if (answer) return refuse(c, answer);
  if (err instanceof HTTPException && err.status < 500) {
    // Hono's own refusals: malformed JSON and the like.
    return refuse(
      c,
      new ApiError("validation_failed", `invalid request: ${err.message}`, {
        errors: [{ path: "body", message: err.message }],
      }),
    );
  }
  const requestId = (c as Context<AppEnv>).get("requestId") ?? "unknown";
  env.log.error({ err, request_id: requestId }, "request failed");
  // STYLE 4: never a stack trace to the client.
  return errorResponse(
    c,
    new ApiError("internal_error", `internal error; request id: ${requestId}`, {
      request_id: requestId,
    }),
  );
}

export function errorResponse(c: Context, e: ApiError): Response {
  for (const [k, v] of Object.entries(e.headers)) c.header(k, v);
  // CONTRACT "Errors": tracking endpoints answer `{success: false, error, message}`, whoever
  // refuses (the route, its guards, its request check).
  const field = (c as Context<AppEnv>).get("errorField") ?? "code";
  // The request's log line names the code (request_log.ts).
  (c as Context<AppEnv>).set("refusal", e.code);
  return c.json(
    envelope(c, { success: false, [field]: e.code, message: e.message, ...e.extra }),
    e.status as 400,
  );
}

/**
 * A success whose `top` fields are answered at the top level beside `data` as well, where the
 * spec writes the answer so (RouteSpec.beside).
 */
export function okBeside<T>(c: Context, data: T, top: Record<string, unknown>): Response {
  return c.json(envelope(c, { success: true, ...top, data }), 200);
}

/** The success envelope `{success: true, data}`, with `meta` for a page of a list. */
export function ok<T>(
  c: Context,
  data: T,
  status: 200 | 201 | 202 = 200,
  meta?: Record<string, unknown>,
): Response {
  return c.json(envelope(c, { success: true, data, ...(meta ? { meta } : {}) }), status);
}

/**
 * Business API 2.2: "Sandbox responses also carry `environment: sandbox`": every envelope the
 * sandbox answers, success or error, has it at the top level (documents such as the OpenAPI file
 * are no envelopes and stay as they are).
 */
export function envelope<B extends Record<string, unknown>>(c: Context, body: B): B {
  // Every request's, /health's too (request_log.ts observeRequests).
  const sandbox = (c as Context<AppEnv>).get("environment") === "sandbox";
  return sandbox ? { ...body, environment: "sandbox" } : body;
}
