/** Scopes and who gets which (courier spec 5; Business API 5.5). */

export const COURIER_SCOPES = [
  "shipments:create",
  "shipments:view-own",
  "customs:submit-documents",
  "customs:approve",
  "runs:operate",
  "runs:override",
  "claims:approve",
  "billing:view-own",
  "billing:administer",
] as const;

/** Business API 5.5: what a partner key may be given besides courier scopes. */
export const PARTNER_SCOPES = ["deliveries", "rewards"] as const;

export const ALL_SCOPES = [...COURIER_SCOPES, ...PARTNER_SCOPES] as const;
export type Scope = typeof ALL_SCOPES[number];

export function isScope(value: string): value is Scope {
  return (ALL_SCOPES as readonly string[]).includes(value);
}

/**
 * spec: courier 5 rule 1: the courier's own key with no stored scopes; and Business API 5.6: the
 * integration key "books, tracks, cancels, reads", which is what a partner key's `deliveries`
 * scope allows (5's table), so the key holds it (and a coordinator, who books and runs operations).
 */
export const BUSINESS_KEY_DEFAULT_SCOPES: readonly Scope[] = [
  "shipments:create",
  "shipments:view-own",
  "customs:submit-documents",
  "runs:operate",
  "deliveries",
];

/** spec: courier 5 rule 2: coordinators create, view, submit documents and operate. */
export const COORDINATOR_SCOPES: readonly Scope[] = BUSINESS_KEY_DEFAULT_SCOPES;

/** spec: courier 5 rule 2: admins (and the owner) have every scope. */
export const ADMIN_SCOPES: readonly Scope[] = ALL_SCOPES;

/** spec: courier 5 rule 4: own shipments, own documents, own billing; never operations. */
export const CLIENT_SCOPES: readonly Scope[] = [
  "shipments:create",
  "shipments:view-own",
  "billing:view-own",
];

export const PORTAL_ROLES = ["owner", "admin", "coordinator"] as const;
export type PortalRole = typeof PORTAL_ROLES[number];

export function staffScopes(role: PortalRole): readonly Scope[] {
  return role === "coordinator" ? COORDINATOR_SCOPES : ADMIN_SCOPES;
}

/**
 * spec: courier 5 rule 1: "more is granted on request by the operator": the scopes the operator
 * stored on the business key are added to the defaults.
 */
export function businessKeyScopes(stored: readonly Scope[]): readonly Scope[] {
  return withImplied([...BUSINESS_KEY_DEFAULT_SCOPES, ...stored]);
}

/**
 * Stored scopes with those they imply: who administers billing (records payments, invoices,
 * issues notes: courier 5) reads the billing it administers (billing:view-own), as every other
 * caller that administers it (admins, the owner) already does.
 */
export function withImplied(scopes: readonly Scope[]): readonly Scope[] {
  const all = new Set(scopes);
  if (all.has("billing:administer")) all.add("billing:view-own");
  return [...all];
}
