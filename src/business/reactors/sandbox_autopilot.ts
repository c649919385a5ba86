/**
 * The sandbox autopilot's outboxes (Business API 4.4): a sandbox trip's start, handed over by its
 * creation's commit (so a booking the stalled-booking sweep completed runs its scenario too), its
 * end, handed over by the commit that ended the trip, and each step a trip's autopilot timer
 * brought due, run once its commit is done and again by the outbox's sweep after a crash (the
 * step flow answers a step already taken under the same key, so it is taken once).
 */
import {
  AUTOPILOT_OUTBOX,
  type AutopilotItem,
} from "../../../actors/business/sandbox_autopilot.ts";
import type { Deps, Reactor } from "../../environment.ts";
import {
  autopilotOfferable,
  endAutopilot,
  runAutopilotStep,
  startAutopilotFrom,
} from "../flows/sandbox_autopilot.ts";
import {
  AUTOPILOT_END_OUTBOX,
  AUTOPILOT_READY_OUTBOX,
  AUTOPILOT_START_OUTBOX,
  type AutopilotEndItem,
  type AutopilotStartItem,
} from "../rules/sandbox_steps.ts";

export function startSandboxAutopilot(
  deps: Pick<Deps, "runtime" | "clock" | "name" | "referenceKey">,
): Reactor {
  const release = deps.runtime.handleOutbox(
    AUTOPILOT_OUTBOX,
    (i) => runAutopilotStep(deps, i.payload as AutopilotItem),
  );
  const releaseStart = deps.runtime.handleOutbox(
    AUTOPILOT_START_OUTBOX,
    (i) => startAutopilotFrom(deps, i.payload as AutopilotStartItem),
  );
  const releaseEnd = deps.runtime.handleOutbox(AUTOPILOT_END_OUTBOX, (i) => {
    const item = i.payload as AutopilotEndItem;
    return endAutopilot(deps, item.business_id, item.reference);
  });
  const releaseReady = deps.runtime.handleOutbox(AUTOPILOT_READY_OUTBOX, (i) => {
    const item = i.payload as AutopilotEndItem;
    return autopilotOfferable(deps, item.business_id, item.reference);
  });
  return {
    close() {
      release();
      releaseStart();
      releaseEnd();
      releaseReady();
      return Promise.resolve();
    },
  };
}
