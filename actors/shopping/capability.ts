/**
 * A business's shopping fulfilment settings (shopping 2.1, 4): its webhook URL, its `shf_` secret
 * (sealed, as every webhook secret), the decision window and the receipt links' life. Tenant and
 * id: the business. The operator's switch (`enabled`) is the business account's.
 */
import type { WebhookSecret } from "../../src/domain/credentials.ts";
import type { SealedSecret } from "../../src/domain/secrets.ts";
import { secretMention } from "../../src/domain/credentials.ts";
import {
  accept,
  type ActorDefinition,
  type OutboxAdd,
  unreachable,
} from "../../src/runtime/actor.ts";
import {
  SHOPPING_OWNER_NOTICE_OUTBOX,
  SHOPPING_SETTINGS_DEFAULT,
  type ShoppingOwnerNoticeItem,
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
      case "change": {
        // spec: business 5.6: what differs from what is held is the change, so the same request
        // again records, and e-mails the owner, nothing.
        const changes = changedSettings(state, command.changes);
        if (Object.keys(changes).length === 0) return accept([], () => state);
        return accept(
          [{ kind: "settings_changed", changes, at: ctx.now, by: command.by }],
          (s) => s,
        );
      }
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
  // spec: business 5.6: the owner is e-mailed of a changed webhook address or secret.
  outbox: (e) => ownerNotice(e),
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

/** The settings of `changes` that differ from those held. */
function changedSettings(
  held: ShoppingCapability,
  changes: Partial<ShoppingSettings>,
): Partial<ShoppingSettings> {
  return Object.fromEntries(
    Object.entries(changes).filter(([k, v]) =>
      v !== undefined && v !== held[k as keyof ShoppingSettings]
    ),
  );
}

/**
 * The owner's e-mail a change calls for (business 5.6): the business is the item's tenant; a
 * secret is named by its key id, never held.
 */
function ownerNotice(e: ShoppingCapabilityEvent): readonly OutboxAdd[] {
  let item: ShoppingOwnerNoticeItem;
  if (e.kind === "settings_changed" && e.changes.webhook_url !== undefined) {
    const webhook_url = e.changes.webhook_url;
    item = { by: e.by, cause: "shopping_webhook_url_changed", webhook_url };
  } else if (e.kind === "secret_rotated") {
    item = { by: e.by, cause: "shopping_webhook_secret_rotated", key_id: e.secret.key_id };
  } else return [];
  return [{ outbox: SHOPPING_OWNER_NOTICE_OUTBOX, payload: item }];
}
