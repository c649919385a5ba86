/**
 * A run's step on a shipment (delivered, collected, attempted, transferred) and operations closing it
 * (returned, cancelled, delivered by a scan), one after the other (courier 3.4: an item's end
 * state is what happened to it; a parcel is in one state at a time). The step's request reserves
 * the shipment under the step's key, the key of the custody move it makes, before the run
 * records it (refused once the shipment is closed). A scan closing the shipment that meets the
 * reservation has the run void the step first, in the run's turn, so the step recorded after is
 * refused; a step the run recorded first stands, and the scan waits for its custody move
 * (src/courier/flows/run_steps.ts).
 */
import { reject } from "../../../src/runtime/actor.ts";
import type { RunChange } from "./commands.ts";
import { custodyKey } from "./follow_ups.ts";
import type { NetworkRun } from "./run.ts";
import { entry, SAME, type Step } from "./step.ts";

/** A stop's step on a shipment, as its custody move is keyed (stop_follow_ups.ts). */
export function stepOf(
  runId: string,
  stopId: string,
  action: "deliver" | "fail" | "collect",
  waybill: string,
): string {
  return action === "collect"
    ? `${runId}:${stopId}:collect:${waybill}`
    : `${runId}:${stopId}:${action}`;
}

/** The key of a stop's step on a shipment: the key its custody move is recorded under. */
export function stepKeyOf(
  runId: string,
  stopId: string,
  action: "deliver" | "fail" | "collect",
  waybill: string,
): string {
  return custodyKey(stepOf(runId, stopId, action, waybill), waybill);
}

/** Refused `shipment_closed` when operations closed the shipment while the step was under way. */
export function voidedStep(run: NetworkRun, key: string, waybill: string) {
  if (!(run.voided_steps ?? []).includes(key)) return null;
  return reject(
    "shipment_closed",
    `${waybill} is closed: operations closed it while run ${run.id} was recording this step`,
  );
}

/** Whether the run recorded the step `key` on `waybill`; null: the run has no such step. */
function recorded(run: NetworkRun, key: string, waybill: string): boolean | null {
  for (const s of run.stops) {
    if (key === stepKeyOf(run.id, s.id, "deliver", waybill)) return s.status === "done";
    if (key === stepKeyOf(run.id, s.id, "fail", waybill)) return s.status === "failed";
    if (key === stepKeyOf(run.id, s.id, "collect", waybill)) {
      return s.collected.some((x) => x.waybill === waybill);
    }
  }
  // A transfer's step (transfer_follow_ups.ts transferStepKey): recorded once the item is transferred
  // by that transfer (another transfer of it, naming other waybills, is another step).
  if (key.startsWith(`custody:${run.id}:transfer:`) && key.endsWith(`:${waybill}`)) {
    return run.items.some((i) =>
      i.waybill === waybill && i.state === "transferred" &&
      (i.transfer_key === undefined || custodyKey(`${run.id}:${i.transfer_key}`, waybill) === key)
    );
  }
  return null;
}

/**
 * Operations close the shipment: the step `c.step` under way on it is voided. Refused
 * `step_recorded` once the run recorded it (it stands; its custody move follows). A closed run
 * records no more steps: nothing to void.
 */
export function voidStep(
  run: NetworkRun,
  c: Extract<RunChange, { kind: "void_step" }>,
  now: number,
): Step {
  if ((run.voided_steps ?? []).includes(c.step)) return SAME;
  const made = recorded(run, c.step, c.waybill);
  if (made) {
    return reject(
      "step_recorded",
      `run ${run.id} recorded its step on ${c.waybill}: its custody move follows`,
      { run_id: run.id },
    );
  }
  if (made === null || run.status === "closed") return SAME;
  return [{
    kind: "step_voided",
    waybill: c.waybill,
    step: c.step,
    entry: entry("step_voided", c.by, now, c.waybill),
  }];
}
