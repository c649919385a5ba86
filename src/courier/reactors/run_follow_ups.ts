/**
 * Does what a run's change left due (courier 2.6 rule 3, 3.2, 3.4): custody moves on shipments,
 * later charges, crossings, laboratory handovers, alerts. A run records each change's follow-ups
 * in the change's own commit (`follow_ups_due`) and the request that made it does them before it
 * answers, then tells the run; what is still due when the run's durable follow-ups timer fires (a
 * crash between the two, a failure) the run makes due again (`follow_ups_again`), and this
 * reactor does it from the run's log, then tells the run. Never left to the driver's retry: a
 * driver on a road without signal may never send it again.
 *
 * Once: every follow-up is keyed by its condition (a custody move's key, a charge's source event,
 * an alert's condition key), so one the request did already, or this reactor did before a crash,
 * is not done again. A batch that still fails stays due, and the timer makes it due again; a
 * follow-up refused for good is parked (shown to the operator as parked deferred work) and the
 * batch is told done, so it is not tried every few minutes for ever.
 */
import { networkRunActor, type StoredRunEvent } from "../../../actors/courier/network_run/mod.ts";
import type { ActorChange } from "../../bus/bus.ts";
import { type ReactorOptions, UnitReactor } from "../../bus/reactor.ts";
import type { Logger } from "../../observe/log.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";
import { redoBatches, RUN_FOLLOW_UPS_WORKER } from "../flows/runs/mod.ts";

export interface RunFollowUpsOptions extends ReactorOptions {
  readonly runtime: ActorRuntime;
  /** Where the work done again is logged (stalled work completed); nowhere when absent. */
  readonly log?: Logger;
}

/** The batches of one run made due again. */
interface Again {
  readonly batches: readonly string[];
}

// Runs side by side, one run's changes in order.
export class RunFollowUps extends UnitReactor<Again> {
  constructor(options: RunFollowUpsOptions) {
    super(options, {
      worker: RUN_FOLLOW_UPS_WORKER,
      actorType: networkRunActor.type,
      unitsOf: dueAgain,
      work: async (again, change) => {
        const { done, parked } = await redoBatches(
          options.runtime,
          change.tenant,
          change.id,
          again.batches,
          change.request_id,
        );
        options.log?.info({
          event: "follow_ups_redone",
          tenant_id: change.tenant,
          run_id: change.id,
          batches: again.batches,
          follow_ups: done,
          parked,
        }, "run follow-ups done again");
      },
      describe: (again, change) => `follow-ups ${again.batches.join(", ")} of run ${change.id}`,
    });
  }
}

/** The follow-ups a run's change made due again. */
function dueAgain(change: ActorChange): Again[] {
  return change.events.flatMap(({ event }) => {
    const e = event as StoredRunEvent;
    return e.kind === "follow_ups_again" ? [{ batches: e.batches }] : [];
  });
}
