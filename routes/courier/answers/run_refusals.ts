/**
 * What the network-run routes can refuse (courier 4.5, 7), for the OpenAPI document: each code
 * with when it is answered, per action.
 */
import { LATER_CHARGE_REFUSALS } from "../../../src/courier/flows/later_charges.ts";
import { BODY_TOO_LARGE, mergeRefusals } from "../../../src/http/refusals.ts";

/** Every change to a run (network_run decide step). */
export const RUN_CHANGE = { run_closed: "the run is closed" };
/** A change that adds to a run (network_run decide GROWING_CHANGES, STOPS_MAX, ITEMS_MAX). */
export const RUN_GROWS = {
  run_full: "the run holds no more stops, items or records: split the work into another run",
};

/** A change sent under an idempotency_key (src/courier/flows/runs changeRun). */
export const KEYED_CHANGE = {
  ...RUN_CHANGE,
  idempotency_key_reused: "the idempotency_key was sent before with another request; nothing " +
    "was changed",
};

/** What each run action can refuse, besides the run itself not being found. */
export const RUN_ACTION_REFUSALS = {
  depart: KEYED_CHANGE,
  arrive: { ...KEYED_CHANGE, run_not_departed: "arrive: the run has not departed" },
  unload: KEYED_CHANGE,
  reorder: {
    ...KEYED_CHANGE,
    validation_failed: "reorder: no `order`",
    invalid_order: "reorder: `order` does not list every stop of the run exactly once",
  },
  transfer: {
    ...KEYED_CHANGE,
    ...RUN_GROWS,
    validation_failed: "transfer: no waybills or to_run, to the run itself, or to a closed run",
    not_found: "transfer: to_run is none of the courier's runs",
    not_on_run: "transfer or report: a waybill named is not on the run",
    not_transferable: "transfer: a waybill has its end state on the run",
    capacity_exceeded: "transfer: the items exceed to_run's capacity",
    held_by_customs: "transfer: customs holds a shipment named, asked for its papers, or " +
      "refused it (report it customs_hold)",
    planned_on_another_run: "transfer: a shipment named was handed over here and another run " +
      "has it open (planned or on board) now",
    shipment_closed: "transfer: operations closed a shipment named (delivered, returned or " +
      "cancelled it): it stays as it ended",
  },
  report: {
    ...KEYED_CHANGE,
    ...RUN_GROWS,
    validation_failed: "report: no waybill, condition or note, or customs_hold while customs " +
      "holds no crossing of the shipment",
    not_on_run: "transfer or report: a waybill named is not on the run",
    not_reportable: "report: the shipment has its end state on the run",
    not_held_by_customs: "report: customs cleared or released the shipment while the run was " +
      "recording it customs_hold (it goes on; report it otherwise)",
    // A shipment reported returned books its return charge.
    ...LATER_CHARGE_REFUSALS,
  },
  close: {
    ...KEYED_CHANGE,
    items_without_end_state: "close: items on the run lack an explicit end state",
  },
  waiting: {
    ...KEYED_CHANGE,
    scope_denied: "waiting: the credential lacks the scope `billing:administer`",
    validation_failed: "waiting: no stop_id, minutes or shipment, or a shipment not of the stop",
    not_found: "waiting: no such stop on the run, or no shipment by that waybill",
    reference_conflict: "waiting: the stop's wait was charged for another shipment (one per stop)",
    ...LATER_CHARGE_REFUSALS,
  },
} as const;

/** What the stop actions can refuse, besides the run or the stop not being found. */
export const STOP_ACTION_REFUSALS = mergeRefusals(KEYED_CHANGE, RUN_GROWS, {
  not_found: "the stop is not of the action's kind (border and cross: a checkpoint; deliver; " +
    "collect); collect or fail: no shipment by that waybill",
  scope_denied: "cross, and fail at a checkpoint, need `customs:approve`; collect with a " +
    "reason (more than reserved) needs `runs:override`",
  validation_failed: "cross without side; collect without waybill, or of a shipment not the " +
    "work order's client's; fail without reason, or naming a waybill not of the stop",
  exit_before_entry: "cross: the entry before the exit",
  run_not_departed: "border: the run is not under way (not departed, or arrived)",
  border_not_presented: "cross, or fail at a checkpoint: the border stop was not presented yet",
  border_load_changed: "border: shipments kept coming on board or leaving while the vehicle " +
    "was presented; sent again, it is presented with the load as it is",
  border_refused: "cross: customs refused the border stop",
  // A shipment's crossing records the exit after the stop does: an exit stopped between the two
  // (not sent again) leaves a crossing without it, and the entry then refuses.
  entry_before_exit: "cross: the entry, while a shipment's crossing has no exit recorded",
  shipment_closed: "deliver, collect, or fail at a deliver stop: the shipment is delivered (by " +
    "another run), returned or cancelled already, or was while the step was being recorded",
  held_by_customs: "deliver, or fail at a deliver stop: customs holds the shipment, asked for " +
    "its papers, or refused it",
  lab_handover_blocked: "deliver: the laboratory sample waits for the laboratory's decision",
  item_ended: "deliver or fail: the shipment has its end state on this run",
  already_on_run: "collect: the shipment is already on the run (collected at another stop, or " +
    "delivered by one of its stops)",
  planned_on_another_run: "collect: another open run plans or carries the shipment (named in " +
    "the message) and has not given it its end state",
  over_reserved: "collect: more than the work order reserved, without a reason",
  capacity_exceeded: "collect: the run's capacity would be exceeded",
  unknown_piece: "collect: labels name a piece the shipment does not have",
  stop_already_done: "fail: the stop was already done",
  run_step_under_way: "deliver: the delivery is recorded, its custody move waits for another " +
    "run's step on the shipment to land (done later; sent again answers it)",
  // Delivery after a failed attempt, collection and failed collection book later charges.
  ...LATER_CHARGE_REFUSALS,
});

/** An expense and its receipt (expense below). */
export const EXPENSE_REFUSALS = {
  ...KEYED_CHANGE,
  ...RUN_GROWS,
  validation_failed: "not multipart/form-data; no receipt file, idempotency_key, currency code " +
    "or positive amount",
  ...BODY_TOO_LARGE,
  evidence_file_too_large: "the receipt is larger than an evidence file may be",
};

/** A run that is not the signed-in driver's, or is closed, answers as one that does not exist. */
export const DRIVERS_RUN = { not_found: "the run is not assigned to the driver, or is closed" };
