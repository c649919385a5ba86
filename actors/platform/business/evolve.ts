/** The business account's state after each of its events: applied, never decided again. */
import { retire } from "../../../src/domain/credentials.ts";
import { unreachable } from "../../../src/runtime/actor.ts";
import type { BusinessEvent, BusinessState, Staff } from "./types.ts";

export function evolve(state: BusinessState, event: BusinessEvent): BusinessState {
  if (event.kind === "business_created") return event.business;
  if (state === null) throw new Error(`${event.kind} before business_created`);
  switch (event.kind) {
    case "settings_changed":
      return { ...state, settings: { ...state.settings, ...event.changes } };
    case "profile_changed":
      return { ...state, profile: { ...state.profile, ...event.changes } };
    // Its people's e-mails are no longer claimed (indexes in mod.ts).
    case "sandbox_twin_marked":
      return { ...state, sandbox_twin: true };
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
    case "webhook_seals_bound":
      return {
        ...state,
        webhook_secret: event.secret ?? state.webhook_secret,
        webhook_secret_previous: event.previous ?? state.webhook_secret_previous ?? null,
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
        staff: state.staff.map((s) => s.id === event.staff_id ? keptThrough(s, event) : s),
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

/** A password change: sessions of earlier epochs signed out, but for the one it keeps. */
function keptThrough(
  s: Staff,
  event: Extract<BusinessEvent, { kind: "password_changed" }>,
): Staff {
  const { kept_session: _, ...rest } = s;
  return {
    ...rest,
    password_hash: event.password_hash,
    session_epoch: s.session_epoch + 1,
    ...(event.kept_session === undefined ? {} : { kept_session: event.kept_session }),
  };
}
