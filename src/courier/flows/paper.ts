/**
 * Courier 4.5, 4.6: what a shipment's paper (label, waybill, packing slip) needs besides the
 * shipment: the courier's name it is printed under.
 */
import { asBusiness, businessActor } from "../../../actors/platform/business/mod.ts";
import type { Shipment } from "../../../actors/courier/shipment/mod.ts";
import { orRefuse } from "../../runtime/actor.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";
import { clientShipmentIn } from "./shipments.ts";

/** The courier's name as its paper prints it (its business profile). */
export async function courierNameOf(runtime: ActorRuntime, courierId: string): Promise<string> {
  const courier = asBusiness(
    orRefuse(await runtime.read(businessActor, courierId, courierId, { kind: "get" })),
  );
  return courier.profile.name;
}

/**
 * One of the client's own shipments (another client's is not found, courier 4.6) with the
 * courier's name for its paper.
 */
export async function clientShipmentPaper(
  runtime: ActorRuntime,
  o: { readonly tenant: string; readonly clientId: string; readonly waybill: string },
): Promise<{ shipment: Shipment; courierName: string }> {
  const shipment = await clientShipmentIn(runtime, o);
  return { shipment, courierName: await courierNameOf(runtime, o.tenant) };
}
