/**
 * Who is calling, as the platform's credentials find them (courier spec 5; Business API 5): the
 * principal's shape and how the audit trail and the profile name it. Pure: the guards
 * (auth/auth.ts, and each feature's own) set it on the request, flows take it as their caller.
 */
import type { BusinessAccess } from "../../actors/platform/business/mod.ts";
import type { PortalRole, Scope } from "./rules/scopes.ts";

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
    /** The hash of the key sent: a rotation through it replaces this key only (business 4.3). */
    readonly key_hash: string;
    /** The webhook secret's key id when the request arrived: what a rotation replaces (5.6). */
    readonly webhook_key_id: string;
  }
  | {
    readonly kind: "staff";
    readonly business: BusinessAccess;
    readonly staff_id: string;
    readonly role: PortalRole;
    readonly scopes: readonly Scope[];
    /** The epoch the session was checked under (a password change since signed it out). */
    readonly session_epoch: number;
    /** The hash of the session's token: the session a password change it makes keeps (4.3). */
    readonly session_hash: string;
    /**
     * The integration key's hash when the request arrived: a rotation the person sends replaces
     * that key only, so two sent at once are one (business 4.3).
     */
    readonly api_key_hash: string;
    /** The webhook secret's key id when the request arrived: what a rotation replaces (5.6). */
    readonly webhook_key_id: string;
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
    /**
     * The hash of the client's API key as the request found it: the key sent, or for a person
     * signed in the key held when it arrived; a rotation it sends replaces that key only.
     */
    readonly key_hash: string;
    readonly scopes: readonly Scope[];
  }
  | {
    readonly kind: "driver";
    readonly business: BusinessAccess;
    readonly driver_id: string;
    readonly scopes: readonly Scope[];
  };

/** A caller of a business's routes: anyone but the operator. */
export type BusinessPrincipal = Exclude<Principal, { kind: "operator" }>;

/** Staff sign-in tokens; never accepted by the sandbox (Business API 5.2). */
export const STAFF_TOKEN_PREFIX = "st_";

/** Partner keys before they said their environment; such keys keep working where issued. */
export const PARTNER_KEY_PREFIX = "ak_";

/**
 * A partner key says its environment, as business keys and driver tokens do (Business API 5.2),
 * so live can answer a sandbox one with sandbox_key_on_live.
 */
export function partnerKeyPrefix(env: "live" | "sandbox"): string {
  return `${PARTNER_KEY_PREFIX}${env}_`;
}

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

/** A portal person signed in (Business API 5.6): what people and password flows act as. */
export type StaffPrincipal = Extract<Principal, { kind: "staff" }>;
