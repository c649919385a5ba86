/**
 * The network runs one shipment has boarded, and whether a cold-chain profile was asked for it:
 * the index from waybill to runs that a cold-chain profile set after boarding needs, so each run
 * counts the shipment's cold slots against its capacity (courier 2.10 cold slots; 5 runs:override
 * overrides capacity, so it is never exceeded silently).
 *
 * Both facts live in one actor so boarding and the profile are ordered: a boarding either comes
 * first (the profile finds the run and reserves its cold slots there) or sees the flag (its load
 * counts them). `cold_chain` false says nothing by itself: the laboratory sample is read then
 * (samples profiled before this actor existed).
 */
import { accept, type ActorDefinition, unreachable } from "../../src/runtime/actor.ts";

/** Runs kept per shipment, the most recent last; one that boarded more is long off the first. */
export const SHIPMENT_RUNS_MAX = 20;

export interface ShipmentRuns {
  readonly runs: readonly string[];
  readonly cold_chain: boolean;
}

export type ShipmentRunsCommand =
  | { kind: "board"; run_id: string }
  | { kind: "cold_chain"; cold: boolean }
  | { kind: "get" };

export type ShipmentRunsEvent =
  | { kind: "boarded"; run_id: string }
  | { kind: "cold_chain_set"; cold: boolean };

/** Every reply is the state after the command, with the flag as it stood before it. */
export interface ShipmentRunsReply extends ShipmentRuns {
  readonly was_cold_chain: boolean;
}

export const shipmentRunsActor: ActorDefinition<
  ShipmentRuns,
  ShipmentRunsCommand,
  ShipmentRunsEvent,
  ShipmentRunsReply
> = {
  type: "shipment_runs",
  version: 1,
  initial: { runs: [], cold_chain: false },
  publishEvents: false,
  decide(state, command) {
    const reply = (next: ShipmentRuns) => ({ ...next, was_cold_chain: state.cold_chain });
    switch (command.kind) {
      case "board":
        if (state.runs.includes(command.run_id)) return accept([], reply);
        return accept([{ kind: "boarded", run_id: command.run_id }], reply);
      case "cold_chain":
        if (state.cold_chain === command.cold) return accept([], reply);
        return accept([{ kind: "cold_chain_set", cold: command.cold }], reply);
      case "get":
      case "timer":
        return accept([], reply);
      default:
        return unreachable(command);
    }
  },
  evolve(state, event) {
    switch (event.kind) {
      case "boarded":
        return { ...state, runs: [...state.runs, event.run_id].slice(-SHIPMENT_RUNS_MAX) };
      case "cold_chain_set":
        return { ...state, cold_chain: event.cold };
    }
  },
};
