/**
 * A business's shopping fulfilment settings (shopping 2.1, 4): its webhook URL, its `shf_` secret
 * (sealed, as every webhook secret), the decision window and the receipt links' life. Tenant and
 * id: the business. The operator's switch (`enabled`) is the business account's.
 */
import type { WebhookSecret } from "../../src/domain/credentials.ts";
import type { SealedSecret } from "../../src/domain/secrets.ts";
import { secretMention } from "../../src/domain/credentials.ts";
import { accept, type ActorDefinition, unreachable } from "../../src/runtime/actor.ts";
import {
  SHOPPING_SETTINGS_DEFAULT,
  type ShoppingSettings,
} from "../../src/shopping/rules/settings.ts";

export interface ShoppingCapability extends ShoppingSettings {
  /** spec: shopping 2.1: shown once when rotated; null until the first rotation. */
  readonly webhook_secret: WebhookSecret | null;
  /**
   * The key the business's signed links (receipt photos, packing slips) are signed with: random,
   * sealed, made when the first link is; never shown. Absent on settings stored before it.
   */
  readonly link_key?: SealedSecret | null;
  readonly updated_at: number | null;
}

export const SHOPPING_CAPABILITY_INITIAL: ShoppingCapability = {
  ...SHOPPING_SETTINGS_DEFAULT,
  webhook_secret: null,
  link_key: null,
  updated_at: null,
};

export type ShoppingCapabilityCommand =
  | { kind: "change"; changes: Partial<ShoppingSettings>; by: string }
  | { kind: "rotate_secret"; secret: WebhookSecret; by: string }
  /** Keeps `key` as the link key unless one is held (the first one made stands). */
  | { kind: "make_link_key"; key: SealedSecret }
  | { kind: "get" };

export type ShoppingCapabilityEvent =
  | { kind: "settings_changed"; changes: Partial<ShoppingSettings>; at: number; by: string }
  | { kind: "secret_rotated"; secret: WebhookSecret; at: number; by: string }
  | { kind: "link_key_made"; key: SealedSecret; at: number };

export const shoppingCapabilityActor: ActorDefinition<
  ShoppingCapability,
  ShoppingCapabilityCommand,
  ShoppingCapabilityEvent,
  ShoppingCapability
> = {
  type: "shopping_capability",
  noun: "shopping fulfilment settings",
  version: 1,
  initial: SHOPPING_CAPABILITY_INITIAL,
  decide(state, command, ctx) {
    switch (command.kind) {
      case "change":
        return accept(
          [{ kind: "settings_changed", changes: command.changes, at: ctx.now, by: command.by }],
          (s) => s,
        );
      case "rotate_secret":
        return accept(
          [{ kind: "secret_rotated", secret: command.secret, at: ctx.now, by: command.by }],
          (s) => s,
        );
      case "make_link_key":
        if (state.link_key) return accept([], () => state);
        return accept([{ kind: "link_key_made", key: command.key, at: ctx.now }], (s) => s);
      case "get":
        return accept([], () => state);
      case "timer":
        return accept([]);
      default:
        return unreachable(command);
    }
  },
  evolve(state, e) {
    switch (e.kind) {
      case "settings_changed":
        return { ...state, ...e.changes, updated_at: e.at };
      case "secret_rotated":
        // spec: shopping 4: in force at once, for retries of older events too (no grace period).
        return { ...state, webhook_secret: e.secret, updated_at: e.at };
      case "link_key_made":
        return { ...state, link_key: e.key };
      default:
        return unreachable(e);
    }
  },
  // The sealed secret stays in the state, off the log and the bus (as the business's own).
  logged: (e) =>
    e.kind === "secret_rotated"
      ? { ...e, secret: secretMention(e.secret) }
      : e.kind === "link_key_made"
      ? { kind: e.kind, at: e.at }
      : e,
  project: (s) => {
    const { webhook_secret, link_key: _, ...rest } = s;
    return { ...rest, webhook_secret_set: webhook_secret !== null };
  },
};
