/**
 * The sandbox autopilot's outbox (Business API 4.4): each step a trip's autopilot timer brought
 * due is run once its commit is done, and again by the outbox's sweep after a crash (the step
 * flow answers a step already taken under the same key, so it is taken once).
 */
import {
  AUTOPILOT_OUTBOX,
  type AutopilotItem,
} from "../../../actors/business/sandbox_autopilot.ts";
import type { Deps, Reactor } from "../../environment.ts";
import { runAutopilotStep } from "../flows/sandbox_autopilot.ts";

export function startSandboxAutopilot(
  deps: Pick<Deps, "runtime" | "clock" | "name">,
): Reactor {
  const release = deps.runtime.handleOutbox(
    AUTOPILOT_OUTBOX,
    (i) => runAutopilotStep(deps, i.payload as AutopilotItem),
  );
  return {
    close() {
      release();
      return Promise.resolve();
    },
  };
}
