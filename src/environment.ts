/**
 * One environment (live or sandbox): its actor store, bus, query database, clock and keys. Live and
 * sandbox are the same code with separate config (ARCHITECTURE "Environments").
 */
import type { Kysely } from "kysely";
import type { Bus } from "./bus/bus.ts";
import type { Database } from "./db/schema.ts";
import type { ActorRuntime } from "./runtime/runtime.ts";
import type { Clock } from "./runtime/clock.ts";
import type { RateLimiter } from "./http/rate_limit.ts";
import type { LoginThrottle } from "./http/login_throttle.ts";
import type { OutboundDelivery } from "./platform/reactors/deliver.ts";
import type { BillingEvents } from "./courier/reactors/billing_events.ts";
import type { ClientWebhooks } from "./courier/reactors/client_webhooks.ts";
import type { BookingCrossings } from "./courier/reactors/booking_crossings.ts";
import type { ScanCharges } from "./courier/reactors/scan_charges.ts";
import type { CustomsCharges } from "./courier/reactors/customs_charges.ts";

export type EnvironmentName = "live" | "sandbox";

export interface Environment {
  readonly name: EnvironmentName;
  readonly runtime: ActorRuntime;
  readonly clock: Clock;
  readonly bus: Bus;
  readonly db: Kysely<Database>;
  /** Seals webhook signing secrets at rest. */
  readonly dataKey: CryptoKey;
  /** SHA-256 hex of the operator token. */
  readonly operatorTokenHash: string;
  readonly allowLoopbackWebhooks: boolean;
  /** `PUBLIC_URL` (or `SANDBOX_PUBLIC_URL`): the base of links handed out; request's own if unset. */
  readonly publicUrl?: string;
  readonly rateLimiter: RateLimiter;
  /** Failed sign-ins per account and per address (courier 5, Business API 5). */
  readonly loginThrottle: LoginThrottle;
  /** Signed webhook deliveries (courier 6, Business API 6, shopping 6). */
  readonly outbound: OutboundDelivery;
  /** Billing events from the ledger (courier 6.1). */
  readonly billingEvents: BillingEvents;
  /** Redelivery and return charges from the shipments' own events (courier 2.6 rule 3). */
  readonly scanCharges: ScanCharges;
  /** Customs-administration charges from the crossings' own events (courier 2.6 rule 3). */
  readonly customsCharges: CustomsCharges;
  /** `shipment.<stage>` events to clients' webhooks (courier 6.2). */
  readonly clientWebhooks: ClientWebhooks;
  /** The crossing of a cross-border booking, from its shipment's own event (CONTRACT customs). */
  readonly bookingCrossings: BookingCrossings;
  /** Resolves once the query side holds every change committed before the call. */
  settle(): Promise<void>;
}

/** Business API 5.2: keys are per environment. */
export function apiKeyPrefix(env: EnvironmentName): string {
  return env === "live" ? "sk_live_" : "sk_sandbox_";
}
