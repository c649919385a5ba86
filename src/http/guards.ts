/**
 * What every document's credentials share (Business API 8; RFC 9110 11.1): the bearer scheme,
 * the rate limit with its headers on every answer, and the per-address limit of calls that
 * name no known credential. The credentials themselves are the features' (platform/auth).
 */
import type { Context, MiddlewareHandler } from "hono";
import { getConnInfo } from "hono/deno";
import { ANONYMOUS_RATE_LIMIT } from "../limits.ts";
import { ApiError } from "./errors.ts";
import type { AppEnv } from "./context.ts";
import type { Limits, PlanCounter, RateDecision } from "./rate_limit.ts";
import { type Refusals, refusing } from "./refusals.ts";

/**
 * What every refusal that counted no caller can become (countUncounted): an unknown key or
 * operator token.
 */
export const ADDRESS_LIMITED = {
  rate_limited: "too many calls from this address without a known credential; wait `Retry-After` " +
    "seconds",
};

/** How a credential is refused (authenticateBusiness, client(), driver). */
export function credentialRefusals(header: string): Refusals {
  return {
    unauthenticated: `${header} is missing or unknown (live)`,
    live_key_on_sandbox: `on the sandbox: ${header} is anything but a valid sandbox credential`,
  };
}

/** A credential's calls count against its courier's plan (Business API 8); unknown, its address's. */
export const PLAN_LIMITED = {
  rate_limited: "the rate limit of the courier's plan is reached, or too many calls came from " +
    "this address without a known credential; wait `Retry-After` seconds",
};

/**
 * The token of an `Authorization: Bearer <token>` header, else "". The scheme is matched in any
 * case (RFC 9110 11.1: `bearer` and `BEARER` are the same scheme); the token as sent.
 */
export function bearerToken(header: string | undefined): string {
  const match = /^bearer +(.*)$/i.exec(header ?? "");
  return match ? match[1]!.trim() : "";
}

/** Routes anyone may call (sign-in, public links) are limited per address. */
export const anonymous: MiddlewareHandler<AppEnv> = refusing({
  rate_limited: "too many calls from this address; wait `Retry-After` seconds",
}, async (c, next) => {
  const taken = c.get("env").addressCounter.take(`ip:${remoteAddress(c)}`, ANONYMOUS_RATE_LIMIT);
  // In memory (one instance) the decision is at hand: no turn of the event loop for it.
  const d = taken instanceof Promise ? await taken : taken;
  const refusal = counted(c, d, ANONYMOUS_RATE_LIMIT);
  if (refusal) throw refusal;
  await next();
});

/**
 * Counts a known caller's request against its plan (Business API 8), across the instances that
 * share the deployment's counts, and sets X-RateLimit-* on whatever answer follows.
 */
export async function rateLimit(c: Context<AppEnv>, key: string, limits: Limits): Promise<void> {
  const taken = c.get("env").planCounter.take(key, limits);
  // In memory (one instance) the decision is at hand: no turn of the event loop for it.
  const refusal = counted(c, taken instanceof Promise ? await taken : taken, limits);
  if (refusal) throw refusal;
}

/** Sets the rate headers of a counted request, and answers its refusal once over the limit. */
function counted(c: Context, d: RateDecision, limits: Limits): ApiError | null {
  // Put on the answer, whichever it is, by observeRequests (request_log.ts).
  (c as Context<AppEnv>).set("rateHeaders", [String(d.remaining), String(d.reset)]);
  if (d.allowed) return null;
  return new ApiError(
    "rate_limited",
    `rate limit reached: ${limits.perMinute} a minute and ${limits.perDay} a day`,
    {},
    { "Retry-After": String(d.retryAfter) },
  );
}

/**
 * Business API 8: rate headers on every response. A refusal that counted no caller (an unknown
 * or missing key, an unknown endpoint) counts against the caller's address, as sign-in does: so
 * it carries the headers too, and guessing keys is throttled (past the limit, 429 instead).
 */
export function countUncounted(
  c: Context,
  counter: PlanCounter,
  refusal: ApiError,
): ApiError | Promise<ApiError> {
  if ((c as Context<AppEnv>).get("rateHeaders")) return refusal;
  // The operator, once its token is checked, is a known caller that no plan limits: its refused
  // calls (a bad body, an unknown business) are no guessing, and never throttle its address.
  if ((c.get("principal") as { kind?: string } | undefined)?.kind === "operator") return refusal;
  const taken = counter.take(`ip:${remoteAddress(c)}`, ANONYMOUS_RATE_LIMIT);
  if (taken instanceof Promise) {
    return taken.then((d) => counted(c, d, ANONYMOUS_RATE_LIMIT) ?? refusal);
  }
  return counted(c, taken, ANONYMOUS_RATE_LIMIT) ?? refusal;
}

/** The caller's address from the socket (never from a header a caller can write). */
export function remoteAddress(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? "unknown";
  } catch {
    return "local"; // in-process requests (tests) have no socket
  }
}
