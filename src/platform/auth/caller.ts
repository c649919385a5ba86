/**
 * What a business route's handler needs of its request, in one call: the environment (the deps
 * its flows take), who is calling, the tenant every ask and query names, and how the audit trail
 * names the caller. Instead of the same few lines at the top of every handler
 * (`c.get("env")`, `businessPrincipalOf(c)`, `.business.id`, `principalName(p)`).
 */
import type { Context } from "hono";
import type { AppEnv, Environment } from "../../http/context.ts";
import { ApiError } from "../../http/errors.ts";
import { type BusinessPrincipal, principalName, type StaffPrincipal } from "../identity.ts";
import { businessPrincipalOf } from "./principal.ts";

export interface BusinessCall<P extends BusinessPrincipal = BusinessPrincipal> {
  readonly env: Environment;
  readonly principal: P;
  /** The caller's business: the tenant of every actor and row the route may reach. */
  readonly tenant: string;
  /** The caller as the audit trail names it (`api_key`, `staff:<id>`, ...). */
  readonly by: string;
}

/** The call of a route behind a business credential guard (business(), driver, client()). */
export function businessCall(c: Context<AppEnv>): BusinessCall {
  return callOf(c, businessPrincipalOf(c));
}

/**
 * The call of a route for a person signed in (behind signedInAdmin): anything else is refused
 * signed_in_admin_only (Business API 5.6).
 */
export function staffCall(c: Context<AppEnv>): BusinessCall<StaffPrincipal> {
  const p = businessPrincipalOf(c);
  if (p.kind !== "staff") throw new ApiError("signed_in_admin_only", "a person must be signed in");
  return callOf(c, p);
}

function callOf<P extends BusinessPrincipal>(c: Context<AppEnv>, p: P): BusinessCall<P> {
  return { env: c.get("env"), principal: p, tenant: p.business.id, by: principalName(p) };
}
