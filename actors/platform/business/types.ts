/**
 * The business account's state, commands and events (Business API 4.3 account rows, 5; CONTRACT
 * operator API). Every change is an event naming who made it (`By`), so the log is the audit trail.
 */
import type { KeyRecord, PreviousSecret, WebhookSecret } from "../../../src/domain/credentials.ts";
import type { PortalRole, Scope } from "../../../src/platform/rules/scopes.ts";

export const PLANS = ["starter", "business", "enterprise"] as const;
export type Plan = typeof PLANS[number];
/** Business API 3.2: upgrade and bill (default), cap upgrades at one size, or refuse. */
export const VEHICLE_UPGRADE_POLICIES = ["upgrade", "upgrade_one_size", "refuse"] as const;
export type VehicleUpgradePolicy = typeof VEHICLE_UPGRADE_POLICIES[number];
/** CONTRACT operator API: a business pays from its wallet, or on credit up to credit_limit. */
export const BILLING_TYPES = ["wallet", "credit"] as const;
export type BillingType = typeof BILLING_TYPES[number];
/** The bulky-item services the operator may authorise for a business. */
export const BULKY_SERVICES = ["assembly", "installation", "removal"] as const;

export interface PartnerKey extends KeyRecord {
  readonly id: string;
  readonly partner: string;
  readonly scopes: readonly Scope[];
  readonly revoked_at: number | null;
}

export interface Staff {
  readonly id: string;
  readonly email: string;
  readonly name: string;
  readonly role: PortalRole;
  readonly password_hash: string;
  /** Raised on a password change: sessions opened before it are signed out. */
  readonly session_epoch: number;
  /**
   * spec: business 4.3: the hash of the session token that made the last password change: it
   * stays signed in through it ("other devices signed out"), whatever epoch it opened under.
   */
  readonly kept_session?: string;
  readonly created_at: number;
}

export interface Settings {
  readonly courier_platform_enabled: boolean;
  readonly shopping_fulfilment_enabled: boolean;
  readonly api_key_scopes: readonly Scope[];
  readonly vehicle_upgrade_policy: VehicleUpgradePolicy;
  readonly bulky_services_authorised: readonly string[];
  readonly rate_limit_per_minute: number | null;
  readonly rate_limit_per_day: number | null;
  /** Absent on accounts made before it was a setting: wallet. */
  readonly billing_type?: BillingType;
  /** How far below zero a credit account's wallet may go, as decimal text in its currency. */
  readonly credit_limit?: string | null;
  /** Business API 2.2 custody scanning add-on (CONTRACT PATCH); absent before it was: off. */
  readonly custody_scanning?: boolean;
}

export interface Profile {
  readonly name: string;
  readonly billing_contact: string | null;
  readonly webhook_url: string | null;
  readonly low_balance_threshold: string | null;
  /** Courier 6.1: where billing events go; else they go to `webhook_url`. */
  readonly billing_endpoint_url?: string | null;
}

export interface Business {
  readonly id: string;
  readonly plan: Plan;
  readonly currency: string;
  readonly country: string;
  readonly created_at: number;
  readonly profile: Profile;
  readonly settings: Settings;
  readonly api_key: KeyRecord;
  /** A key issued before 2026-10-11 (no prefix), still accepted on live (Business API 5.2). */
  readonly legacy_api_key: KeyRecord | null;
  readonly webhook_secret: WebhookSecret;
  /** The secret before the last rotation, still named by its key id until `expires_at`. */
  readonly webhook_secret_previous?: PreviousSecret | null;
  readonly partner_keys: readonly PartnerKey[];
  readonly staff: readonly Staff[];
  /**
   * A live account's twin in the sandbox (Business API 4.4), made by POST
   * /business/sandbox/credentials; absent on every other account.
   */
  readonly sandbox_twin?: true;
  /**
   * Its trips' references are keyed (bookingReference): set on every account made since they
   * are. An account made before keeps the plain derivation for good, so a retry of any of its
   * bookings still names the trip it made (appendix 1: a reference belongs to its first delivery
   * for good).
   */
  readonly references_keyed?: true;
}

export type BusinessState = Business | null;

/** Who made a change, as the audit trail shows it (`operator`, `api_key`, `staff:<id>`). */
export type By = string;

export type BusinessCommand =
  | {
    kind: "create";
    id: string;
    name: string;
    plan: Plan;
    currency: string;
    country: string;
    owner: Omit<Staff, "created_at" | "session_epoch">;
    api_key: KeyRecord;
    webhook_secret: WebhookSecret;
    sandbox_twin?: true;
  }
  | { kind: "change_settings"; changes: Partial<Settings>; by: By }
  /** Old data: a twin made before twins were marked (`sandbox_twin`), marked as one. */
  | { kind: "mark_sandbox_twin"; by: By }
  | { kind: "change_profile"; changes: Partial<Profile>; by: By }
  /** `replaces`: the hash of the key rotated; another key held by then refuses it (4.3). */
  | { kind: "rotate_api_key"; key: KeyRecord; replaces: string; by: By }
  | { kind: "import_legacy_key"; key: KeyRecord; by: By }
  | {
    kind: "rotate_webhook_secret";
    secret: WebhookSecret;
    /** The key id of the secret it replaces: another rotation since refuses it (business 5.6). */
    replaces: string;
    by: By;
  }
  /** Old data: the secrets sealed before seals were bound, bound to this business (bindSeal). */
  | { kind: "bind_webhook_seals"; secret: WebhookSecret | null; previous: WebhookSecret | null }
  | { kind: "issue_partner_key"; key: Omit<PartnerKey, "revoked_at">; by: By }
  | { kind: "revoke_partner_key"; id: string; by: By }
  | {
    kind: "add_staff";
    staff: Omit<Staff, "created_at" | "session_epoch">;
    /** The plan's employee accounts; null: unlimited (Enterprise). */
    max: number | null;
    by: By;
  }
  | {
    kind: "change_password";
    staff_id: string;
    password_hash: string;
    /** The session epoch the current password was checked under: the change holds only then. */
    session_epoch: number;
    /** The hash of the caller's session token, kept signed in through the change (4.3). */
    kept_session?: string;
    by: By;
  }
  | { kind: "change_staff"; staff_id: string; changes: StaffChanges; by: By }
  | { kind: "remove_staff"; staff_id: string; by: By }
  | { kind: "authenticate_key"; hash: string }
  | {
    kind: "authenticate_staff";
    staff_id: string;
    session_epoch: number;
    /** The session token's hash: the session a password change kept holds under any epoch. */
    session_hash?: string;
  }
  | { kind: "staff_for_login"; email: string }
  | { kind: "get" };

export type BusinessEvent =
  | { kind: "business_created"; business: Business }
  | { kind: "settings_changed"; changes: Partial<Settings>; by: By }
  | { kind: "sandbox_twin_marked"; by: By }
  | { kind: "profile_changed"; changes: Partial<Profile>; by: By }
  | { kind: "api_key_rotated"; key: KeyRecord; by: By }
  | { kind: "legacy_key_imported"; key: KeyRecord; by: By }
  | { kind: "webhook_secret_rotated"; secret: WebhookSecret; by: By }
  | { kind: "webhook_seals_bound"; secret: WebhookSecret | null; previous: PreviousSecret | null }
  | { kind: "partner_key_issued"; key: PartnerKey; by: By }
  | { kind: "partner_key_revoked"; id: string; at: number; by: By }
  | { kind: "staff_added"; staff: Staff; by: By }
  | {
    kind: "password_changed";
    staff_id: string;
    password_hash: string;
    /** The session kept signed in through the change (absent: none, as before 4.3's rule). */
    kept_session?: string;
    by: By;
  }
  | { kind: "staff_changed"; staff_id: string; changes: StaffChanges; by: By }
  | { kind: "staff_removed"; staff_id: string; email: string; by: By };

/** What `PATCH /business/people/{id}` may change of a person (Business API 4.3). */
export interface StaffChanges {
  readonly name?: string;
  readonly role?: PortalRole;
}

/** What authentication learns about the account a credential belongs to. */
export interface BusinessAccess {
  readonly id: string;
  readonly plan: Plan;
  readonly courier_platform_enabled: boolean;
  readonly shopping_fulfilment_enabled: boolean;
  readonly rate_limit_per_minute: number | null;
  readonly rate_limit_per_day: number | null;
}

export type Authenticated =
  | {
    readonly as: "business_key";
    readonly legacy: boolean;
    readonly scopes: readonly Scope[];
    /** The webhook secret's key id as the request found it: what a rotation it sends replaces. */
    readonly webhook_key_id: string;
  }
  | {
    readonly as: "partner";
    readonly partner_key_id: string;
    readonly partner: string;
    readonly scopes: readonly Scope[];
  }
  | {
    readonly as: "staff";
    readonly staff_id: string;
    readonly role: PortalRole;
    /** The epoch the session was checked under (a password change since signed it out). */
    readonly session_epoch: number;
    /** The integration key's hash as the request found it: what a rotation it sends replaces. */
    readonly api_key_hash: string;
    /** The webhook secret's key id as the request found it: what a rotation it sends replaces. */
    readonly webhook_key_id: string;
  };

export type BusinessReply =
  | Business
  | { readonly access: BusinessAccess; readonly principal: Authenticated }
  | { readonly staff_id: string; readonly password_hash: string; readonly session_epoch: number }
  | undefined;
