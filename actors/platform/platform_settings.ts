/** The operator's service-wide settings (CONTRACT: PUT /operator/settings). One per environment. */
import {
  accept,
  type ActorDefinition,
  invalidFields,
  type Rejection,
  unreachable,
} from "../../src/runtime/actor.ts";

export interface PlatformSettings {
  /** spec: courier 2.2 rule 2, 8: prices are held this many minutes (default 30). */
  readonly price_hold_minutes: number;
  /** spec: business 3.1: prep orders are offered this many minutes before ready (default 12). */
  readonly prep_offer_lead_minutes: number;
  /**
   * Ports besides 443 that webhook and billing endpoint addresses may use (default none),
   * checked when an address is saved and at every delivery attempt (src/outbound/url_guard.ts).
   */
  readonly webhook_ports: readonly number[];
  /** spec: business 1.2: an offer expires after this many seconds (default 30). */
  readonly dispatch_offer_seconds: number;
  /** spec: business 3.1: no acceptance this long after the first offer cancels (default 15). */
  readonly dispatch_window_minutes: number;
  /** spec: business 3.1: a scheduled trip is offered this long before scheduled_at (default 15). */
  readonly schedule_offer_lead_minutes: number;
  /** spec: business 2.4 rule 3: positions older than this are stale (default 60). */
  readonly position_fresh_seconds: number;
}

const DEFAULTS: PlatformSettings = {
  price_hold_minutes: 30,
  prep_offer_lead_minutes: 12,
  webhook_ports: [],
  dispatch_offer_seconds: 30,
  dispatch_window_minutes: 15,
  schedule_offer_lead_minutes: 15,
  position_fresh_seconds: 60,
};

export const PLATFORM_TENANT = "platform";
export const PLATFORM_SETTINGS_ID = "settings";

export type PlatformSettingsCommand =
  | { kind: "change"; changes: Partial<PlatformSettings>; by: string }
  | { kind: "get" };

export type PlatformSettingsEvent = {
  kind: "platform_settings_changed";
  changes: Partial<PlatformSettings>;
  by: string;
};

export const platformSettingsActor: ActorDefinition<
  PlatformSettings,
  PlatformSettingsCommand,
  PlatformSettingsEvent,
  PlatformSettings
> = {
  type: "platform_settings",
  version: 1,
  initial: DEFAULTS,
  // Settings stored before a setting existed take its default.
  load: (stored) => ({ ...DEFAULTS, ...(stored as Partial<PlatformSettings>) }),
  decide(state, command) {
    switch (command.kind) {
      case "change":
        return clash({ ...state, ...command.changes }) ?? accept(
          [{ kind: "platform_settings_changed", changes: command.changes, by: command.by }],
          (s) => s,
        );
      case "get":
      case "timer":
        return accept([], (s) => s);
      default:
        return unreachable(command);
    }
  },
  evolve(state, event) {
    return { ...state, ...event.changes };
  },
  project: (s) => s,
};

/**
 * Settings that are each within bounds but refuse each other as a whole: a dispatch window
 * shorter than one offer would cancel a trip (business 3.1 "no driver answers") while its first
 * driver may still accept.
 */
function clash(s: PlatformSettings): Rejection | null {
  if (s.dispatch_window_minutes * 60 >= s.dispatch_offer_seconds) return null;
  return invalidFields([{
    path: "dispatch_window_minutes",
    message: `the dispatch window (${s.dispatch_window_minutes} min) must last at least one ` +
      `offer (dispatch_offer_seconds ${s.dispatch_offer_seconds})`,
  }]);
}
