/**
 * Run orchestration (courier 2.6 rule 3, 3.4, 4.5): one flow per run action and stop action. The
 * run actor decides each and records what must follow it (custody moves on each shipment, later
 * charges on the client's account, crossings, the laboratory handover, alerts); the flow does
 * those before it answers, each keyed so it is done once, and the run follow-ups reactor does
 * what a crash or a failure left due (src/courier/reactors/run_follow_ups.ts).
 */
export { askRun, forgetStopAnswers, readRun, requestDigest, runFor } from "./ask.ts";
export { type FieldError, needScope, type RunCaller, type RunDeps } from "./caller.ts";
export { followThrough } from "./follow_ups.ts";
export { closeOnRuns, performFollowUp, redoBatches } from "./perform.ts";
export { outForDeliveryPastBorder } from "./past_border.ts";
export { RUN_FOLLOW_UPS_WORKER } from "./parking.ts";
export { boardRun, runLoadOf, shipmentLoad } from "./loads.ts";
export {
  profiledColdSlots,
  reserveColdSlots,
  settleColdSlots,
  sweepColdReservations,
} from "./cold_slots.ts";
export {
  arrive,
  close,
  depart,
  reorder,
  type RunAction,
  type RunActionInput,
  unload,
} from "./run_actions.ts";
export { report, waiting } from "./item_actions.ts";
export { transfer } from "./transfer.ts";
export { border, collect, cross, deliver, fail, type StopActionInput } from "./stop_actions.ts";
export {
  addStop,
  assignDriver,
  type Capacities,
  createRun,
  exactLoad,
  type ExpenseInput,
  type NewRunInput,
  type NewStopInput,
  recordExpense,
} from "./setup.ts";
