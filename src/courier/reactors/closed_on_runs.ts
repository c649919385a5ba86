/**
 * Tells the runs holding a shipment that operations closed it (courier 3.4: an item's end state is
 * what happened to it): the shipment's closing commit adds the item (the `closed_on_runs` outbox,
 * actors/courier/shipment/run_steps.ts), and each run ends its item as the shipment ended, so its
 * step on the shipment does not stay open until a custody move that may never come, and the run
 * can close. Idempotent: a run whose item has ended already changes nothing; an item a failure or
 * a crash left stays in the outbox for the sweep.
 */
import {
  CLOSED_ON_RUNS_OUTBOX,
  type ClosedOnRuns as Closed,
} from "../../../actors/courier/shipment/mod.ts";
import { OutboxHandling } from "../../runtime/outbox_handling.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";
import { closeOnRuns } from "../flows/runs/mod.ts";

/** Handles the closed shipments' outbox until closed. */
export class ClosedOnRuns {
  readonly #handling: OutboxHandling;

  constructor(options: { runtime: ActorRuntime }) {
    const { runtime } = options;
    this.#handling = new OutboxHandling(
      runtime,
      CLOSED_ON_RUNS_OUTBOX,
      (item) => closeOnRuns(runtime, item.tenant, item.payload as Closed),
    );
  }

  /** Stops taking items (they wait in the outbox) and waits for those being handled. */
  close(): Promise<void> {
    return this.#handling.close();
  }
}
