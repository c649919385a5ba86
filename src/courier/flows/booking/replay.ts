/**
 * Courier 4.1, 7: the same booking again answers the booking it made (already_booked), unless
 * the request differs from the one booked.
 */
import {
  asShipment,
  type Shipment,
  shipmentActor,
} from "../../../../actors/courier/shipment/mod.ts";
import { foundOrNull, refuse } from "../../../runtime/actor.ts";
import type { ActorRuntime } from "../../../runtime/runtime.ts";

export interface Booked {
  readonly shipment: Shipment;
  readonly already_booked: boolean;
}

/** What a booking asks for of an offer: the option and the dangerous goods answer. */
export interface BookingChoice {
  readonly serviceLevel: string;
  readonly dangerousGoodsConfirmed: boolean;
}

/** The offer's shipment (`waybill`) answered as already booked, if a booking made it (a retry). */
export async function madeBefore(
  runtime: ActorRuntime,
  courierId: string,
  waybill: string,
  choice: BookingChoice,
): Promise<Booked | null> {
  // A refused read (a full mailbox) is thrown: a booking made is never answered as not made.
  const made = foundOrNull(await runtime.read(shipmentActor, courierId, waybill, { kind: "get" }));
  return made ? replayed(asShipment(made), choice) : null;
}

/**
 * The same booking again: the shipment it made, unless the request differs from the one booked
 * (another option of the offer, or another dangerous goods answer): answered as already booked,
 * it would show the caller a booking that was not made.
 */
export function replayed(shipment: Shipment, choice: BookingChoice): Booked {
  if (shipment.pricing.service.code !== choice.serviceLevel) {
    reBooked(shipment.pricing.service.code, shipment.waybill);
  }
  if (shipment.dangerous_goods_confirmed !== choice.dangerousGoodsConfirmed) {
    refuse(
      "reference_conflict",
      `these prices were already booked with dangerous_goods_confirmed ` +
        `${shipment.dangerous_goods_confirmed}: ${shipment.waybill}`,
    );
  }
  return { shipment, already_booked: true };
}

/** The prices were booked (or charged) with another option than this request's. */
export function reBooked(serviceLevel: string, waybill: string): never {
  refuse(
    "reference_conflict",
    `these prices were already booked with service ${serviceLevel}: ${waybill}`,
  );
}
