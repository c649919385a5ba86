/**
 * A network run (courier 2.10, 3.4, 4.5): a vehicle and driver working a list of stops (deliver,
 * collect, checkpoint) out of a facility. The run decides what its stops allow (capacity, what
 * was reserved, the order of a border crossing, the close rule) and records each outcome with
 * what must follow it (custody moves on each shipment, charges, crossings), which the request
 * does before it answers and the run follow-ups reactor does after a crash
 * (src/courier/flows/runs, src/courier/reactors/run_follow_ups.ts), each once by its key.
 * Tenant = the courier's business id; id = run id.
 */
import type { ActorDefinition } from "../../../src/runtime/actor.ts";
import type { RunCommand, RunReply } from "./commands.ts";
import { decide } from "./decide.ts";
import { evolve, type RunEvent } from "./events.ts";
import { driverIndexes } from "./driver_index.ts";
import { type NetworkRunState, RUN_STATE_BYTES_MAX } from "./run.ts";
import { runSummary } from "./summary.ts";

export * from "./run.ts";
export type * from "./commands.ts";
export type { FollowUpEvent, RunEvent, RunOutcome } from "./events.ts";
export type { LegacyRunEvent, StoredRunEvent } from "./legacy.ts";
export * from "./follow_ups.ts";
export * from "./follow_ups_of.ts";
export * from "./stop_follow_ups.ts";
export * from "./transfer_follow_ups.ts";
export { DRIVER_WAYBILL_INDEX, driverWaybillKey, driverWaybillPrefix } from "./driver_index.ts";
export { type RunSummary, runSummary, type StopAnswer, stopAnswer } from "./summary.ts";
export { asRun, runAt } from "./replay.ts";
export { presentable } from "./stop_changes.ts";
export { deliveryGateOf } from "./customs_gate.ts";
export { stepKeyOf } from "./shipment_gate.ts";

export const networkRunActor: ActorDefinition<NetworkRunState, RunCommand, RunEvent, RunReply> = {
  type: "network_run",
  noun: "run",
  // 2: events state outcomes; the state's shape is as version 1 kept it, loaded as it is.
  // 3: the driver_waybill entries are keyed per run (driver_index.ts); the state is unchanged.
  version: 3,
  indexesChangedAt: 3,
  initial: null,
  decide,
  evolve,
  indexes: driverIndexes,
  // The query side gets the run's standing, not its hundreds of stops (read those from the run).
  project: (s) => s === null ? null : runSummary(s),
  stateBytesMax: RUN_STATE_BYTES_MAX,
  // A stop action's answer is rebuilt from the events on replay: only its seq is kept.
  keptReply: (r) => {
    if (!("answer" in r)) return r;
    const { answer: _answer, ...kept } = r;
    return kept;
  },
};
