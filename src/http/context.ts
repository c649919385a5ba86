/** The Hono context variables every route can read. */
import type { Context } from "hono";
import type { Deps, Reactor } from "../environment.ts";
import type { SignInCounter } from "./login_throttle.ts";
import type { ProjectionBehind } from "../db/projection_bound.ts";
import type { PlanCounter, RateLimiter } from "./rate_limit.ts";

/** An environment as its HTTP app sees it: the machinery, and what answering requests needs. */
export interface Environment extends Deps {
  /** SHA-256 hex of the operator token. */
  readonly operatorTokenHash: string;
  /** `PUBLIC_URL` (or `SANDBOX_PUBLIC_URL`): the base of links handed out; request's own if unset. */
  readonly publicUrl?: string;
  /** This instance's own counts in memory: the counters below on one instance. */
  readonly rateLimiter: RateLimiter;
  /**
   * Known callers' counts against their plan (Business API 8): `rateLimiter` on one instance, the
   * shared query side when several may serve the deployment (shared_rate_limit.ts).
   */
  readonly planCounter: PlanCounter;
  /**
   * Addresses' counts, calling without a known credential (guards.ts): in memory on one
   * instance, in the shared query side as `planCounter` is.
   */
  readonly addressCounter: PlanCounter;
  /**
   * Failed sign-ins per account and per address (courier 5, Business API 5): in memory on one
   * instance, in the shared query side as `planCounter` is (shared_login_throttle.ts).
   */
  readonly loginThrottle: SignInCounter;
  /** The features' bus subscribers by name (FeatureParts.reactors). */
  readonly reactors: Readonly<Record<string, Reactor>>;
  /**
   * The projection past its lag's bound, or null (src/db/projection_bound.ts): while one is,
   * requests that would write are refused (app.ts).
   */
  projectionBehind(): ProjectionBehind | null;
  /** Runs the features' pumps once: outbound attempts now due (after the manual clock moved). */
  pump(): Promise<void>;
}

export interface AppEnv {
  Variables: {
    env: Environment;
    requestId: string;
    /**
     * Who is calling, as the route's guard found it; its kinds are the features' own (the
     * platform's principal.ts reads it typed).
     */
    principal: { readonly kind: string; readonly business?: { readonly id: string } } | undefined;
    /**
     * Where an error answer names its code: `error` on the tracking endpoints (CONTRACT
     * "Errors"), set by define() for a route with RouteSpec.errorField; otherwise `code`.
     */
    errorField: "error" | undefined;
    /** The code of the refusal answered, for the request's log line (app.ts errorResponse). */
    refusal: string | undefined;
    /** The environment's name, for the envelope and the answer's header (request_log.ts). */
    environment: string;
    /** Live's `X-Service-Test: true`, left by the gate for the route to refuse (test_flag.ts). */
    testFlagged: true | undefined;
    /** X-RateLimit-Remaining and -Reset of the request counted (guards.ts), for its answer. */
    rateHeaders: readonly [remaining: string, reset: string] | undefined;
  };
}

/**
 * Where the world reaches this environment, without `/api`: the `PUBLIC_URL` setting, or, when it
 * is unset (a developer's machine, tests), the address the request came in on.
 */
export function publicBaseUrl(c: Context<AppEnv>): string {
  return c.var.env.publicUrl ?? new URL(c.req.url).origin;
}
