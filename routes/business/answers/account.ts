/**
 * What the account routes answer (Business API 4.3 account rows, 5): the answer schemas their
 * OpenAPI entries show, and the views that make them from the business and its wallet.
 */
import {
  BILLING_TYPES,
  type Business,
  PLANS,
  type Settings,
  type Staff,
  thresholdAmount,
} from "../../../actors/platform/business/mod.ts";
import type { WalletState, WalletTransaction } from "../../../actors/platform/wallet.ts";
import { iso } from "../../../src/domain/iso.ts";
import { decimal } from "../../../src/domain/money.ts";
import type { EnvironmentName } from "../../../src/environment.ts";
import { z } from "../../../src/http/route.ts";
import { Country, Currency, Money, orNull, UtcInstant } from "../../../src/http/schemas.ts";
import { AUDIT_PAGE_MAX, type AuditEntry as Audited } from "../../../src/platform/flows/audit.ts";
import { type BusinessPrincipal, principalRole } from "../../../src/platform/identity.ts";
import { PORTAL_ROLES } from "../../../src/platform/rules/scopes.ts";
import { PatchBusiness, Scope } from "../../../src/platform/schemas.ts";

export const PortalRole = z.enum(PORTAL_ROLES);
export const InvitedRole = z.enum(["admin", "coordinator"]);

/** A portal sign-in: the session token, shown this once (the service keeps its hash). */
export const StaffSessionAnswer = z.object({
  token: z.string().openapi({
    description: "The portal session token (`st_...`), sent in `X-Business-API-Key`. Shown only " +
      "in this answer",
  }),
  expires_at: UtcInstant,
}).openapi("StaffSession");

export const SignedOutAnswer = z.object({ signed_out: z.literal(true) }).openapi("StaffSignedOut");

export const BusinessProfileAnswer = z.object({
  id: z.string(),
  name: z.string(),
  plan: z.enum(PLANS),
  currency: Currency,
  country: Country,
  billing_contact: orNull(z.string()),
  webhook_url: orNull(z.string()),
  webhook_key_id: z.string().openapi({
    description: "The id of the webhook signing secret in use, as deliveries name it in " +
      "`X-Service-Key-Id`; the secret itself is never shown again",
  }),
  billing_endpoint_url: orNull(z.string()).openapi({
    description: "Where courier billing events go; null: to `webhook_url`",
  }),
  low_balance_threshold: orNull(Money).openapi({
    description: "The low-balance threshold of the wallet, in `currency`; null: none set",
  }),
  courier_platform_enabled: z.boolean(),
  shopping_fulfilment_enabled: z.boolean(),
  portal_role: orNull(PortalRole).openapi({
    description: "The signed-in person's portal role; null for a key",
  }),
  principal: z.enum([...PORTAL_ROLES, "api_key"]).openapi({
    description: "Who is calling: a signed-in person's role or the integration key (`api_key`)",
  }),
  environment: z.enum(["live", "sandbox"]),
}).openapi("BusinessProfile");

/** BusinessProfileAnswer of the business, as the caller in `environment` sees it. */
export function profileView(b: Business, p: BusinessPrincipal, environment: EnvironmentName) {
  return {
    id: b.id,
    name: b.profile.name,
    plan: b.plan,
    currency: b.currency,
    country: b.country,
    billing_contact: b.profile.billing_contact,
    webhook_url: b.profile.webhook_url,
    /** The key id deliveries name in X-Service-Key-Id (courier 6.1); the secret is never shown. */
    webhook_key_id: b.webhook_secret.key_id,
    billing_endpoint_url: b.profile.billing_endpoint_url ?? null,
    low_balance_threshold: thresholdAmount(b.profile.low_balance_threshold),
    courier_platform_enabled: b.settings.courier_platform_enabled,
    shopping_fulfilment_enabled: b.settings.shopping_fulfilment_enabled,
    portal_role: p.kind === "staff" ? p.role : null,
    principal: principalRole(p),
    environment,
  };
}

export const ApiKeyAnswer = z.object({
  prefix: z.string().openapi({ description: "`sk_live_` or `sk_sandbox_`" }),
  hint: z.string().openapi({ description: "The key's last characters, to tell keys apart" }),
  created_at: UtcInstant,
  scopes: z.array(Scope).openapi({
    description: "Every scope the key holds: its defaults, those the operator granted, and those " +
      "they imply",
  }),
}).openapi("BusinessApiKey");

export const ApiKeyRegeneratedAnswer = z.object({
  api_key: z.string().openapi({
    description: "The new integration key. Shown only in this answer",
  }),
  hint: z.string().openapi({ description: "The key's last characters, to tell keys apart" }),
}).openapi("BusinessApiKeyRegenerated");

export const WebhookSecretRegeneratedAnswer = z.object({
  webhook_secret: z.string().openapi({
    description: "The new signing secret (`whsec_...`). Shown only in this answer",
  }),
  key_id: z.string().openapi({
    description: "Its id, as deliveries name it in `X-Service-Key-Id`",
  }),
}).openapi("WebhookSecretRegenerated");

export const PortalPersonAnswer = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  portal_role: PortalRole,
  created_at: UtcInstant,
}).openapi("PortalPerson");

export function personView(s: Staff) {
  return {
    id: s.id,
    name: s.name,
    email: s.email,
    portal_role: s.role,
    created_at: new Date(s.created_at).toISOString(),
  };
}

export const PortalPersonInvitedAnswer = z.object({
  id: z.string(),
  email: z.string(),
  portal_role: InvitedRole,
  password: z.string().openapi({
    description: "The person's password for `POST /business/login`. Shown only in this answer",
  }),
}).openapi("PortalPersonInvited");

export const PortalPersonRemovedAnswer = z.object({
  id: z.string(),
  removed: z.literal(true),
}).openapi("PortalPersonRemoved");

export const WalletAnswer = z.object({
  // CONTRACT: the words the operator sets it with (PATCH /operator/businesses/{id}).
  billing_type: z.enum(BILLING_TYPES).openapi({
    description: "wallet: bookings are paid from the balance; credit: it may go below zero " +
      "down to -credit_limit",
  }),
  credit_limit: orNull(Money).openapi({ description: "On credit: in the business's currency" }),
  balances: z.array(
    z.object({ currency: Currency, balance: Money }).openapi("BusinessWalletBalance"),
  ).openapi({ description: "One per currency the wallet has held" }),
}).openapi("BusinessWallet");

export const WalletTransactionAnswer = z.object({
  seq: z.number().int().openapi({
    description: "Its place in the wallet's history: page with `after`",
  }),
  id: z.string(),
  kind: z.enum(["credit", "debit"]),
  amount: Money,
  currency: Currency,
  reference: z.string().openapi({
    description: "The operator's reference, `trip:<trip reference>` for a trip's charge, " +
      "`refund:<trip reference>` for its refund",
  }),
  by: z.string(),
  at: UtcInstant,
}).openapi("BusinessWalletTransaction");

export function walletTransactionView(
  e: { readonly seq: number; readonly transaction: WalletTransaction },
): z.infer<typeof WalletTransactionAnswer> {
  const t = e.transaction;
  return {
    seq: e.seq,
    id: t.id,
    kind: t.kind,
    amount: decimal(t.amount_minor, t.currency),
    currency: t.currency,
    reference: t.reference,
    by: t.by,
    at: iso(t.at),
  };
}

export function walletView(w: WalletState, s: Settings) {
  const credit = s.billing_type === "credit";
  return {
    billing_type: credit ? "credit" as const : "wallet" as const,
    credit_limit: credit && s.credit_limit ? Number(s.credit_limit) : null,
    balances: Object.entries(w.balances).map(([currency, minor]) => ({
      currency,
      balance: decimal(minor, currency),
    })),
  };
}

/** The profile fields a profile_changed entry names: those that changed, as they became. */
const ProfileChanges = z.object({
  name: z.string(),
  billing_contact: orNull(z.string()),
  webhook_url: orNull(z.string()),
  low_balance_threshold: orNull(Money),
  billing_endpoint_url: orNull(z.string()),
}).partial().openapi("BusinessProfileChanges");

/** One audit entry of `action` with what auditDetail (the business actor) shows of it. */
function auditEntry<A extends string, D extends z.ZodRawShape>(action: A, detail: D) {
  return z.object({
    seq: z.number().int().openapi({ description: "Its place in the trail; pass as `after`" }),
    at: UtcInstant,
    action: z.literal(action),
    by: z.string().openapi({
      description: "`operator`, `api_key`, `staff:<user id>`, `partner_key:<key id>`, or " +
        "`service` (the service's own change, such as old data brought to its rules at start)",
    }),
    detail: z.object(detail),
  });
}

export const AuditEntry = z.discriminatedUnion("action", [
  auditEntry("business_created", { name: z.string(), plan: z.enum(PLANS) }),
  auditEntry("settings_changed", { changes: PatchBusiness }),
  auditEntry("profile_changed", { changes: ProfileChanges }),
  // A sandbox twin made before twins were marked, marked by its live account's credentials call.
  auditEntry("sandbox_twin_marked", {}),
  auditEntry("api_key_rotated", { hint: z.string() }),
  auditEntry("legacy_key_imported", { hint: z.string() }),
  auditEntry("webhook_secret_rotated", { key_id: z.string() }),
  // The seals of these secrets bound to the business (made before seals were bound): same secrets.
  auditEntry("webhook_seals_bound", { key_ids: z.array(z.string()) }),
  auditEntry("partner_key_issued", { id: z.string(), partner: z.string(), scopes: z.array(Scope) }),
  auditEntry("partner_key_revoked", { id: z.string() }),
  auditEntry("staff_added", { id: z.string(), email: z.string(), role: PortalRole }),
  auditEntry("password_changed", { staff_id: z.string() }),
  auditEntry("staff_changed", {
    staff_id: z.string(),
    changes: z.object({ name: z.string(), role: PortalRole }).partial(),
  }),
  auditEntry("staff_removed", { staff_id: z.string(), email: z.string() }),
]).openapi("AuditEntry");

export const AuditLogAnswer = z.object({
  entries: z.array(AuditEntry).openapi({
    description: `Oldest first, at most ${AUDIT_PAGE_MAX}`,
  }),
  next_after: orNull(z.number().int()).openapi({
    description: "The last entry's `seq`, to pass as `after` for later entries; null when this " +
      "answer has none",
  }),
}).openapi("AuditLog");

export function auditLogView(entries: readonly Audited[]) {
  return {
    entries: entries.map((e) => ({ ...e, at: new Date(e.at).toISOString() })),
    next_after: entries.at(-1)?.seq ?? null,
  };
}
