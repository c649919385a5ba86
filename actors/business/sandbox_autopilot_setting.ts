/**
 * A sandbox business's autopilot setting (Business API 4.4 PUT /business/sandbox/autopilot): the
 * scenario each trip booked afterwards runs, and its step_seconds; `off` stops it. Tenant and id:
 * the business.
 */
import { accept, type ActorDefinition, unreachable } from "../../src/runtime/actor.ts";
import {
  type AutopilotScenario,
  STEP_SECONDS_DEFAULT,
} from "../../src/business/rules/sandbox_steps.ts";

export interface AutopilotSetting {
  readonly scenario: AutopilotScenario;
  readonly step_seconds: number;
  readonly updated_at: number | null;
}

/** spec: business 4.4: until set, the autopilot is off. */
export const AUTOPILOT_OFF: AutopilotSetting = {
  scenario: "off",
  step_seconds: STEP_SECONDS_DEFAULT,
  updated_at: null,
};

export type AutopilotSettingCommand =
  | { kind: "set"; scenario: AutopilotScenario; step_seconds: number }
  | { kind: "get" };

export type AutopilotSettingEvent = {
  kind: "autopilot_set";
  scenario: AutopilotScenario;
  step_seconds: number;
  at: number;
};

export const sandboxAutopilotSettingActor: ActorDefinition<
  AutopilotSetting,
  AutopilotSettingCommand,
  AutopilotSettingEvent,
  AutopilotSetting
> = {
  type: "sandbox_autopilot_setting",
  version: 1,
  initial: AUTOPILOT_OFF,
  decide(state, command, ctx) {
    switch (command.kind) {
      case "set":
        return accept(
          [{
            kind: "autopilot_set",
            scenario: command.scenario,
            step_seconds: command.step_seconds,
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
  evolve: (_state, e) => ({ scenario: e.scenario, step_seconds: e.step_seconds, updated_at: e.at }),
};
