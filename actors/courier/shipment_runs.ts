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
 *
 * It also names the one run a shipment is planned on for delivery (courier 3.4: one shipment,
 * one run that carries it out), claimed in its turn, so of two runs planning it at once one wins.
 * A claim is replaced only by a caller that names it, once the run holding it has let it go
 * (src/courier/flows/runs/planning.ts).
 */
import {
  accept,
  type ActorDefinition,
  type Decision,
  reject,
  unreachable,
} from "../../src/runtime/actor.ts";

/** Runs kept per shipment, the most recent last; one that boarded more is long off the first. */
export const SHIPMENT_RUNS_MAX = 20;

/** The run a shipment is planned on for delivery, and its claim's number. */
export interface PlannedOn {
  readonly run_id: string;
  readonly claim: number;
  /** The run a transfer passed the claim from: it has the shipment until the target takes it. */
  readonly from_run?: string;
}

export interface ShipmentRuns {
  readonly runs: readonly string[];
  readonly cold_chain: boolean;
  /** Absent or null: planned on no run (or only before claims were kept). */
  readonly planned_on?: PlannedOn | null;
  /** Claims made so far, so each has its own number. */
  readonly claims?: number;
  /**
   * Cold-chain reservations asked so far (each `cold_chain` true counts one), so a profile the
   * sample refused takes back only its own: not one another profile made since.
   */
  readonly cold_reservations?: number;
}

export type ShipmentRunsCommand =
  | { kind: "board"; run_id: string }
  /**
   * `undo`: the reservation (its number) a refused profile takes back: the flag is left as it is
   * when another was made since (that profile's reservation stands).
   */
  | { kind: "cold_chain"; cold: boolean; undo?: number }
  /**
   * The shipment is planned on run_id: refused `planned_on_another_run` while another run holds
   * the claim, unless `replacing` names that claim (the run holding it let it go).
   */
  | { kind: "plan"; run_id: string; replacing?: number; from_run?: string }
  | { kind: "get" };

export type ShipmentRunsEvent =
  | { kind: "boarded"; run_id: string }
  | { kind: "cold_chain_set"; cold: boolean; reservation?: number }
  | { kind: "planned"; planned_on: PlannedOn };

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
        return coldChain(state, command, reply);
      case "plan":
        return plan(state, command, reply);
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
        return {
          ...state,
          cold_chain: event.cold,
          ...(event.reservation === undefined ? {} : { cold_reservations: event.reservation }),
        };
      case "planned":
        return { ...state, planned_on: event.planned_on, claims: event.planned_on.claim };
    }
  },
};

/**
 * spec: courier 2.10: a cold-chain profile reserves cold slots (numbered); a release says which
 * reservation it takes back, decided here in the actor's turn, so a profile refused while another
 * was made since never releases the slots of a sample that is cold.
 */
function coldChain(
  state: ShipmentRuns,
  c: Extract<ShipmentRunsCommand, { kind: "cold_chain" }>,
  reply: (next: ShipmentRuns) => ShipmentRunsReply,
): Decision<ShipmentRuns, ShipmentRunsEvent, ShipmentRunsReply> {
  const set = (events: readonly ShipmentRunsEvent[]) =>
    accept<ShipmentRuns, ShipmentRunsEvent, ShipmentRunsReply>(events, reply);
  if (c.cold) {
    return set([{
      kind: "cold_chain_set",
      cold: true,
      reservation: (state.cold_reservations ?? 0) + 1,
    }]);
  }
  if (c.undo !== undefined && c.undo !== (state.cold_reservations ?? 0)) return set([]);
  if (!state.cold_chain) return set([]);
  return set([{ kind: "cold_chain_set", cold: false }]);
}

/** spec: courier 3.4: one run plans a shipment's delivery; a claim its run let go is replaced. */
function plan(
  state: ShipmentRuns,
  c: Extract<ShipmentRunsCommand, { kind: "plan" }>,
  reply: (next: ShipmentRuns) => ShipmentRunsReply,
): Decision<ShipmentRuns, ShipmentRunsEvent, ShipmentRunsReply> {
  const held = state.planned_on ?? null;
  if (held?.run_id === c.run_id) {
    return accept<ShipmentRuns, ShipmentRunsEvent, ShipmentRunsReply>([], reply);
  }
  if (held !== null && held.claim !== c.replacing) {
    return reject(
      "planned_on_another_run",
      `the shipment is planned on run ${held.run_id}`,
      { ...held },
    );
  }
  const planned_on = {
    run_id: c.run_id,
    claim: (state.claims ?? 0) + 1,
    ...(c.from_run ? { from_run: c.from_run } : {}),
  };
  return accept<ShipmentRuns, ShipmentRunsEvent, ShipmentRunsReply>([{
    kind: "planned",
    planned_on,
  }], reply);
}
