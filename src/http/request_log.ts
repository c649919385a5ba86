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

/** The caller's `X-Request-Id` when it is safe to keep and echo; a fresh one otherwise. */
export function requestIdOf(header: string | undefined): string {
  return header !== undefined && SAFE_REQUEST_ID.test(header) ? header : crypto.randomUUID();
}

/** The first thing every request passes (createApp), outside `/api` too. */
export function observeRequests(
  env: Pick<Environment, "name" | "log" | "metrics">,
): MiddlewareHandler {
  const { name, log, metrics } = env;
  return async (c, next) => {
    const started = performance.now();
    const requestId = requestIdOf(c.req.header("X-Request-Id"));
    // Read from the context, never from `c.res`: touching it before the handler answers makes
    // Hono build a response, then copy it into the handler's (two more a request).
    (c as Context<AppEnv>).set("requestId", requestId);
    (c as Context<AppEnv>).set("environment", name);
    // Business API 8 and 9: on every answer. Set before the handler, Hono builds the answer with
    // them (routes answer through the context: c.json, c.body). Set on the answer afterwards, they
    // cost a request over HTTP more than its log line and metrics: reading a Response's headers
    // makes Deno drop the answer it had prepared natively and send it the slow way.
    c.header("X-Request-Id", requestId);
    c.header("X-Service-Environment", name);
    metrics.requestsUnderWay++;
    try {
      await next();
    } finally {
      metrics.requestsUnderWay--;
    }
    const status = c.res.status;
    // A WebSocket's upgrade is the one answer Deno makes, not the context (a board's socket).
    if (status === 101) upgradeHeaders(c as Context<AppEnv>, requestId, name);
    const seconds = (performance.now() - started) / 1000;
    const route = routeOf(c);
    metrics.observeRequest(c.req.method, route, status, seconds);
    logRequest(log, c as Context<AppEnv>, { requestId, route, status, seconds });
  };
}

function logRequest(
  log: Environment["log"],
  c: Context<AppEnv>,
  r: { requestId: string; route: string; status: number; seconds: number },
): void {
  const refusal = c.get("refusal");
  if (log.isLevelEnabled("info")) {
    const principal = c.get("principal");
    requestLine(log, {
      request_id: r.requestId,
      method: c.req.method,
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
 * Business API 8 and 9 on a WebSocket's upgrade, which Deno made without the headers set before
 * it: the request id, environment and rate headers (guards.ts counted).
 */
function upgradeHeaders(c: Context<AppEnv>, requestId: string, environment: string): void {
  const headers = c.res.headers;
  headers.set("X-Request-Id", requestId);
  headers.set("X-Service-Environment", environment);
  const rate = c.get("rateHeaders");
  if (rate) {
    headers.set("X-RateLimit-Remaining", rate[0]);
    headers.set("X-RateLimit-Reset", rate[1]);
  }
}
