/**
 * What the business account shows of itself: to authentication (its access), to projections and
 * the operator (publicView, no hash or secret), to the log and the bus (logged: no sealed
 * secret, no hash), and to its audit trail (auditDetail).
 */
import {
  keyMention,
  sealsBoundMention,
  secretMention,
  withoutPassword,
} from "../../../src/domain/credentials.ts";
import { unreachable } from "../../../src/runtime/actor.ts";
import type {
  Business,
  BusinessAccess,
  BusinessEvent,
  BusinessReply,
  By,
  PartnerKey,
} from "./types.ts";

/** What authentication learns of the account a credential belongs to. */
export function accessOf(b: Business): BusinessAccess {
  return {
    id: b.id,
    plan: b.plan,
    courier_platform_enabled: b.settings.courier_platform_enabled,
    shopping_fulfilment_enabled: b.settings.shopping_fulfilment_enabled,
    rate_limit_per_minute: b.settings.rate_limit_per_minute,
    rate_limit_per_day: b.settings.rate_limit_per_day,
  };
}

/**
 * The low-balance threshold as answers show money: a JSON number in the account's currency. It is
 * kept as its canonical decimal text ("50.00"), which converts exactly.
 */
export function thresholdAmount(text: string | null): number | null {
  return text === null ? null : Number(text);
}

/** What projections and the operator see: no hashes, no sealed secrets. */
export function publicView(b: Business) {
  return {
    id: b.id,
    name: b.profile.name,
    plan: b.plan,
    currency: b.currency,
    country: b.country,
    created_at: new Date(b.created_at).toISOString(),
    ...b.settings,
    billing_type: b.settings.billing_type ?? "wallet",
    custody_scanning: b.settings.custody_scanning ?? false,
    credit_limit: thresholdAmount(b.settings.credit_limit ?? null),
    webhook_url: b.profile.webhook_url,
    billing_contact: b.profile.billing_contact,
    low_balance_threshold: thresholdAmount(b.profile.low_balance_threshold),
  };
}

/**
 * An event as the log and the bus keep it: webhook secrets (even sealed), key hashes and password
 * hashes stay in the state, which signing in checks against; the rest names the key by its hint
 * and the person by id and e-mail. Events logged whole by earlier versions still evolve the same.
 */
export function logged(e: BusinessEvent): unknown {
  switch (e.kind) {
    case "business_created": {
      const { webhook_secret, webhook_secret_previous: _, ...business } = e.business;
      return {
        ...e,
        business: {
          ...business,
          api_key: keyMention(business.api_key),
          legacy_api_key: business.legacy_api_key && keyMention(business.legacy_api_key),
          partner_keys: business.partner_keys.map(partnerKeyMention),
          staff: business.staff.map(personMention),
          webhook_secret: secretMention(webhook_secret),
        },
      };
    }
    case "api_key_rotated":
    case "legacy_key_imported":
      return { ...e, key: keyMention(e.key) };
    case "partner_key_issued":
      return { ...e, key: partnerKeyMention(e.key) };
    case "staff_added":
      return { ...e, staff: withoutPassword(e.staff) };
    case "password_changed":
      return personMention(e);
    case "webhook_secret_rotated":
      return { ...e, secret: secretMention(e.secret) };
    case "webhook_seals_bound":
      return sealsBoundMention(e);
    default:
      return e;
  }
}

function partnerKeyMention(k: PartnerKey): Omit<PartnerKey, "hash"> {
  const { hash: _, ...rest } = k;
  return rest;
}

/** One line of the audit trail: what changed and who changed it, never a hash or a secret. */
export function auditDetail(event: BusinessEvent): { by: By; detail: Record<string, unknown> } {
  switch (event.kind) {
    case "business_created":
      return {
        by: "operator",
        detail: { name: event.business.profile.name, plan: event.business.plan },
      };
    case "settings_changed": {
      // As the operator's answer shows it (publicView): money, a number, never its stored text.
      const { credit_limit, ...changes } = event.changes;
      return {
        by: event.by,
        detail: {
          changes: credit_limit === undefined
            ? changes
            : { ...changes, credit_limit: thresholdAmount(credit_limit) },
        },
      };
    }
    case "sandbox_twin_marked":
      return { by: event.by, detail: {} };
    case "profile_changed": {
      const { low_balance_threshold, ...changes } = event.changes;
      return {
        by: event.by,
        detail: {
          changes: low_balance_threshold === undefined
            ? changes
            : { ...changes, low_balance_threshold: thresholdAmount(low_balance_threshold) },
        },
      };
    }
    case "api_key_rotated":
    case "legacy_key_imported":
      return { by: event.by, detail: { hint: event.key.hint } };
    case "webhook_secret_rotated":
      return { by: event.by, detail: { key_id: event.secret.key_id } };
    // Old data brought to today's rules at start: the service's own change, no person's.
    case "webhook_seals_bound":
      return {
        by: "service",
        detail: { key_ids: [event.secret, event.previous].flatMap((s) => s ? [s.key_id] : []) },
      };
    case "partner_key_issued":
      return {
        by: event.by,
        detail: { id: event.key.id, partner: event.key.partner, scopes: event.key.scopes },
      };
    case "partner_key_revoked":
      return { by: event.by, detail: { id: event.id } };
    case "staff_added":
      return {
        by: event.by,
        detail: { id: event.staff.id, email: event.staff.email, role: event.staff.role },
      };
    case "password_changed":
      return { by: event.by, detail: { staff_id: event.staff_id } };
    case "staff_changed":
      return { by: event.by, detail: { staff_id: event.staff_id, changes: event.changes } };
    case "staff_removed":
      return { by: event.by, detail: { staff_id: event.staff_id, email: event.email } };
    default:
      return unreachable(event);
  }
}

/** The business a `get`-like reply carries; a reply of another shape is a programming error. */
export function asBusiness(reply: BusinessReply): Business {
  if (!reply || !("profile" in reply)) throw new Error("expected the business in the reply");
  return reply;
}

/** A person, or their password change, as the log and the bus say of it: no password, no session. */
function personMention<T extends { password_hash: unknown; kept_session?: string }>(person: T) {
  const { kept_session: _, ...rest } = withoutPassword(person);
  return rest;
}
