/**
 * A business's packing slip settings (Business API 2.6, 4.1 GET and PUT
 * /business/packing-slip-settings): whether slips show prices, and the returns note printed on
 * each. Tenant and id: the business.
 */
import { accept, type ActorDefinition, unreachable } from "../../src/runtime/actor.ts";
import {
  PACKING_SLIP_DEFAULTS,
  type PackingSlipSettings,
} from "../../src/business/rules/documents/facts.ts";

export interface PackingSlipSettingsState extends PackingSlipSettings {
  readonly updated_at: number | null;
}

export type PackingSlipSettingsCommand =
  /** A field left out keeps its value; `returns_note: null` removes the note. */
  | { kind: "set"; show_prices?: boolean; returns_note?: string | null }
  | { kind: "get" };

export type PackingSlipSettingsEvent = {
  kind: "packing_slip_settings_set";
  show_prices: boolean;
  returns_note: string | null;
  at: number;
};

export const packingSlipSettingsActor: ActorDefinition<
  PackingSlipSettingsState,
  PackingSlipSettingsCommand,
  PackingSlipSettingsEvent,
  PackingSlipSettingsState
> = {
  type: "packing_slip_settings",
  version: 1,
  initial: { ...PACKING_SLIP_DEFAULTS, updated_at: null },
  decide(state, command, ctx) {
    switch (command.kind) {
      case "set":
        return accept(
          [{
            kind: "packing_slip_settings_set",
            show_prices: command.show_prices ?? state.show_prices,
            returns_note: command.returns_note === undefined
              ? state.returns_note
              : command.returns_note,
            at: ctx.now,
          }],
          (s) => s,
        );
      case "get":
        return accept([], () => state);
      case "timer":
        return accept([]);
      default:
        return unreachable(command);
    }
  },
  evolve: (_state, e) => ({
    show_prices: e.show_prices,
    returns_note: e.returns_note,
    updated_at: e.at,
  }),
};
