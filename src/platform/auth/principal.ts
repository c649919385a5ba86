/**
 * Who is calling (courier spec 5; Business API 5): authority comes only from the credential and
 * the scopes stored for it, never from the path or the body. The guards (auth.ts, and each
 * feature's own) set the principal; routes read it here. Its shape and names are identity.ts's
 * (pure, for flows too), answered here as well for the routes.
 */
import type { Context } from "hono";
import type { Scope } from "../rules/scopes.ts";
import { ApiError } from "../../http/errors.ts";
import type { AppEnv } from "../../http/context.ts";
import type { BusinessPrincipal, Principal } from "../identity.ts";

export {
  type BusinessPrincipal,
  type ClientUserIdentity,
  PARTNER_KEY_PREFIX,
  type Principal,
  principalName,
  principalRole,
  STAFF_TOKEN_PREFIX,
} from "../identity.ts";

export function principalOf(c: Context<AppEnv>): Principal {
  // Only the guards set it, each with a kind of this union.
  const p = c.get("principal") as Principal | undefined;
  if (!p) throw new ApiError("unauthenticated", "no credential was checked for this route");
  return p;
}

export function businessPrincipalOf(c: Context<AppEnv>): BusinessPrincipal {
  const p = principalOf(c);
  if (p.kind === "operator") throw new ApiError("forbidden", "operator token on a business route");
  return p;
}

export function requireScope(p: BusinessPrincipal, scope: Scope | undefined): void {
  if (scope === undefined) {
    if (p.kind === "partner") {
      throw new ApiError(
        "scope_denied",
        "partner keys reach only endpoints that need a named scope; this one names none",
      );
    }
    return;
  }
  if (!p.scopes.includes(scope)) {
    throw new ApiError("scope_denied", `missing scope: ${scope}`, { scope });
  }
}

/** What a guard found: the caller of this request, as the routes behind it read it. */
export function setPrincipal(c: Context<AppEnv>, p: Principal): void {
  c.set("principal", p);
}
