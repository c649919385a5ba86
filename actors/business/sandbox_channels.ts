/**
 * A partner sales channel of a sandbox business (Business API 5.9, 6 last line): the business it
 * books for and its signing key, sealed (an HS256 key must be usable to verify, so it is kept
 * encrypted, never only hashed). Tenant: the platform; id: the channel's `source`, so the public
 * events route finds it from its path alone. Each grant replaces the key (shown once).
 */
import type { SealedSecret } from "../../src/domain/secrets.ts";
import { accept, type ActorDefinition, reject, unreachable } from "../../src/runtime/actor.ts";

export interface StorefrontChannel {
  readonly source: string;
  readonly business_id: string;
  readonly signing_key: SealedSecret;
  readonly key_id: string;
  readonly granted_at: number;
}

export type StorefrontChannelState = StorefrontChannel | null;

export type StorefrontChannelCommand =
  | {
    kind: "grant";
    source: string;
    business_id: string;
    signing_key: SealedSecret;
    key_id: string;
  }
  | { kind: "get" };

export type StorefrontChannelEvent = { kind: "channel_key_granted"; channel: StorefrontChannel };

export const storefrontChannelActor: ActorDefinition<
  StorefrontChannelState,
  StorefrontChannelCommand,
  StorefrontChannelEvent,
  StorefrontChannelState
> = {
  type: "storefront_channel",
  noun: "channel",
  version: 1,
  initial: null,
  decide(state, command, ctx) {
    switch (command.kind) {
      case "grant": {
        // A channel books for one business ever: another's grant of the name is refused.
        if (state && state.business_id !== command.business_id) {
          return reject("already_exists", `channel belongs to another business: ${state.source}`);
        }
        const { kind: _, ...rest } = command;
        return accept(
          [{ kind: "channel_key_granted", channel: { ...rest, granted_at: ctx.now } }],
          (s) => s,
        );
      }
      case "get":
      case "timer":
        return accept([], (s) => s);
      default:
        return unreachable(command);
    }
  },
  evolve: (_s, e) => e.channel,
  // Nothing downstream reads channels: no snapshot, and the sealed key never crosses the bus.
  publishEvents: false,
};
