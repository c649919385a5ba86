/**
 * The outboxes of a driver's holding (Business API 3.1, 2.3): what follows a trip's change for
 * the driver who holds it, done after the commit and retried until done. A take the trip never
 * confirmed is completed or undone; an ended trip frees its driver, whose queued trip then starts;
 * a batch's stops start with, and pass the hold along, the stop their driver holds.
 */
import { HOLD_OUTBOX, type HoldItem } from "../../../actors/business/pool_driver.ts";
import type { Deps } from "../../environment.ts";
import { settleHold } from "../flows/dispatch.ts";
import { releaseDriver, startQueuedTrip } from "../flows/driver_holding.ts";
import { passHold, startWithLead } from "../flows/batch_dispatch.ts";
import {
  BATCH_HOLD_OUTBOX,
  BATCH_START_OUTBOX,
  type BatchHoldItem,
  type BatchStartItem,
  DRIVER_RELEASE_OUTBOX,
  type HoldingItem,
  QUEUED_START_OUTBOX,
} from "../rules/driver_holding.ts";

/** Registers the handlers; answers the functions that release them. */
export function handleHoldingOutboxes(deps: Pick<Deps, "runtime" | "clock">): (() => void)[] {
  return [
    // A take the trip never confirmed is completed or undone (spec: business 3.1).
    deps.runtime.handleOutbox(HOLD_OUTBOX, (i) => settleHold(deps, i.payload as HoldItem)),
    // An ended trip frees its driver, whose queued trip then starts (spec: business 3.1).
    deps.runtime.handleOutbox(
      DRIVER_RELEASE_OUTBOX,
      (i) => releaseDriver(deps, i.payload as HoldingItem),
    ),
    deps.runtime.handleOutbox(
      QUEUED_START_OUTBOX,
      (i) => startQueuedTrip(deps, i.payload as HoldingItem),
    ),
    // A batch's stops queued with the stop their driver holds start with it (business 2.3, 3.1).
    deps.runtime.handleOutbox(
      BATCH_START_OUTBOX,
      (i) => startWithLead(deps, i.payload as BatchStartItem),
    ),
    // A batch's stop that left its driver passes the hold to the next queued with it.
    deps.runtime.handleOutbox(
      BATCH_HOLD_OUTBOX,
      (i) => passHold(deps, i.payload as BatchHoldItem),
    ),
  ];
}
