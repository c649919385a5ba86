/**
 * A run's step on the shipment (delivered, collected, attempted) and a scan closing it, one after
 * the other (courier 3.4: an item's end state is what happened to it; a parcel is in one state at
 * a time). A run's request reserves the shipment under the step's key before the run records the
 * step: refused once the shipment is closed. A scan that would close the shipment while a step is
 * under way is refused `run_step_under_way`, naming the steps, unless it names them voided (their
 * run voided them in its turn: src/courier/flows/run_steps.ts); the step's own custody move (its
 * key) ends the reservation. A reservation a refused step left blocks nothing: the next closing
 * scan voids it.
 */
import { accept, type OutboxAdd, reject, type Rejection } from "../../../src/runtime/actor.ts";
import { FINAL_HEADLINES } from "../../../src/courier/rules/lifecycle.ts";
import type { Decided, RunStep, Shipment, ShipmentEvent } from "./types.ts";

/** Steps under way on one shipment: few runs ever carry one (courier 3.4: one at a time). */
export const RUN_STEPS_MAX = 20;

export function reserveRunStep(state: Shipment, step: RunStep): Decided {
  if (FINAL_HEADLINES.has(state.status)) {
    return reject("shipment_closed", `${state.waybill} is ${state.status} already`, {
      status: state.status,
    });
  }
  const steps = state.run_steps ?? [];
  if (steps.some((s) => s.key === step.key)) return accept([], (next) => next!);
  if (steps.length >= RUN_STEPS_MAX) {
    return reject(
      "run_step_under_way",
      `${state.waybill} has ${steps.length} run steps under way: try again once they are recorded`,
      { steps: [...steps] },
    );
  }
  return accept([{ kind: "run_step_reserved", step }], (next) => next!);
}

/**
 * What a scan does to the steps under way: `closes`, it is refused while any but its own (`key`)
 * and those named `voiding` is under way, and it ends all; else it ends its own.
 */
export function stepsMet(
  state: Shipment,
  at: { closes: boolean; key: string | undefined; voiding: readonly string[] | undefined },
): Rejection | ShipmentEvent[] {
  const steps = state.run_steps ?? [];
  const own = steps.filter((s) => s.key === at.key);
  if (!at.closes) {
    return own.length > 0 ? [{ kind: "run_steps_ended", keys: own.map((s) => s.key) }] : [];
  }
  const open = steps.filter((s) => s.key !== at.key && !(at.voiding ?? []).includes(s.key));
  if (open.length > 0) {
    return reject(
      "run_step_under_way",
      `run ${open[0]!.run_id} is recording a step on ${state.waybill}: ` +
        `it is closed once that step is recorded or voided`,
      { steps: open },
    );
  }
  return steps.length > 0 ? [{ kind: "run_steps_ended", keys: steps.map((s) => s.key) }] : [];
}

/**
 * The outbox a shipment's closing commit tells the runs holding it through
 * (src/courier/reactors/closed_on_runs.ts): a run learns it then, not at its next custody move.
 */
export const CLOSED_ON_RUNS_OUTBOX = "courier_closed_on_runs";

/** What the runs holding a closed shipment are told: how it ended, and who closed it. */
export interface ClosedOnRuns {
  readonly waybill: string;
  readonly status: "delivered" | "returned" | "cancelled";
  readonly by: string;
}

/** Scans that close a shipment: each run holding it ends its item so (item_changes.ts). */
const ENDS_ON_RUNS: ReadonlySet<string> = new Set(["delivered", "returned", "cancelled"]);

/**
 * spec: courier 3.4: an item's end state is what happened to it: the scan that closes the
 * shipment adds, in its own commit, the item that tells every run holding it (shipment_runs).
 */
export function closedOnRuns(event: ShipmentEvent, state: Shipment | null): OutboxAdd[] {
  if (event.kind !== "scanned" || state === null) return [];
  const { event: scan, by } = event.entry;
  if (!ENDS_ON_RUNS.has(scan) || state.status !== scan) return [];
  const payload: ClosedOnRuns = {
    waybill: state.waybill,
    status: scan as ClosedOnRuns["status"],
    by,
  };
  return [{ outbox: CLOSED_ON_RUNS_OUTBOX, payload }];
}
