/**
 * What the request gate (app.ts), which runs before any route, may know of the route a request
 * reached: whether define() declared it, and its own JSON body cap. define() marks the handler it
 * registers; the gate finds it among the request's matched routes.
 */
import type { Context } from "hono";
import { matchedRoutes } from "hono/route";
import { findTargetHandler } from "hono/utils/handler";
import { REQUEST_BODY_BYTES_MAX } from "../limits.ts";

/** What define() tells the gate of a route. */
export interface RouteMark {
  /** The route's JSON body cap (RouteSpec.bodyBytesMax), else REQUEST_BODY_BYTES_MAX. */
  readonly bodyBytesMax: number;
}

const MARKS = new WeakMap<object, RouteMark>();

/** define() marks the handler that runs after the route's guards. */
export function markRoute<H extends object>(handler: H, mark: RouteMark): H {
  MARKS.set(handler, mark);
  return handler;
}

/** The mark of the define()d route the request reached; null: none (a page, no route at all). */
export function routeMarkOf(c: Context): RouteMark | null {
  for (const r of matchedRoutes(c)) {
    // A router mounted with its own error handler wraps each handler (Hono's app.route).
    const mark = MARKS.get(findTargetHandler(r.handler));
    if (mark) return mark;
  }
  return null;
}

/** The JSON body cap of the route the request reached. */
export function bodyCapOf(c: Context): number {
  return routeMarkOf(c)?.bodyBytesMax ?? REQUEST_BODY_BYTES_MAX;
}
