/**
 * spec: business 7, 9.3: live refuses `X-Service-Test: true` before anything is done (nothing
 * booked or charged); the sandbox ignores it. A route declared with define() refuses it after
 * its guards, so the caller is known and its request line names the tenant and credential, and
 * a missing or wrong credential is answered as on any other request; any other route (a page, a
 * socket, a path no route serves) refuses it at the request gate (app.ts).
 */
import type { Context } from "hono";
import type { AppEnv } from "./context.ts";
import { ApiError } from "./errors.ts";
import { routeMarkOf } from "./route_marks.ts";

/** The header `X-Service-Test: true` (header values are read case-insensitively). */
function isTestFlag(value: string | undefined): boolean {
  return value?.trim().toLowerCase() === "true";
}

function testModeMoved(): ApiError {
  return new ApiError(
    "test_mode_moved_to_sandbox",
    "X-Service-Test: true is refused on live: send test requests to the sandbox",
  );
}

/**
 * The request gate's part: refused now, unless the route's handler refuses it after its guards,
 * told so by `testFlagged`.
 */
export function gateTestFlag(c: Context<AppEnv>, environment: string): void {
  if (environment !== "live" || !isTestFlag(c.req.header("X-Service-Test"))) return;
  if (routeMarkOf(c) === null) throw testModeMoved();
  c.set("testFlagged", true);
}

/** define()'s part, after the route's guards and before its request is read. */
export function refuseTestFlag(c: Context<AppEnv>): void {
  if (c.get("testFlagged")) throw testModeMoved();
}
