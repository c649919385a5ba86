/**
 * The sandbox autopilot of one trip (Business API 4.4 "Autopilot scenarios"): its scenario, the
 * next step, the tries of a refused step. A durable timer brings each step due; the due step goes
 * to the autopilot's outbox in the same commit, whose handler runs it through the same step flow
 * as POST /business/sandbox/trips/{reference}/{step} and answers the outcome here, which sets the
 * next timer. A restart finds the timer or the outbox item where the crash left them. Tenant: the
 * business; id: the trip's reference.
 */
import { accept, type ActorDefinition, reject, unreachable } from "../../src/runtime/actor.ts";
import {
  AUTOPILOT_TRIES_MAX,
  type AutopilotScenario,
  type SandboxStep,
  SCENARIO_STEPS,
} from "../../src/business/rules/sandbox_steps.ts";

export type RunningScenario = Exclude<AutopilotScenario, "off">;

/** A step the trip's rules refused, as the driver app would have been told. */
export interface AutopilotRefusal {
  readonly step: SandboxStep;
  readonly code: string;
  readonly message: string;
  readonly at: number;
}

export interface AutopilotTrip {
  readonly business_id: string;
  readonly reference: string;
  readonly scenario: RunningScenario;
  readonly step_seconds: number;
  /**
   * Who started it: the business's setting (stopped when the setting is turned off) or the
   * booking's own `sandbox_scenario` (runs to its end).
   */
  readonly source: AutopilotSource;
  /** The index in the scenario's steps of the next step to run. */
  readonly next: number;
  /** Refusals of the next step so far. */
  readonly tries: number;
  /**
   * moving: steps remain; done: all ran; gave_up: left for manual moves (spec: business 4.4);
   * stopped: the setting that started it was turned off (`off` stops it), or the trip ended
   * otherwise (cancelled by the business) and can take no more moves.
   */
  readonly status: "moving" | "done" | "gave_up" | "stopped";
  readonly refusal: AutopilotRefusal | null;
  readonly started_at: number;
  /**
   * spec: business 3.1, 4.4: when live dispatch offers the trip (a prep order's or a scheduled
   * trip's offer time, brought forward by readiness); the first step waits for it. Absent: at once.
   */
  readonly offer_at?: number | undefined;
}

export type AutopilotState = AutopilotTrip | null;

export type AutopilotSource = "setting" | "booking";

/** A due step handed to the outbox's handler. */
export interface AutopilotItem {
  readonly business_id: string;
  readonly reference: string;
  readonly index: number;
  readonly step: SandboxStep;
  readonly source: AutopilotSource;
}

export const AUTOPILOT_OUTBOX = "sandbox_autopilot";
/** The index of the trips the autopilot moves or gave up on: `<business>:<status>:<reference>`. */
export const AUTOPILOT_INDEX = "sandbox_autopilot";
const STEP_TIMER = "step";

export type AutopilotCommand =
  | {
    kind: "start";
    business_id: string;
    reference: string;
    scenario: RunningScenario;
    step_seconds: number;
    source: AutopilotSource;
    /** When live dispatch offers the trip (absent: at once). */
    offer_at?: number | undefined;
  }
  /** The trip was marked ready: live dispatch offers it now (spec: business 3.1). */
  | { kind: "offerable" }
  | { kind: "step_done"; index: number }
  | { kind: "stop"; index: number }
  | { kind: "step_refused"; index: number; code: string; message: string }
  /** Its trip ended (delivered, returned, cancelled): no moves are left. */
  | { kind: "trip_ended" }
  | { kind: "get" };

export type AutopilotEvent =
  | { kind: "autopilot_started"; trip: AutopilotTrip }
  | { kind: "step_due"; index: number; at: number }
  | { kind: "autopilot_offerable"; at: number }
  | { kind: "step_succeeded"; index: number; at: number }
  | { kind: "autopilot_stopped"; index: number; at: number }
  | { kind: "step_refused"; refusal: AutopilotRefusal; gave_up: boolean };

export function stepsOf(t: AutopilotTrip): readonly SandboxStep[] {
  return SCENARIO_STEPS[t.scenario];
}

const reply = (s: AutopilotState) => s as AutopilotTrip;

export const sandboxAutopilotActor: ActorDefinition<
  AutopilotState,
  AutopilotCommand,
  AutopilotEvent,
  AutopilotTrip
> = {
  type: "sandbox_autopilot",
  noun: "autopilot",
  version: 1,
  initial: null,
  decide(state, command, ctx) {
    const later =
      () => [{ op: "set" as const, name: STEP_TIMER, at: ctx.now + state!.step_seconds * 1000 }];
    switch (command.kind) {
      case "start": {
        // One scenario a trip: a second start (a booking's retry) answers the first.
        if (state !== null) return accept([], reply);
        const { kind: _, ...given } = command;
        const trip: AutopilotTrip = {
          ...given,
          next: 0,
          tries: 0,
          status: "moving",
          refusal: null,
          started_at: ctx.now,
        };
        // spec: business 3.1, 4.4: the simulated driver takes the trip when live dispatch would
        // offer it, a step after.
        const from = Math.max(ctx.now, trip.offer_at ?? ctx.now);
        return accept([{ kind: "autopilot_started", trip }], reply, [
          { op: "set", name: STEP_TIMER, at: from + trip.step_seconds * 1000 },
        ]);
      }
      case "offerable":
        // Only a first step still waiting for a later offer is brought forward (ready twice, or
        // ready once offered, changes nothing).
        if (
          state === null || state.status !== "moving" || state.next !== 0 ||
          (state.offer_at ?? 0) <= ctx.now
        ) return accept([], reply);
        return accept([{ kind: "autopilot_offerable", at: ctx.now }], reply, later());
      case "timer":
        if (state === null || state.status !== "moving") return accept([]);
        return accept([{ kind: "step_due", index: state.next, at: ctx.now }]);
      case "step_done":
        // An outcome already recorded (the handler ran again after a crash) changes nothing.
        if (state === null || state.status !== "moving" || command.index !== state.next) {
          return accept([], reply);
        }
        return accept(
          [{ kind: "step_succeeded", index: command.index, at: ctx.now }],
          reply,
          state.next + 1 < stepsOf(state).length ? later() : [],
        );
      case "stop":
        // spec: business 4.4 "off stops it" (or the trip ended): nothing more is due.
        if (state === null || state.status !== "moving" || command.index !== state.next) {
          return accept([], reply);
        }
        return accept([{ kind: "autopilot_stopped", index: command.index, at: ctx.now }], reply);
      case "trip_ended":
        // Ended by its own last step, or by hand or the business: nothing more is due, and a
        // trip given up is no longer left for manual moves (spec: business 4.4).
        if (state === null || (state.status !== "moving" && state.status !== "gave_up")) {
          return accept([], reply);
        }
        return accept([{ kind: "autopilot_stopped", index: state.next, at: ctx.now }], reply);
      case "step_refused": {
        if (state === null || state.status !== "moving" || command.index !== state.next) {
          return accept([], reply);
        }
        const gave_up = state.tries + 1 >= AUTOPILOT_TRIES_MAX;
        const refusal: AutopilotRefusal = {
          step: stepsOf(state)[state.next]!,
          code: command.code,
          message: command.message,
          at: ctx.now,
        };
        return accept([{ kind: "step_refused", refusal, gave_up }], reply, gave_up ? [] : later());
      }
      case "get":
        return state === null
          ? reject("not_found", "no autopilot for this trip")
          : accept([], reply);
      default:
        return unreachable(command);
    }
  },
  evolve(state, event) {
    if (event.kind === "autopilot_started") return event.trip;
    if (state === null) throw new Error(`${event.kind} before autopilot_started`);
    switch (event.kind) {
      case "step_due":
        return state;
      case "autopilot_offerable":
        return { ...state, offer_at: event.at };
      case "step_succeeded": {
        const next = event.index + 1;
        const status = next < stepsOf(state).length ? "moving" : "done";
        return { ...state, next, tries: 0, status, refusal: null };
      }
      case "autopilot_stopped":
        return { ...state, status: "stopped" };
      case "step_refused":
        return {
          ...state,
          tries: state.tries + 1,
          refusal: event.refusal,
          status: event.gave_up ? "gave_up" : "moving",
        };
      default:
        return unreachable(event);
    }
  },
  outbox: (e, next) => {
    if (e.kind !== "step_due" || next === null) return [];
    const item: AutopilotItem = {
      business_id: next.business_id,
      reference: next.reference,
      index: e.index,
      step: stepsOf(next)[e.index]!,
      source: next.source,
    };
    return [{ outbox: AUTOPILOT_OUTBOX, payload: item }];
  },
  indexes: (s) =>
    s === null || s.status === "done" || s.status === "stopped"
      ? []
      : [{ index: AUTOPILOT_INDEX, key: `${s.business_id}:${s.status}:${s.reference}` }],
};
