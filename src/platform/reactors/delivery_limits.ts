/**
 * The delivery engine's bounds (reactors/deliver.ts), each with its reason. The engine takes them
 * as options, so a test can use small ones; these are the production values.
 */
/** Due events remembered between pumps; past this a hint is dropped (its lease re-fires it). */
export const DUE_SET_MAX = 10_000;
/**
 * Due events of one tenant remembered between pumps (issue 42 item 4): a tenant whose dead
 * endpoint has 10,000 pending events holds a fifth of the set, so other tenants' hints still fit
 * (and a full set drops a hint of the tenant holding most first). Above what one recipient may be
 * sent in a lease (RECIPIENT_ATTEMPTS_PER_SECOND_MAX over ATTEMPT_LEASE_MS: 1,200), so a backlog
 * whose other hints wait for their lease never leaves the set empty before they come back.
 */
export const TENANT_DUE_SET_MAX = 2_000;
/**
 * Attempts under way at once across every pump of the engine (pumps overlap: one starts each
 * TIMER_POLL_MS), each a socket and a body of up to OUTBOUND_BODY_BYTES_MAX: some 15 MB at most.
 */
export const INFLIGHT_ATTEMPTS_MAX = 32;
/**
 * Attempts under way at once for one tenant: a quarter of the engine, so a tenant whose endpoint
 * answers slowly holds at most this many sockets and the other slots stay free for other tenants.
 */
export const TENANT_INFLIGHT_ATTEMPTS_MAX = 8;
/**
 * Backlog attempts (retries, events that waited for an endpoint, requeues) started per second for
 * one recipient of one tenant (the courier's endpoint, a client's webhook, the business's
 * webhook), issue 42 item 4: an endpoint set hours into a wait gets the backlog that
 * ENDPOINT_SET_EVENTS_MAX makes due at once (10,000) over some eight minutes, not as a burst that
 * trips the receiver's own rate limit. A try that finds no endpoint counts too (a lookup and a
 * write). An event's first attempt is not counted: live traffic to a healthy endpoint goes as fast
 * as it answers (the in-flight caps bound it). Events with a fixed target are not bound by it:
 * their retries are spread by their own schedules.
 */
export const RECIPIENT_ATTEMPTS_PER_SECOND_MAX = 20;

/** The bounds one engine runs with. */
export interface DeliveryLimits {
  readonly dueSetMax: number;
  readonly tenantDueSetMax: number;
  readonly inflightMax: number;
  readonly tenantInflightMax: number;
  readonly recipientAttemptsPerSecondMax: number;
}

export const DELIVERY_LIMITS: DeliveryLimits = {
  dueSetMax: DUE_SET_MAX,
  tenantDueSetMax: TENANT_DUE_SET_MAX,
  inflightMax: INFLIGHT_ATTEMPTS_MAX,
  tenantInflightMax: TENANT_INFLIGHT_ATTEMPTS_MAX,
  recipientAttemptsPerSecondMax: RECIPIENT_ATTEMPTS_PER_SECOND_MAX,
};

/** The production bounds with `given` in their place; each at least 1. */
export function deliveryLimits(given: Partial<DeliveryLimits> = {}): DeliveryLimits {
  const limits = { ...DELIVERY_LIMITS, ...given };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isInteger(value) || value < 1) {
      throw new Error(`delivery limit ${name} must be a whole number of at least 1: ${value}`);
    }
  }
  return limits;
}
