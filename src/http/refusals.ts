/**
 * What a route can refuse (courier 7), for the OpenAPI document: each machine-readable `code`
 * with when it is answered. Guards (auth.ts) carry theirs, so every route behind a guard lists
 * them without repeating them; define() adds them to the route's own.
 */
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./context.ts";

/** Code to condition: `{prices_expired: "the held prices expired; ask for prices again"}`. */
export type Refusals = Readonly<Record<string, string>>;

/** spec: courier 1.2: a courier whose platform the operator has not enabled. */
export const PLATFORM_DISABLED: Refusals = {
  courier_platform_disabled: "the courier platform is not enabled for the courier",
};

/** A body past the endpoint's cap (define adds it to routes with a body or an upload). */
export const BODY_TOO_LARGE: Refusals = {
  payload_too_large: "the request body is larger than this endpoint takes",
};

/**
 * spec: business 7, 9.3: on live `X-Service-Test: true` is refused before anything is done
 * (test_flag.ts: after the route's guards); define adds it to every route, as every route can
 * meet it.
 */
export const TEST_FLAG_REFUSED: Refusals = {
  test_mode_moved_to_sandbox: "live only: the request sent `X-Service-Test: true`; nothing is " +
    "done (the sandbox ignores the header)",
};

/**
 * What a request would store is more than the actor store keeps (src/runtime/too_large.ts): an
 * actor's state past its bound or one change past one commit; define adds it to every route that
 * may write (any method but GET).
 */
export const STORED_TOO_LARGE: Refusals = {
  too_large:
    "what the request would store is larger than the store keeps; the message names the limit",
};

/**
 * spec: business 4.3: a key or token rotated twice at once is rotated once; the rotation that
 * arrives second finds the credential it meant to replace gone.
 */
export const KEY_ALREADY_ROTATED: Refusals = {
  key_already_rotated: "another rotation of this credential, sent at the same time, won: its " +
    "new credential is the one that works",
};

/**
 * Issue 36 item 1: the query side is behind past its bound (app.ts); define adds it to every
 * route that may write, as STORED_TOO_LARGE.
 */
export const PROJECTIONS_BEHIND: Refusals = {
  projections_behind: "the query side is too far behind the writes; nothing was done: send " +
    "the request again after Retry-After",
};

const BY_GUARD = new WeakMap<MiddlewareHandler<AppEnv>, Refusals>();

/** Marks `guard` as answering `refusals`; define() refuses a guard not so marked. */
export function refusing(
  refusals: Refusals,
  guard: MiddlewareHandler<AppEnv>,
): MiddlewareHandler<AppEnv> {
  BY_GUARD.set(guard, refusals);
  return guard;
}

/** The refusals a guard answers; undefined for one that never said. */
export function guardRefusals(guard: MiddlewareHandler<AppEnv>): Refusals | undefined {
  return BY_GUARD.get(guard);
}

/** Joins refusal lists; a code two of them name keeps both conditions. */
export function mergeRefusals(...lists: readonly Refusals[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const list of lists) {
    for (const [code, when] of Object.entries(list)) {
      const had = out[code];
      out[code] = had === undefined || had === when || had.includes(when)
        ? had ?? when
        : `${had}; ${when}`;
    }
  }
  return out;
}

/** A refusal a route answered that its OpenAPI entry does not list (strict mode, tests). */
export interface UndocumentedRefusal {
  readonly route: string;
  readonly code: string;
  readonly status: number;
}

const STRICT = new WeakMap<object, (u: UndocumentedRefusal) => void>();

/**
 * Strict mode (tests): every route defined on `router` after this call turns a 4xx refusal its
 * document does not list into 500 `undocumented_refusal`, and reports it (route.ts). Off, define
 * adds nothing to a route: production pays nothing for the check.
 */
export function checkRefusals(router: object, report: (u: UndocumentedRefusal) => void): void {
  STRICT.set(router, report);
}

export function strictReport(router: object): ((u: UndocumentedRefusal) => void) | undefined {
  return STRICT.get(router);
}
