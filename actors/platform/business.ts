/**
 * The business account (Business API 4.3 account rows, 5; CONTRACT operator API): plan, the
 * operator's switches, the integration key, partner keys, portal people and the webhook. Keys are
 * held only as hashes; every change is an event naming who made it, so the event log is the audit
 * trail.
 */
import {
  accept,
  type ActorDefinition,
  type IndexEntry,
  reject,
  type TimerFired,
  unreachable,
} from "../../src/runtime/actor.ts";
import { constantTimeEqual } from "../../src/domain/secrets.ts";
import {
  type KeyRecord,
  type PreviousSecret,
  retire,
  secretMention,
  type WebhookSecret,
} from "../../src/domain/credentials.ts";
import type { PortalRole, Scope } from "../../src/platform/rules/scopes.ts";

export { retire, secretMention };
export type { KeyRecord, PreviousSecret, WebhookSecret };

export const PLANS = ["starter", "business", "enterprise"] as const;
export type Plan = typeof PLANS[number];
/** Business API 3.2: upgrade and bill (default), cap upgrades at one size, or refuse. */
export const VEHICLE_UPGRADE_POLICIES = ["upgrade", "upgrade_one_size", "refuse"] as const;
export type VehicleUpgradePolicy = typeof VEHICLE_UPGRADE_POLICIES[number];
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
  }
  | { kind: "change_settings"; changes: Partial<Settings>; by: By }
  | { kind: "change_profile"; changes: Partial<Profile>; by: By }
  | { kind: "rotate_api_key"; key: KeyRecord; by: By }
  | { kind: "import_legacy_key"; key: KeyRecord; by: By }
  | { kind: "rotate_webhook_secret"; secret: WebhookSecret; by: By }
  | { kind: "issue_partner_key"; key: Omit<PartnerKey, "revoked_at">; by: By }
  | { kind: "revoke_partner_key"; id: string; by: By }
  | { kind: "add_staff"; staff: Omit<Staff, "created_at" | "session_epoch">; max: number; by: By }
  | { kind: "change_password"; staff_id: string; password_hash: string; by: By }
  | { kind: "change_staff"; staff_id: string; changes: StaffChanges; by: By }
  | { kind: "remove_staff"; staff_id: string; by: By }
  | { kind: "authenticate_key"; hash: string }
  | { kind: "authenticate_staff"; staff_id: string; session_epoch: number }
  | { kind: "staff_for_login"; email: string }
  | { kind: "get" };

export type BusinessEvent =
  | { kind: "business_created"; business: Business }
  | { kind: "settings_changed"; changes: Partial<Settings>; by: By }
  | { kind: "profile_changed"; changes: Partial<Profile>; by: By }
  | { kind: "api_key_rotated"; key: KeyRecord; by: By }
  | { kind: "legacy_key_imported"; key: KeyRecord; by: By }
  | { kind: "webhook_secret_rotated"; secret: WebhookSecret; by: By }
  | { kind: "partner_key_issued"; key: PartnerKey; by: By }
  | { kind: "partner_key_revoked"; id: string; at: number; by: By }
  | { kind: "staff_added"; staff: Staff; by: By }
  | { kind: "password_changed"; staff_id: string; password_hash: string; by: By }
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
  | { readonly as: "business_key"; readonly legacy: boolean; readonly scopes: readonly Scope[] }
  | {
    readonly as: "partner";
    readonly partner_key_id: string;
    readonly partner: string;
    readonly scopes: readonly Scope[];
  }
  | { readonly as: "staff"; readonly staff_id: string; readonly role: PortalRole };

export type BusinessReply =
  | Business
  | { readonly access: BusinessAccess; readonly principal: Authenticated }
  | { readonly staff_id: string; readonly password_hash: string; readonly session_epoch: number }
  | undefined;

const DEFAULT_SETTINGS: Settings = {
  courier_platform_enabled: false,
  shopping_fulfilment_enabled: false,
  api_key_scopes: [],
  vehicle_upgrade_policy: "upgrade",
  bulky_services_authorised: [],
  rate_limit_per_minute: null,
  rate_limit_per_day: null,
};

const UNAUTHENTICATED = reject("unauthenticated", "unknown or revoked credential");

/** spec: business 5.6: the account has an owner; no change to people may leave it without one. */
function ownerProtected(what: string) {
  return reject("owner_protected", `the business must keep its owner: ${what}`);
}

const OWN_LIMITS = ["rate_limit_per_minute", "rate_limit_per_day"] as const;

/**
 * CONTRACT operator API: only the Enterprise plan's limits are set per business; Starter and
 * Business keep their plan's (Business API 8). A limit stored for them would be shown and never
 * applied, so it is refused, naming each field; null (the plan's own) is what they have.
 */
function ownLimitsRefused(plan: Plan, changes: Partial<Settings>) {
  if (plan === "enterprise") return null;
  const fields = OWN_LIMITS.filter((f) => changes[f] !== undefined && changes[f] !== null);
  if (fields.length === 0) return null;
  const message = `only an Enterprise plan business takes limits of its own; the ${plan} plan's ` +
    `apply: ${fields.join(", ")}`;
  return reject("validation_failed", message, {
    errors: fields.map((path) => ({ path, message })),
  });
}

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

type Accepted = ReturnType<typeof accept<BusinessState, BusinessEvent, BusinessReply>>;

/** Accepts the events and answers the business as it stands after them. */
function ok(
  events: BusinessEvent[],
  reply: (s: BusinessState) => BusinessReply = (s) => s ?? undefined,
): Accepted {
  return accept(events, reply);
}

function decide(state: BusinessState, command: BusinessCommand | TimerFired, ctx: { now: number }) {
  if (command.kind === "create") {
    if (state !== null) return reject("already_exists", `business exists: ${command.id}`);
    const { kind: _, owner, ...rest } = command;
    const business: Business = {
      ...rest,
      created_at: ctx.now,
      profile: {
        name: command.name,
        billing_contact: null,
        webhook_url: null,
        low_balance_threshold: null,
      },
      settings: DEFAULT_SETTINGS,
      legacy_api_key: null,
      partner_keys: [],
      staff: [{ ...owner, session_epoch: 0, created_at: ctx.now }],
    };
    return ok([{ kind: "business_created", business }]);
  }
  if (state === null) return reject("not_found", "business not found");
  switch (command.kind) {
    case "get":
      return ok([]);
    case "change_settings": {
      const refused = ownLimitsRefused(state.plan, command.changes);
      if (refused) return refused;
      return ok([{ kind: "settings_changed", changes: command.changes, by: command.by }]);
    }
    case "change_profile": {
      // Only what differs is a change: the same request again records (and e-mails) nothing.
      const changes = Object.fromEntries(
        Object.entries(command.changes).filter(([field, value]) =>
          value !== (state.profile[field as keyof Profile] ?? null)
        ),
      ) as Partial<Profile>;
      if (Object.keys(changes).length === 0) return ok([]);
      return ok([{ kind: "profile_changed", changes, by: command.by }]);
    }
    case "rotate_api_key":
      return ok([{ kind: "api_key_rotated", key: command.key, by: command.by }]);
    case "import_legacy_key":
      return ok([{ kind: "legacy_key_imported", key: command.key, by: command.by }]);
    case "rotate_webhook_secret":
      return ok([{ kind: "webhook_secret_rotated", secret: command.secret, by: command.by }]);
    case "issue_partner_key":
      return ok([{
        kind: "partner_key_issued",
        key: { ...command.key, revoked_at: null },
        by: command.by,
      }]);
    case "revoke_partner_key": {
      const key = state.partner_keys.find((k) => k.id === command.id);
      if (!key) return reject("not_found", `partner key not found: ${command.id}`);
      if (key.revoked_at !== null) {
        return ok([]);
      }
      return ok([{ kind: "partner_key_revoked", id: command.id, at: ctx.now, by: command.by }]);
    }
    case "add_staff": {
      const email = command.staff.email;
      if (state.staff.some((s) => s.email === email)) {
        return reject("email_taken", `a portal user already has this e-mail: ${email}`);
      }
      if (state.staff.length >= command.max) {
        return reject(
          "employee_limit_reached",
          `the ${state.plan} plan allows ${command.max} employee accounts: ${state.staff.length} exist`,
        );
      }
      return ok([{
        kind: "staff_added",
        staff: { ...command.staff, session_epoch: 0, created_at: ctx.now },
        by: command.by,
      }]);
    }
    case "change_password": {
      if (!state.staff.some((s) => s.id === command.staff_id)) {
        return reject("not_found", `portal user not found: ${command.staff_id}`);
      }
      return ok([{
        kind: "password_changed",
        staff_id: command.staff_id,
        password_hash: command.password_hash,
        by: command.by,
      }]);
    }
    case "change_staff": {
      const staff = state.staff.find((s) => s.id === command.staff_id);
      if (!staff) return reject("not_found", `portal user not found: ${command.staff_id}`);
      const { name, role } = command.changes;
      if (staff.role === "owner" && role !== undefined && role !== "owner") {
        return ownerProtected("the owner's role cannot change");
      }
      // Only what differs is a change: the same request again records nothing more.
      const changes: StaffChanges = {
        ...(name !== undefined && name !== staff.name ? { name } : {}),
        ...(role !== undefined && role !== staff.role ? { role } : {}),
      };
      if (Object.keys(changes).length === 0) return ok([]);
      return ok([{ kind: "staff_changed", staff_id: staff.id, changes, by: command.by }]);
    }
    case "remove_staff": {
      const staff = state.staff.find((s) => s.id === command.staff_id);
      if (!staff) return reject("not_found", `portal user not found: ${command.staff_id}`);
      if (staff.role === "owner") return ownerProtected("the owner cannot be removed");
      return ok([{
        kind: "staff_removed",
        staff_id: staff.id,
        email: staff.email,
        by: command.by,
      }]);
    }
    case "authenticate_key":
      return authenticateKey(state, command.hash);
    case "authenticate_staff": {
      const staff = state.staff.find((s) => s.id === command.staff_id);
      if (!staff || staff.session_epoch !== command.session_epoch) return UNAUTHENTICATED;
      return ok([], () => ({
        access: accessOf(state),
        principal: { as: "staff", staff_id: staff.id, role: staff.role },
      }));
    }
    case "staff_for_login": {
      const staff = state.staff.find((s) => s.email === command.email);
      if (!staff) return UNAUTHENTICATED;
      return ok([], () => ({
        staff_id: staff.id,
        password_hash: staff.password_hash,
        session_epoch: staff.session_epoch,
      }));
    }
    case "timer":
      return ok([]);
    default:
      return unreachable(command);
  }
}

function authenticateKey(state: Business, hash: string) {
  const granted = (principal: Authenticated) =>
    ok([], () => ({
      access: accessOf(state),
      principal,
    }));
  if (constantTimeEqual(state.api_key.hash, hash)) {
    return granted({ as: "business_key", legacy: false, scopes: state.settings.api_key_scopes });
  }
  if (state.legacy_api_key && constantTimeEqual(state.legacy_api_key.hash, hash)) {
    return granted({ as: "business_key", legacy: true, scopes: state.settings.api_key_scopes });
  }
  const partner = state.partner_keys.find((k) => constantTimeEqual(k.hash, hash));
  if (partner && partner.revoked_at === null) {
    return granted({
      as: "partner",
      partner_key_id: partner.id,
      partner: partner.partner,
      scopes: partner.scopes,
    });
  }
  return UNAUTHENTICATED;
}

function evolve(state: BusinessState, event: BusinessEvent): BusinessState {
  if (event.kind === "business_created") return event.business;
  if (state === null) throw new Error(`${event.kind} before business_created`);
  switch (event.kind) {
    case "settings_changed":
      return { ...state, settings: { ...state.settings, ...event.changes } };
    case "profile_changed":
      return { ...state, profile: { ...state.profile, ...event.changes } };
    // spec: business 4.3: the previous key is invalid at once: a legacy unprefixed key as well.
    case "api_key_rotated":
      return { ...state, api_key: event.key, legacy_api_key: null };
    case "legacy_key_imported":
      return { ...state, legacy_api_key: event.key };
    case "webhook_secret_rotated":
      return {
        ...state,
        webhook_secret: event.secret,
        webhook_secret_previous: retire(state.webhook_secret, event.secret.created_at),
      };
    case "partner_key_issued":
      return { ...state, partner_keys: [...state.partner_keys, event.key] };
    case "partner_key_revoked":
      return {
        ...state,
        partner_keys: state.partner_keys.map((k) =>
          k.id === event.id ? { ...k, revoked_at: event.at } : k
        ),
      };
    case "staff_added":
      return { ...state, staff: [...state.staff, event.staff] };
    case "password_changed":
      return {
        ...state,
        staff: state.staff.map((s) =>
          s.id === event.staff_id
            ? { ...s, password_hash: event.password_hash, session_epoch: s.session_epoch + 1 }
            : s
        ),
      };
    case "staff_changed":
      return {
        ...state,
        staff: state.staff.map((s) => s.id === event.staff_id ? { ...s, ...event.changes } : s),
      };
    // The person's sessions fail authenticate_staff from now on, and the e-mail is free again.
    case "staff_removed":
      return { ...state, staff: state.staff.filter((s) => s.id !== event.staff_id) };
    default:
      return unreachable(event);
  }
}

function indexes(state: BusinessState): IndexEntry[] {
  if (state === null) return [];
  const credentials = [
    state.api_key,
    state.legacy_api_key,
    ...state.partner_keys.filter((k) => k.revoked_at === null),
  ].flatMap((k) => k === null ? [] : [{ index: "credential", key: k.hash }]);
  return [
    ...credentials,
    ...state.partner_keys.map((k) => ({ index: "partner_key", key: k.id })),
    ...state.staff.map((s) => ({ index: "staff_email", key: s.email })),
  ];
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
    webhook_url: b.profile.webhook_url,
    billing_contact: b.profile.billing_contact,
    low_balance_threshold: thresholdAmount(b.profile.low_balance_threshold),
  };
}

export const businessActor: ActorDefinition<
  BusinessState,
  BusinessCommand,
  BusinessEvent,
  BusinessReply
> = {
  type: "business",
  version: 1,
  initial: null,
  decide,
  evolve,
  indexes,
  // An e-mail signs in to one portal user.
  uniqueIndexes: ["staff_email"],
  project: (s) => s === null ? null : publicView(s),
  // The webhook secret, even sealed, stays in the state, off the log and the bus (as an outbound
  // event's target): those are read far more widely than the state. Events logged with it by
  // earlier versions still evolve to the same state.
  logged,
};

function logged(e: BusinessEvent): unknown {
  switch (e.kind) {
    case "business_created": {
      const { webhook_secret, webhook_secret_previous: _, ...business } = e.business;
      return { ...e, business: { ...business, webhook_secret: secretMention(webhook_secret) } };
    }
    case "webhook_secret_rotated":
      return { ...e, secret: secretMention(e.secret) };
    default:
      return e;
  }
}

/** One line of the audit trail: what changed and who changed it, never a hash or a secret. */
export function auditDetail(event: BusinessEvent): { by: By; detail: Record<string, unknown> } {
  switch (event.kind) {
    case "business_created":
      return {
        by: "operator",
        detail: { name: event.business.profile.name, plan: event.business.plan },
      };
    case "settings_changed":
      return { by: event.by, detail: { changes: event.changes } };
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
