/**
 * What every request leaves behind: its `X-Request-Id` (the caller's, when it is a safe one),
 * one JSON log line (id, method, route pattern, status, duration, tenant, credential kind: never
 * a key, a token, a secret or a body), a line for a refusal with its code, and its count and
 * latency in the environment's metrics. The route pattern: the handler that answered, else the
 * first route the path and method matched (a guard on a prefix refused before it).
 */
import type { Context, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import type { AppEnv, Environment } from "./context.ts";
import { requestLine } from "../observe/log.ts";

/** A request id the caller may choose: short, and nothing a log reader could be fooled by. */
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The methods a request's line and its metrics name as they are. A request line's method is any
 * token the caller writes (Deno serves them all): as a label each would be a new series, so a
 * caller could grow the scrape and the memory behind it without end (issue: metrics labels
 * bounded, never the caller's text).
 */
const KNOWN_METHODS: ReadonlySet<string> = new Set([
  "GET",
  "HEAD",
  "POST",
  "PUT",
  "PATCH",
  "DELETE",
  "OPTIONS",
]);

/** The request's method for its line and metrics: a known one, else `OTHER`. */
export function methodLabel(method: string): string {
  return KNOWN_METHODS.has(method) ? method : "OTHER";
}

/** The caller's `X-Request-Id` when it is safe to keep and echo; a fresh one otherwise. */
export function requestIdOf(header: string | undefined): string {
  return header !== undefined && SAFE_REQUEST_ID.test(header) ? header : crypto.randomUUID();
}

/** The first thing every request passes (createApp), outside `/api` too. */
export function observeRequests(
  env: Pick<Environment, "name" | "log" | "metrics">,
): MiddlewareHandler {
  return async (c, next) => {
    const started = performance.now();
    const requestId = requestIdOf(c.req.header("X-Request-Id"));
    // Read from the context, never from `c.res`: touching it before the handler answers makes
    // Hono build a response, then copy it into the handler's (two more a request).
    (c as Context<AppEnv>).set("requestId", requestId);
    (c as Context<AppEnv>).set("environment", env.name);
    env.metrics.requestsUnderWay++;
    try {
      await next();
    } finally {
      env.metrics.requestsUnderWay--;
    }
    answerHeaders(c as Context<AppEnv>, requestId, env.name);
    const seconds = (performance.now() - started) / 1000;
    const route = routeOf(c);
    const status = c.res.status;
    const method = methodLabel(c.req.method);
    env.metrics.observeRequest(method, route, status, seconds);
    logRequest(env, c as Context<AppEnv>, { requestId, method, route, status, seconds });
  };
}

/** The route a request turned away while the service stops is counted under: none was looked up. */
export const STOPPING_ROUTE = "stopping";

/**
 * A request turned away while the service stops (draining.ts, answered before the app): counted
 * and given its line as any other, and a warning, so a stop that turned callers away is seen.
 */
export function observeStopping(
  env: Pick<Environment, "log" | "metrics">,
  request: Request,
  requestId: string,
): void {
  const method = methodLabel(request.method);
  env.metrics.observeRequest(method, STOPPING_ROUTE, 503, 0);
  requestLine(env.log, {
    request_id: requestId,
    method,
    route: STOPPING_ROUTE,
    status: 503,
    duration_ms: 0,
    tenant_id: null,
    credential: null,
  });
  env.log.warn(
    { event: "service_stopping", request_id: requestId, code: "service_stopping" },
    "turned away: the service is stopping",
  );
}

function logRequest(
  env: Pick<Environment, "log">,
  c: Context<AppEnv>,
  r: { requestId: string; method: string; route: string; status: number; seconds: number },
): void {
  const { log } = env;
  const refusal = c.get("refusal");
  if (log.isLevelEnabled("info")) {
    const principal = c.get("principal");
    requestLine(log, {
      request_id: r.requestId,
      method: r.method,
      route: r.route,
      status: r.status,
      duration_ms: Math.round(r.seconds * 100_000) / 100,
      tenant_id: principal?.business?.id ?? null,
      credential: principal?.kind ?? null,
    });
    if (refusal && r.status < 500 && r.status !== 429) {
      log.info(
        { event: "refused", request_id: r.requestId, status: r.status, code: refusal },
        "refused",
      );
    }
  }
  if (r.status === 429) {
    log.warn(
      { event: "rate_limited", request_id: r.requestId, code: refusal ?? null },
      "rate limited",
    );
  }
}

/**
 * The route pattern that answered (Hono's matched path, `/api/business/shipments/:reference`),
 * never the URL: bounded in number, and free of ids and tokens. A request no route matched is
 * `unmatched`.
 */
function routeOf(c: Context): string {
  const routes = matchedRoutes(c);
  const here = routes[c.req.routeIndex];
  if (here && here.method !== "ALL") return here.path;
  // Refused by a middleware before its route (a guard on a prefix): the route it stood before.
  return routes.find((r) => r.method !== "ALL")?.path ?? "unmatched";
}

/**
 * Business API 8 and 9: the request id, environment and rate headers on every answer, set once on
 * the answer itself, whoever made it (a route's own Response for a file, CSV or PDF, a refusal, a
 * page). Set before it existed, Hono would keep them aside and drop them for a Response a route
 * made itself; and over HTTP a request cost some 3 µs more, in a Headers object built for them
 * and copied into the answer, than setting them here does (bench/observability.ts).
 */
function answerHeaders(c: Context<AppEnv>, requestId: string, environment: string): void {
  const headers = c.res.headers;
  headers.set("X-Request-Id", requestId);
  headers.set("X-Service-Environment", environment);
  const rate = c.get("rateHeaders");
  if (rate) {
    headers.set("X-RateLimit-Remaining", rate[0]);
    headers.set("X-RateLimit-Reset", rate[1]);
  }
}
