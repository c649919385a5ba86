/**
 * What the operator API answers (CONTRACT "Operator API"): the answer schemas its OpenAPI entries
 * show, and the views that make them from what the flows, actors and queries give.
 */
import {
  BILLING_TYPES,
  BULKY_SERVICES,
  PLANS,
  VEHICLE_UPGRADE_POLICIES,
} from "../../../actors/platform/business/mod.ts";
import { decimal } from "../../../src/domain/money.ts";
import { iso } from "../../../src/domain/iso.ts";
import { z } from "../../../src/http/route.ts";
import { Country, Currency, Money, orNull, UtcInstant } from "../../../src/http/schemas.ts";
import type { ClockAdvanced } from "../../../src/platform/flows/clock.ts";
import type { WalletCredit } from "../../../src/platform/flows/wallet.ts";
import type { DeferredWorkRow } from "../../../src/platform/queries/deferred_work.ts";
import type { ParkedChangeRow } from "../../../src/platform/queries/parked_changes.ts";
import { Scope } from "../../../src/platform/schemas.ts";

export const Plan = z.enum(PLANS);

/** A new business's credentials, shown this once (the key and password are kept hashed). */
export const BusinessCreatedAnswer = z.object({
  id: z.string(),
  api_key: z.string().openapi({
    description: "The integration key (`X-Business-API-Key`): `sk_live_...` on live, " +
      "`sk_sandbox_...` on the sandbox. Shown only in this answer",
  }),
  webhook_secret: z.string().openapi({
    description: "The webhook signing secret (`whsec_...`). Shown only in this answer",
  }),
  owner: z.object({
    email: z.string(),
    password: z.string().openapi({
      description: "The owner's portal password (`POST /business/login`). Shown only in this " +
        "answer",
    }),
  }),
}).openapi("OperatorBusinessCreated");

/** A business as the operator sees it (the actor's publicView): no key, hash or secret. */
export const BusinessSettingsAnswer = z.object({
  id: z.string(),
  name: z.string(),
  plan: Plan,
  currency: Currency,
  country: Country,
  created_at: UtcInstant,
  courier_platform_enabled: z.boolean(),
  shopping_fulfilment_enabled: z.boolean(),
  api_key_scopes: z.array(Scope).openapi({
    description: "Scopes the operator stored on the business key, added to its defaults",
  }),
  vehicle_upgrade_policy: z.enum(VEHICLE_UPGRADE_POLICIES),
  bulky_services_authorised: z.array(z.enum(BULKY_SERVICES)),
  rate_limit_per_minute: orNull(z.number().int()).openapi({
    description: "Enterprise plan: this business's limit; null: the plan's (6,000 a minute)",
  }),
  rate_limit_per_day: orNull(z.number().int()).openapi({
    description: "Enterprise plan: this business's limit; null: the plan's (1,000,000 a day)",
  }),
  billing_type: z.enum(BILLING_TYPES).openapi({
    description: "wallet: bookings are paid from the wallet's balance; credit: the balance may " +
      "go below zero down to -credit_limit",
  }),
  credit_limit: orNull(Money).openapi({ description: "In `currency`; null: none" }),
  custody_scanning: z.boolean().openapi({
    description: "The custody scanning add-on (Business API 2.2)",
  }),
  webhook_url: orNull(z.string()),
  billing_contact: orNull(z.string()),
  low_balance_threshold: orNull(Money).openapi({
    description: "The low-balance threshold of the wallet, in `currency`; null: none set",
  }),
}).openapi("OperatorBusiness");

export const PartnerKeyIssuedAnswer = z.object({
  id: z.string(),
  key: z.string().openapi({
    description: "The partner key (`ak_live_...` on live, `ak_sandbox_...` on the sandbox), " +
      "sent in `X-Business-API-Key`. Shown only in this answer",
  }),
  partner: z.string(),
  scopes: z.array(Scope).openapi({ description: "The scopes the key holds, each once" }),
}).openapi("OperatorPartnerKeyIssued");

export const PartnerKeyRevokedAnswer = z.object({
  id: z.string(),
  revoked: z.literal(true),
}).openapi("OperatorPartnerKeyRevoked");

export const DriverRegisteredAnswer = z.object({
  id: z.string(),
  token: z.string().openapi({
    description: "The driver's bearer token (`Authorization: Bearer`). Shown only in this answer",
  }),
}).openapi("OperatorDriverRegistered");

export const WalletCreditAnswer = z.object({
  transaction_id: z.string(),
  reference: z.string(),
  amount: Money,
  currency: Currency,
  balance: Money.openapi({ description: "The wallet's balance in `currency` after the credit" }),
  replayed: z.boolean().openapi({
    description: "True when this reference was credited before: nothing was credited again",
  }),
}).openapi("OperatorWalletCredit");

/** WalletCreditAnswer of a credit, its amounts as decimals in its currency. */
export function walletCreditView(w: WalletCredit) {
  return {
    transaction_id: w.transaction_id,
    reference: w.reference,
    amount: decimal(w.amount_minor, w.currency),
    currency: w.currency,
    balance: decimal(w.balance_minor, w.currency),
    replayed: w.replayed,
  };
}

export const PlatformSettingsAnswer = z.object({
  price_hold_minutes: z.number().int().openapi({
    description: "How long prices are held, in minutes",
  }),
  prep_offer_lead_minutes: z.number().int().openapi({
    description: "How many minutes before it is ready a prep order is offered to drivers",
  }),
  webhook_ports: z.array(z.number().int()).openapi({
    description: "Ports besides 443 that webhook and billing endpoint URLs may use",
    example: [8443],
  }),
  dispatch_offer_seconds: z.number().int().openapi({
    description: "How long an offer waits for the driver's answer before the next driver",
  }),
  dispatch_window_minutes: z.number().int().openapi({
    description: "No driver accepting within this many minutes of the first offer cancels the trip",
  }),
  schedule_offer_lead_minutes: z.number().int().openapi({
    description: "How many minutes before scheduled_at a scheduled trip is offered",
  }),
  position_fresh_seconds: z.number().int().openapi({
    description:
      "A driver's position older than this is stale: no dispatch, location_is_fresh false",
  }),
}).openapi("PlatformSettings");

export const ClockAnswer = z.object({
  now: UtcInstant,
  kind: z.enum(["system", "manual"]).openapi({
    description: "`manual` when started with `CLOCK=manual` (tests only)",
  }),
}).openapi("OperatorClock");

export const ClockAdvancedAnswer = z.object({
  now: UtcInstant,
  timers_fired: z.number().int().openapi({
    description: "Durable timers that came due and fired before this answer",
  }),
}).openapi("OperatorClockAdvanced");

export function clockAdvancedView(a: ClockAdvanced) {
  return { now: new Date(a.now).toISOString(), timers_fired: a.timers_fired };
}

const DeferredWorkItem = z.object({
  id: z.string(),
  tenant: z.string().openapi({
    description: "The tenant of the change it was working on (a business id), or `platform`",
  }),
  worker: z.string().openapi({ description: "The bus worker that failed" }),
  subject: z.string().openapi({ description: "The subject of the message it was working on" }),
  status: z.enum(["waiting", "done", "parked"]).openapi({
    description: "`parked`: refused for good (a run's follow-up its shipment or account will " +
      "never take); kept to be seen, never tried again",
  }),
  attempts: z.number().int().openapi({ description: "Tries made since it was deferred" }),
  deferred_at: UtcInstant,
  last_error: orNull(z.string()),
  done_at: orNull(UtcInstant),
}).openapi("DeferredWorkItem");

export const DeferredWorkAnswer = z.object({
  items: z.array(DeferredWorkItem),
}).openapi("DeferredWorkList");

export function deferredWorkView(r: DeferredWorkRow) {
  const w = r.work;
  return {
    id: r.id,
    tenant: r.tenant,
    worker: w.worker,
    subject: w.subject,
    status: w.status,
    attempts: w.attempts,
    deferred_at: iso(w.deferred_at),
    last_error: w.last_error,
    done_at: iso(w.done_at),
  };
}

const ParkedChangeItem = z.object({
  projection: z.enum([
    "snapshots",
    "ledger",
    "read_tables",
    "platform_read_tables",
    "business_read_tables",
  ]).openapi({
    description: "Where it could not be written: actor snapshots and events, the ledger, or " +
      "the lists' typed read tables (the courier's, the platform's)",
  }),
  id: z.string().openapi({ description: "SHA-256 of the change as kept" }),
  subject: z.string().openapi({ description: "The bus subject of the change" }),
  attempts: z.number().int().openapi({ description: "Writes tried and failed" }),
  last_error: z.string(),
  parked_at: UtcInstant,
  failed_at: UtcInstant.openapi({ description: "When the last try failed" }),
}).openapi("ParkedChange");

export const ParkedChangesAnswer = z.object({
  items: z.array(ParkedChangeItem),
}).openapi("ParkedChangeList");

export function parkedChangeView(r: ParkedChangeRow) {
  return {
    projection: r.projection,
    id: r.digest,
    subject: r.subject,
    attempts: r.attempts,
    last_error: r.error,
    parked_at: new Date(r.parked_at).toISOString(),
    failed_at: new Date(r.failed_at).toISOString(),
  };
}
