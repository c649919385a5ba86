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
 * (src/bus/retry.ts), and one still failing is deferred (src/platform/reactors/deferred.ts).
 */
import {
  type LoggedShipmentEvent,
  type Shipment,
  shipmentActor,
} from "../../../actors/courier/shipment/mod.ts";
import type { ActorChange } from "../../bus/bus.ts";
import { type ReactorOptions, UnitReactor } from "../../bus/reactor.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";
import { openBookingCrossing } from "../flows/customs.ts";
import type { ShipmentSnapshot } from "../queries/operations_row.ts";

/** What opening a booking's crossing needs of the shipment. */
type Booked = Pick<
  Shipment,
  "courier_id" | "client_id" | "waybill" | "from_country" | "to_country" | "booked_by"
>;

export interface BookingCrossingsOptions extends ReactorOptions {
  readonly runtime: ActorRuntime;
}

export class BookingCrossings extends UnitReactor<Booked> {
  constructor(options: BookingCrossingsOptions) {
    super(options, {
      worker: "booking_crossings",
      actorType: shipmentActor.type,
      unitsOf: crossingsOf,
      work: (booked) => openUnlessPast(options.runtime, booked),
      describe: (booked) => `crossing of ${booked.waybill}`,
    });
  }
}

/**
 * Opens the booking crossing unless the shipment has gone past where it is of use: presented
 * at a border stop (which opened a crossing of its own when this one was missing) or closed. A
 * try deferred for hours must not give it a second crossing (CONTRACT: one at booking).
 */
async function openUnlessPast(runtime: ActorRuntime, booked: Booked): Promise<void> {
  const got = await runtime.read(shipmentActor, booked.courier_id, booked.waybill, {
    kind: "get",
  });
  if (!got.ok) throw new Error(`shipment ${booked.waybill}: ${got.code}: ${got.message}`);
  const now = got.reply as Shipment;
  if (now.closed_at !== null || now.trail.some((e) => e.event === "presented_to_customs")) return;
  await openBookingCrossing(runtime, booked, booked.booked_by);
}

/** The cross-border shipment a change books: its snapshot (the booked event does not repeat it). */
function crossingsOf(change: ActorChange): Booked[] {
  if (change.type !== shipmentActor.type) return [];
  const s = change.snapshot as ShipmentSnapshot | undefined;
  const booked = change.events.some(({ event }) =>
    (event as LoggedShipmentEvent).kind === "shipment_booked"
  );
  return booked && s && s.from_country !== s.to_country ? [s] : [];
}
