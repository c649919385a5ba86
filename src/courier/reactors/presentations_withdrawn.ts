/**
 * Withdraws on the shipment a border stop's presentation its crossing withdrew (courier 3.4,
 * 3.2): the crossing's commit adds the item (actors/courier/customs_crossing/border.ts), so a
 * border request that stopped after it, before the shipment's withdrawal, leaves no
 * customs_clearance open for a presentation that did not happen; one the crossing made again at
 * that stop since is left standing (customs.ts withdrawnFromCrossing). Idempotent: the shipment
 * withdraws only the presentation it stands in, so sent again it changes nothing; an item a
 * failure or a crash left stays in the outbox for the sweep.
 */
import {
  PRESENTATION_WITHDRAWN_OUTBOX,
  type WithdrawnPresentation,
} from "../../../actors/courier/customs_crossing/mod.ts";
import { OutboxHandling } from "../../runtime/outbox_handling.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";
import { withdrawnFromCrossing } from "../flows/customs_withdrawn.ts";

/** Handles the withdrawn presentations' outbox until closed. */
export class PresentationsWithdrawn {
  readonly #handling: OutboxHandling;

  constructor(options: { runtime: ActorRuntime }) {
    const { runtime } = options;
    this.#handling = new OutboxHandling(
      runtime,
      PRESENTATION_WITHDRAWN_OUTBOX,
      (item) => withdrawnFromCrossing(runtime, item.tenant, item.payload as WithdrawnPresentation),
    );
  }

  /** Stops taking items (they wait in the outbox) and waits for those being handled. */
  close(): Promise<void> {
    return this.#handling.close();
  }
}
