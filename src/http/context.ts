/** The Hono context variables every route can read. */
import type { Context } from "hono";
import type { Environment } from "../environment.ts";
import type { Principal } from "../platform/auth/auth.ts";

export interface AppEnv {
  Variables: {
    env: Environment;
    requestId: string;
    principal: Principal | undefined;
    /**
     * Where an error answer names its code: `error` on the tracking endpoints (CONTRACT
     * "Errors"), set by define() for a route with RouteSpec.errorField; otherwise `code`.
     */
    errorField: "error" | undefined;
  };
}

/**
 * Where the world reaches this environment, without `/api`: the `PUBLIC_URL` setting, or, when it
 * is unset (a developer's machine, tests), the address the request came in on.
 */
export function publicBaseUrl(c: Context<AppEnv>): string {
  return c.var.env.publicUrl ?? new URL(c.req.url).origin;
}
