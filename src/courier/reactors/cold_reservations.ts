/**
 * Settles the cold-slot reservations of laboratory profiles whose request stopped between taking
 * the slots and the profile (courier 2.10: a run's cold slots are held only by cold samples):
 * the shipment's run index hands a reservation still pending COLD_RESERVATION_STALL_MS after it
 * was made to this outbox (actors/courier/shipment_runs.ts), and the sweep settles it as its
 * request would have, giving the slots back unless the sample is cold
 * (src/courier/flows/runs/cold_slots.ts). Idempotent; an item a failure or a crash left stays in
 * the outbox and is tried again.
 */
import {
  COLD_RESERVATIONS_OUTBOX,
  type ColdReservationsStalled,
} from "../../../actors/courier/shipment_runs.ts";
import { OutboxHandling } from "../../runtime/outbox_handling.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";
import { sweepColdReservations } from "../flows/runs/mod.ts";

/** Handles the stalled cold-slot reservations' outbox until closed. */
export class ColdReservations {
  readonly #handling: OutboxHandling;

  constructor(options: { runtime: ActorRuntime }) {
    const { runtime } = options;
    this.#handling = new OutboxHandling(
      runtime,
      COLD_RESERVATIONS_OUTBOX,
      (item) => {
        const { reservations } = item.payload as ColdReservationsStalled;
        // The index's id is the shipment's waybill.
        return sweepColdReservations(runtime, item.tenant, item.id, reservations);
      },
    );
  }

  /** Stops taking items (they wait in the outbox) and waits for those being handled. */
  close(): Promise<void> {
    return this.#handling.close();
  }
}
