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
export type PartnerScope = typeof PARTNER_SCOPES[number];

export function isPartnerScope(value: string): value is PartnerScope {
  return (PARTNER_SCOPES as readonly string[]).includes(value);
}

/**
 * spec: business 5 (the scope table): exactly the endpoints each partner scope reaches, by method
 * and path (a parameter's name is the spec's; any name matches). A route built at one of these
 * is reached by the scope's partner keys as soon as it is declared behind business(); a partner
 * key reaches no other Business API endpoint (a courier network's keys reach the courier routes
 * their courier scopes name).
 */
export const PARTNER_SCOPE_ENDPOINTS: Readonly<Record<PartnerScope, readonly string[]>> = {
  deliveries: [
    "POST /business/book",
    "POST /business/bulky/quote",
    "GET /business/bulky/schema",
    "POST /business/checkouts",
    "GET /business/checkouts",
    "GET /business/checkouts/{reference}",
    "POST /business/checkouts/{reference}/cancel",
    "POST /business/trips/{trip}/bulky/accept-quote",
    "POST /business/trips/{trip}/bulky/authorise-disposal",
    "POST /business/trips/{trip}/bulky/redeliver",
    "POST /business/trips/{trip}/bulky/decline-quote",
    "POST /business/trip/{reference}/ready",
    "GET /business/trips",
    "GET /business/trips/active",
    "GET /business/trips/{trip}",
    "POST /business/trips/{trip}/cancel",
    "POST /business/trips/{trip}/tracking-link/rotate",
    "POST /business/trips/{trip}/tracking-link/revoke",
    "GET /business/trips/{trip}/label",
    // spec: business 5.5 deliveries allows "proof of delivery"; its row names no path for it.
    "GET /business/trips/{trip}/proof/{file}",
    "GET /business/trips/{trip}/waybill",
    "GET /business/trips/{trip}/receipt",
    "GET /business/trips/{trip}/pick-list",
    "GET /business/trips/{trip}/packing-slip",
    "GET /business/trip/fare-estimate",
    "GET /business/vehicle-types",
    "GET /business/parcel-sizes",
    "GET /business/zones",
    "POST /business/geocode",
    // spec: shopping 5: "or a scoped partner key": a shopping order is a delivery booked, read
    // and decided on by the merchant platform; its settings and secret stay the business's.
    "POST /business/shopping-orders",
    "GET /business/shopping-orders/{reference}",
    "POST /business/shopping-orders/{reference}/items/{external_item_id}/decision",
  ],
  rewards: [
    "POST /business/coupons/validate",
    "POST /business/coupons/redeem",
    "POST /business/coupons/reverse",
    "POST /business/gift-cards/balance",
  ],
};

/**
 * `GET /business/trips/{}`: an endpoint with its parameters unnamed, from a spec path
 * (`{trip}`) or a router's (`:id`, `:id{[0-9]+}`), without the base address's `/api`.
 */
export function endpointKey(method: string, path: string): string {
  const bare = path.replace(/^\/api(?=\/)/, "").replace(/\{[^/]*\}|:[^/]+/g, "{}");
  return `${method.toUpperCase()} ${bare}`;
}

const PARTNER_SCOPE_BY_ENDPOINT: ReadonlyMap<string, PartnerScope> = new Map(
  PARTNER_SCOPES.flatMap((scope) =>
    PARTNER_SCOPE_ENDPOINTS[scope].map((e) => {
      const [method, path] = e.split(" ");
      return [endpointKey(method!, path!), scope] as const;
    })
  ),
);

/** The partner scope that reaches an endpoint (Business API 5's table), if one does. */
export function partnerScopeOf(method: string, path: string): PartnerScope | undefined {
  return PARTNER_SCOPE_BY_ENDPOINT.get(endpointKey(method, path));
}

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
