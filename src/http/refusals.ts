/**
 * What a route can refuse (courier 7), for the OpenAPI document: each machine-readable `code`
 * with when it is answered. Guards (auth.ts) carry theirs, so every route behind a guard lists
 * them without repeating them; define() adds them to the route's own.
 */
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./context.ts";

/** Code to condition: `{prices_expired: "the held prices expired; ask for prices again"}`. */
export type Refusals = Readonly<Record<string, string>>;

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
