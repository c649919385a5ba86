/**
 * A business's trip documents (Business API 4.1): the waybill, receipt, pick list and packing
 * slip of one of its trips (`{id}`: the integer id or the reference), drawn from the trip's
 * facts, the business's name and, for the packing slip, its settings (2.6).
 */
import { businessActor } from "../../../actors/platform/business/mod.ts";
import type { Trip } from "../../../actors/business/trip/mod.ts";
import type { Deps } from "../../environment.ts";
import { orderItems, piecesOf, type TripFacts } from "../rules/documents/facts.ts";
import { packingSlipPdf } from "../rules/documents/packing_slip.ts";
import { pickListPdf } from "../rules/documents/pick_list.ts";
import { receiptPdf } from "../rules/documents/receipt.ts";
import { waybillPdf } from "../rules/documents/waybill.ts";
import { shoppingPickItems, shoppingSlipOf } from "./shopping_slip.ts";
import { packingSlipSettingsOf } from "./packing_slip_settings.ts";
import { askTrip } from "./trips.ts";
import { refuse } from "../../runtime/actor.ts";

export const TRIP_DOCUMENTS = ["waybill", "receipt", "pick-list", "packing-slip"] as const;
export type TripDocument = typeof TRIP_DOCUMENTS[number];

type D = Pick<Deps, "runtime">;

/** The trip as its documents print it; no delivery code, no custody code. */
export function tripFacts(t: Trip, sender: string | null): TripFacts {
  const payload = t.order_payload;
  const store = payload?.["store_name"];
  const pieces = payload?.["pieces"];
  const pickup = t.scheduled_at ??
    (t.prep_minutes === null ? null : t.created_at + t.prep_minutes * 60_000);
  return {
    reference: t.reference,
    order_number: t.external_reference ?? t.reference,
    booked_at: t.created_at,
    // spec: business 6 trip.completed: a returned trip is completed, its goods back with the sender.
    status: t.delivery_outcome === "returned" ? "completed: returned to the sender" : t.status,
    service: t.segment === "cargo" ? "Cargo" : t.type === "ride" ? "Ride" : "Parcel delivery",
    vehicle: t.vehicle.vehicle_class.name,
    parcel_size: t.type === "parcel" ? t.vehicle.parcel_size_label : null,
    weight_kg: t.parcel_weight_kg,
    sender: { name: sender, phone: null, address: t.pickup.address },
    recipient: { name: t.passenger_name, phone: t.passenger_phone, address: t.dest.address },
    stops: t.stops.map((s) => s.address),
    store_name: typeof store === "string" ? store : null,
    pickup_at: pickup,
    items: orderItems(payload, t.billing_currency),
    pieces: typeof pieces === "number" && Number.isInteger(pieces) && pieces > 0 ? pieces : null,
    currency: t.billing_currency,
    cod_amount_minor: t.cod_amount_minor,
    age_verification_required: t.age_verification_required,
    handover_required: t.handover_required,
    fare_lines: t.fare_lines,
    billing_amount_minor: t.billing_amount_minor,
    charged_minor: t.charge?.amount_minor ?? null,
    refunded_minor: t.refund?.amount_minor ?? null,
    distance_m: t.distance_m,
  };
}

export async function businessName(deps: D, business: string): Promise<string | null> {
  const got = await deps.runtime.read(businessActor, business, business, { kind: "get" });
  return got.ok && got.reply && "profile" in got.reply ? got.reply.profile.name : null;
}

/** spec: business 4.1: one of the trip's documents as PDF bytes. */
export async function tripDocument(
  deps: D,
  business: string,
  idOrReference: string,
  o: {
    readonly document: TripDocument;
    readonly pieces?: number | undefined;
    /**
     * Drawn for a cancelled trip too: a shopping link an event handed out, valid for its time
     * whatever became of the trip (spec: shopping 6), the basket it lists bought already.
     */
    readonly cancelledToo?: boolean;
  },
): Promise<{ readonly reference: string; readonly pdf: Uint8Array<ArrayBuffer> }> {
  const { trip } = await askTrip(deps, business, idOrReference, { kind: "get" });
  if (o.document !== "receipt" && !o.cancelledToo) refuseCancelled(trip);
  let facts = tripFacts(trip, await businessName(deps, business));
  if (o.document === "packing-slip" && trip.shop_deliver) {
    // spec: business 4.1: a shopping order's slip lists its stores' lines once collected.
    const slip = await shoppingSlipOf(deps, business, trip.reference);
    if (slip) facts = { ...facts, ...slip };
  }
  if (o.document === "pick-list" && trip.shop_deliver) {
    // spec: business 4.1: a shopping order's pick list is its stores' lines, by store.
    const items = await shoppingPickItems(deps, business, trip.reference);
    if (items) facts = { ...facts, items };
  }
  const pdf = await drawn(deps, business, facts, o);
  return { reference: trip.reference, pdf };
}

/**
 * A cancelled trip's paper to pick, pack or carry it by is refused, as a batch's slips leave its
 * cancelled stops out: its charge is refunded and nobody will carry it (spec: business 3.1
 * cancelled is final). Its receipt stays, saying it was refunded.
 */
export function refuseCancelled(t: Trip): void {
  if (t.status !== "cancelled") return;
  refuse(
    "trip_cancelled",
    `the trip was cancelled: nothing to pick, pack or carry: ${t.reference}`,
  );
}

async function drawn(
  deps: D,
  business: string,
  facts: TripFacts,
  o: { readonly document: TripDocument; readonly pieces?: number | undefined },
): Promise<Uint8Array<ArrayBuffer>> {
  switch (o.document) {
    case "waybill":
      return await waybillPdf(facts);
    case "receipt":
      return await receiptPdf(facts);
    case "pick-list":
      return await pickListPdf(facts);
    case "packing-slip":
      return await packingSlipPdf({
        facts,
        settings: await packingSlipSettingsOf(deps, business),
        pieces: piecesOf(o.pieces, facts),
      });
  }
}
