/**
 * CONTRACT (customs): a shipment whose from_country and to_country differ gets one crossing at
 * booking. The booking request opens it before it answers (so the answer's reader finds it);
 * this subscriber opens it again from the shipment's own committed `shipment_booked` event, so a
 * booking whose process stopped between its shipment and its crossing, and whose client never
 * sent it again (or that the stalled-booking sweep completed), still gets its crossing before any
 * border stop. Opening is idempotent: the crossing's id is derived from the waybill.
 *
 * Nothing is lost on the way: the runtime publishes the shipment's commit at least once
 * (recovery markers), an opening that fails is tried again within the delivery
 * (src/bus/retry.ts), and one still failing is deferred (src/bus/deferred.ts).
 */
import { shipmentActor, type ShipmentEvent } from "../../actors/shipment.ts";
import type { ActorChange, Bus, BusMessage } from "../bus/bus.ts";
import { subjectPattern } from "../bus/bus.ts";
import type { Deferral } from "../bus/deferred.ts";
import { type KeyedSubscription, subscribeKeyed } from "../bus/keyed.ts";
import { HANDLER_RETRY, retried, type RetryPolicy, throwFailures } from "../bus/retry.ts";
import type { ActorRuntime } from "../runtime/runtime.ts";
import { openBookingCrossing } from "./customs.ts";

export interface BookingCrossingsOptions {
  readonly runtime: ActorRuntime;
  readonly bus: Bus;
  /** Where an opening that still fails after its retries is reported; `console.error` default. */
  readonly onError?: (error: unknown, where: string) => void;
  readonly retry?: RetryPolicy;
  /** Where an opening still failing after its retries is kept to be tried again later. */
  readonly deferral?: Deferral;
}

export class BookingCrossings {
  readonly #o: BookingCrossingsOptions;
  readonly #changes: KeyedSubscription;

  constructor(options: BookingCrossingsOptions) {
    this.#o = options;
    this.#changes = subscribeKeyed(
      options.bus,
      subjectPattern(options.runtime.env, "*", shipmentActor.type),
      (m) => this.#onChange(m),
      options.deferral ? { by: options.deferral, worker: "booking_crossings" } : undefined,
    );
  }

  /** Stops taking changes and waits for the openings under way. */
  async close(): Promise<void> {
    await this.#changes.close();
  }

  async #onChange(message: BusMessage): Promise<void> {
    const change = message.payload as ActorChange;
    if (change.type !== shipmentActor.type) return;
    const failures: unknown[] = [];
    for (const { event } of change.events) {
      const e = event as ShipmentEvent;
      if (e.kind !== "shipment_booked" || e.shipment.from_country === e.shipment.to_country) {
        continue;
      }
      const s = e.shipment;
      try {
        await retried(
          () => openBookingCrossing(this.#o.runtime, s, s.booked_by),
          this.#o.retry ?? HANDLER_RETRY,
        );
      } catch (error) {
        if (this.#o.onError) this.#o.onError(error, `crossing of ${s.waybill}`);
        else console.error(`booking crossings: crossing of ${s.waybill}:`, error);
        failures.push(error);
      }
    }
    throwFailures(failures, `crossings of ${change.id}`);
  }
}
