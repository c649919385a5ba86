/**
 * Nothing is ever lost (courier 4.1): a booking charged and stopped before its shipment (the
 * process stopped between the two commits) whose client never sends the request again is
 * completed from the request its charge kept, by the booking's own tail (completeBooking), as
 * the retry would have done: no client pays for a booking that does not exist.
 */
import {
  asClient,
  courierClientActor,
  isWithdrawn,
  type KeptBookingCharge,
} from "../../../../actors/courier/courier_client.ts";
import { asOffer, priceOfferActor } from "../../../../actors/courier/price_offer.ts";
import { shipmentActor } from "../../../../actors/courier/shipment/mod.ts";
import { foundOrNull } from "../../../runtime/actor.ts";
import type { ActorRuntime } from "../../../runtime/runtime.ts";
import { waybillOf } from "../../rules/waybill.ts";
import { chargeKeyOf } from "./fence.ts";
import { completeBooking } from "./shipment.ts";

/** The booking charged to one client's account under `waybill`. */
export interface StalledBooking {
  readonly courierId: string;
  readonly clientId: string;
  readonly waybill: string;
}

/**
 * Completes one stalled booking: true when its shipment was made now; false when there is
 * nothing to complete (made meanwhile, withdrawn, or kept too early to know its request).
 */
export async function completeStalledBooking(
  runtime: ActorRuntime,
  { courierId, clientId, waybill }: StalledBooking,
): Promise<boolean> {
  // The query side may lag behind: the shipment actor is the truth. A refused read (a full
  // mailbox) is thrown, never taken as made or as nothing to complete: the sweep looks again.
  const made = await runtime.read(shipmentActor, courierId, waybill, { kind: "get" });
  if (foundOrNull(made) !== null) return false;
  const kept = await runtime.replyUnder(courierClientActor, clientId, chargeKeyOf(waybill));
  // A withdrawn charge took nothing: there is no booking to complete (withdrawStopped).
  if (isWithdrawn(kept?.reply)) return false;
  const charge = kept?.reply as KeptBookingCharge | undefined;
  const origin = charge?.booking;
  const serviceLevel = charge?.service_level;
  // A charge kept before its request was recorded is completed by the client's retry only.
  if (!origin || serviceLevel === undefined) return false;
  const offer = foundOrNull(
    await runtime.read(priceOfferActor, courierId, origin.prices_reference, { kind: "get" }),
  );
  const client = foundOrNull(
    await runtime.read(courierClientActor, courierId, clientId, { kind: "get" }),
  );
  if (!offer || !client) return false;
  const held = asOffer(offer);
  const option = held.options.find((o) => o.code === serviceLevel);
  if (!option || waybillOf(courierId, held.reference) !== waybill) return false;
  const booked = await completeBooking(runtime, {
    offer: held,
    option,
    client: asClient(client),
    charge,
    waybill,
    dangerousGoodsConfirmed: origin.dangerous_goods_confirmed,
    by: origin.by,
  });
  return booked.created;
}
