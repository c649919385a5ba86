/**
 * Who is calling (courier spec 5; Business API 5): authority comes only from the credential and
 * the scopes stored for it, never from the path or the body. The guards (auth.ts, and each
 * feature's own) set the principal; routes read it here.
 */
import type { Context } from "hono";
import type { BusinessAccess } from "../../../actors/platform/business.ts";
import type { PortalRole, Scope } from "../rules/scopes.ts";
import { ApiError } from "../../http/errors.ts";
import type { AppEnv } from "../../http/context.ts";

/** A person signed in for a courier's client (courier 4.6), as the client's actor answers. */
export interface ClientUserIdentity {
  readonly id: string;
  readonly email: string;
  readonly name: string;
  readonly role: "client_admin" | "client_user";
  /** A password that was sent to the client must be changed before anything else (courier 5). */
  readonly must_change_password: boolean;
  readonly session_epoch: number;
  readonly created_at?: number;
}

export type Principal =
  | { readonly kind: "operator" }
  | {
    readonly kind: "business_key";
    readonly business: BusinessAccess;
    readonly scopes: readonly Scope[];
    readonly legacy: boolean;
  }
  | {
    readonly kind: "staff";
    readonly business: BusinessAccess;
    readonly staff_id: string;
    readonly role: PortalRole;
    readonly scopes: readonly Scope[];
  }
  | {
    readonly kind: "partner";
    readonly business: BusinessAccess;
    readonly partner_key_id: string;
    readonly partner: string;
    readonly scopes: readonly Scope[];
  }
  | {
    readonly kind: "client";
    readonly business: BusinessAccess;
    readonly client_id: string;
    /** The signed-in person, or null when the client's API key was used. */
    readonly user: ClientUserIdentity | null;
    readonly scopes: readonly Scope[];
  }
  | {
    readonly kind: "driver";
    readonly business: BusinessAccess;
    readonly driver_id: string;
    readonly scopes: readonly Scope[];
  };

export type BusinessPrincipal = Exclude<Principal, { kind: "operator" }>;

/** Staff sign-in tokens; never accepted by the sandbox (Business API 5.2). */
export const STAFF_TOKEN_PREFIX = "st_";

export const PARTNER_KEY_PREFIX = "ak_";

/** How the audit trail names the caller. */
export function principalName(p: Principal): string {
  switch (p.kind) {
    case "operator":
      return "operator";
    case "business_key":
      return "api_key";
    case "staff":
      return `staff:${p.staff_id}`;
    case "partner":
      return `partner_key:${p.partner_key_id}`;
    case "driver":
      return `driver:${p.driver_id}`;
    case "client":
      return p.user ? `client_user:${p.user.id}` : `client:${p.client_id}`;
  }
}

/** GET /business/profile `principal`: owner, admin, coordinator or api_key (Business API 5.6). */
export function principalRole(p: BusinessPrincipal): string {
  return p.kind === "staff" ? p.role : p.kind === "business_key" ? "api_key" : p.kind;
}

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
