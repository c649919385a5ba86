/**
 * The business account's decisions (Business API 4.3, 5; CONTRACT operator API): the account is
 * made once; its settings and profile change; its keys and people are decided in keys.ts and
 * people.ts.
 */
import { reject, type TimerFired, unreachable } from "../../../src/runtime/actor.ts";
import { ok } from "./accepted.ts";
import { authenticateKey, decideKeys } from "./keys.ts";
import { decidePeople, decideStaffSignIn } from "./people.ts";
import type { Business, BusinessCommand, BusinessState, Plan, Profile, Settings } from "./types.ts";

const DEFAULT_SETTINGS: Settings = {
  courier_platform_enabled: false,
  shopping_fulfilment_enabled: false,
  api_key_scopes: [],
  vehicle_upgrade_policy: "upgrade",
  bulky_services_authorised: [],
  rate_limit_per_minute: null,
  rate_limit_per_day: null,
  billing_type: "wallet",
  credit_limit: null,
  custody_scanning: false,
};

const OWN_LIMITS = ["rate_limit_per_minute", "rate_limit_per_day"] as const;
/** How a person signed in is named as the maker of a change (principalName). */
const STAFF_BY = "staff:";

export function decide(
  state: BusinessState,
  command: BusinessCommand | TimerFired,
  ctx: { now: number },
) {
  if (command.kind === "create") return create(state, command, ctx.now);
  if (state === null) return reject("not_found", "business not found");
  const signedOut = signedOutSender(state, command);
  if (signedOut) return signedOut;
  switch (command.kind) {
    case "get":
    case "timer":
      return ok([]);
    case "change_settings": {
      const refused = ownLimitsRefused(state.plan, command.changes);
      if (refused) return refused;
      return ok([{ kind: "settings_changed", changes: command.changes, by: command.by }]);
    }
    case "change_profile":
      return changeProfile(state, command);
    case "mark_sandbox_twin":
      return ok(state.sandbox_twin ? [] : [{ kind: "sandbox_twin_marked", by: command.by }]);
    case "rotate_api_key":
    case "import_legacy_key":
    case "rotate_webhook_secret":
    case "bind_webhook_seals":
    case "issue_partner_key":
    case "revoke_partner_key":
      return decideKeys(state, command, ctx.now);
    case "add_staff":
    case "change_password":
    case "change_staff":
    case "remove_staff":
      return decidePeople(state, command, ctx.now);
    case "authenticate_key":
      return authenticateKey(state, command.hash);
    case "authenticate_staff":
    case "staff_for_login":
      return decideStaffSignIn(state, command);
    default:
      return unreachable(command);
  }
}

/**
 * spec: business 5.6: people, credentials and the company record are for the owner or an admin,
 * and a person removed, or made coordinator, holds that at once (their sessions end, the new role
 * applies): a change they sent before it is refused when it arrives after. Their own password
 * aside (change_password checks its person and session itself).
 */
function signedOutSender(state: Business, command: BusinessCommand | TimerFired) {
  if (
    !("by" in command) || !command.by.startsWith(STAFF_BY) || command.kind === "change_password"
  ) {
    return null;
  }
  const sender = state.staff.find((s) => s.id === command.by.slice(STAFF_BY.length));
  if (!sender) {
    return reject("unauthenticated", "the session was signed out: the person was removed");
  }
  if (sender.role === "coordinator") {
    return reject("portal_admin_only", "this action is for a portal admin; coordinators cannot");
  }
  return null;
}

function create(
  state: BusinessState,
  command: Extract<BusinessCommand, { kind: "create" }>,
  now: number,
) {
  if (state !== null) return reject("already_exists", `business exists: ${command.id}`);
  const { kind: _, owner, ...rest } = command;
  const business: Business = {
    ...rest,
    created_at: now,
    profile: {
      name: command.name,
      billing_contact: null,
      webhook_url: null,
      low_balance_threshold: null,
    },
    settings: DEFAULT_SETTINGS,
    legacy_api_key: null,
    partner_keys: [],
    staff: [{ ...owner, session_epoch: 0, created_at: now }],
    references_keyed: true,
  };
  return ok([{ kind: "business_created", business }]);
}

function changeProfile(
  state: Business,
  command: Extract<BusinessCommand, { kind: "change_profile" }>,
) {
  // Only what differs is a change: the same request again records (and e-mails) nothing.
  const changes = Object.fromEntries(
    Object.entries(command.changes).filter(([field, value]) =>
      value !== (state.profile[field as keyof Profile] ?? null)
    ),
  ) as Partial<Profile>;
  if (Object.keys(changes).length === 0) return ok([]);
  return ok([{ kind: "profile_changed", changes, by: command.by }]);
}

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
