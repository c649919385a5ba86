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
import {
  type Shipment,
  shipmentActor,
  type ShipmentEvent,
} from "../../../actors/courier/shipment.ts";
import type { ActorChange, Bus } from "../../bus/bus.ts";
import { subjectPattern } from "../../bus/bus.ts";
import type { Deferral } from "../../bus/keyed.ts";
import { type KeyedSubscription, subscribeUnits } from "../../bus/keyed.ts";
import type { RetryPolicy } from "../../bus/retry.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";
import { openBookingCrossing } from "../flows/customs.ts";

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
    this.#changes = subscribeUnits({
      bus: options.bus,
      pattern: subjectPattern(options.runtime.busPrefix, "*", shipmentActor.type),
      worker: "booking_crossings",
      unitsOf: crossingsOf,
      work: (s) => this.#open(s),
      report: (error, s) => {
        if (options.onError) options.onError(error, `crossing of ${s.waybill}`);
        else console.error(`booking crossings: crossing of ${s.waybill}:`, error);
      },
      retry: options.retry,
      deferral: options.deferral,
    });
  }

  /** Stops taking changes and waits for the openings under way. */
  async close(): Promise<void> {
    await this.#changes.close();
  }

  /**
   * Opens the booking crossing unless the shipment has gone past where it is of use: presented
   * at a border stop (which opened a crossing of its own when this one was missing) or closed. A
   * try deferred for hours must not give it a second crossing (CONTRACT: one at booking).
   */
  async #open(booked: Shipment): Promise<void> {
    const got = await this.#o.runtime.read(shipmentActor, booked.courier_id, booked.waybill, {
      kind: "get",
    });
    if (!got.ok) throw new Error(`shipment ${booked.waybill}: ${got.code}: ${got.message}`);
    const now = got.reply as Shipment;
    if (now.closed_at !== null || now.trail.some((e) => e.event === "presented_to_customs")) return;
    await openBookingCrossing(this.#o.runtime, booked, booked.booked_by);
  }
}

/** The cross-border shipments a change books. */
function crossingsOf(change: ActorChange): Shipment[] {
  if (change.type !== shipmentActor.type) return [];
  return change.events.flatMap(({ event }) => {
    const e = event as ShipmentEvent;
    return e.kind === "shipment_booked" && e.shipment.from_country !== e.shipment.to_country
      ? [e.shipment]
      : [];
  });
}
