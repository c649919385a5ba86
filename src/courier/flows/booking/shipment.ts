/**
 * Courier 2.3: the shipment a charged booking makes, its second commit: the request the offer
 * kept, the option charged with its frozen pricing, service terms and promise, and a tracking
 * token. The booking's tail (completeBooking) is one function for every caller: the booking
 * itself, its retry, and the sweep that completes a booking stopped after its charge.
 */
import type {
  CourierClient,
  KeptBookingCharge,
} from "../../../../actors/courier/courier_client.ts";
import {
  type OfferOption,
  type PriceOffer,
  serviceTermsOf,
} from "../../../../actors/courier/price_offer.ts";
import {
  type Shipment,
  shipmentActor,
  type ShipmentBooking,
} from "../../../../actors/courier/shipment/mod.ts";
import { hashSecret, newSecret } from "../../../domain/secrets.ts";
import { orRefuse } from "../../../runtime/actor.ts";
import type { ActorRuntime } from "../../../runtime/runtime.ts";
import { openBookingCrossing } from "../customs.ts";
import { promiseAtBooking } from "./promise.ts";

/** A booking charged to its client's account: what its shipment is made from. */
export interface ChargedBooking {
  readonly offer: PriceOffer;
  /** The option charged. */
  readonly option: OfferOption;
  readonly client: CourierClient;
  /** The charge as the account kept it (undefined: kept in an older shape). */
  readonly charge: KeptBookingCharge | undefined;
  readonly waybill: string;
  readonly dangerousGoodsConfirmed: boolean;
  /** Who booked (audit). */
  readonly by: string;
  /** The request that booked it, named by the shipment's change; none for the stalled sweep. */
  readonly requestId?: string | undefined;
}

/**
 * The tail of every booking once charged: its shipment, made or found already made, and
 * (CONTRACT) a cross-border shipment's one crossing at booking, open before the answer. Should a
 * crash come between the two, the shipment's own booking event opens it (BookingCrossings), and
 * so does a retry of the booking (already booked).
 */
export async function completeBooking(
  runtime: ActorRuntime,
  charged: ChargedBooking,
): Promise<{ shipment: Shipment; created: boolean }> {
  const made = await makeShipment(runtime, charged);
  await openBookingCrossing(runtime, made.shipment, charged.by);
  return made;
}

/**
 * The charged booking's shipment (its second commit), made or found already made. The charge is
 * the booking's commit point: the shipment is booked at its time and under the settlement mode
 * it was charged under, however much later a retry or the sweep makes it (the promise shown
 * before the cut-off is the one paid for, courier 2.2 rule 3, 2.3; the client's settings may
 * have changed meanwhile). Charges kept in another shape fall back to now and the client's mode.
 */
async function makeShipment(
  runtime: ActorRuntime,
  charged: ChargedBooking,
): Promise<{ shipment: Shipment; created: boolean }> {
  const { offer, charge, waybill } = charged;
  // The waybill is new unless this is a retry: `fresh` skips the read, and a shipment that
  // exists after all fails the commit's check, is read, and answers as already booked.
  const booked = orRefuse(
    await runtime.ask(shipmentActor, offer.courier_id, waybill, {
      kind: "book",
      shipment: await newShipment(charged, {
        now: charge?.entry?.created_at ?? runtime.clock.now(),
        settlementMode: charge?.balances?.settlement_mode ??
          charged.client.settings.settlement_mode,
      }),
    }, { fresh: true, requestId: charged.requestId }),
  );
  if (!("created" in booked)) throw new Error("book answers a booking");
  return booked;
}

async function newShipment(
  charged: ChargedBooking,
  o: { now: number; settlementMode: CourierClient["settings"]["settlement_mode"] },
): Promise<ShipmentBooking> {
  const { offer, option, waybill } = charged;
  const token = newSecret("");
  const r = offer.request;
  return {
    waybill,
    courier_id: offer.courier_id,
    client_id: offer.client_id,
    booked_at: o.now,
    booked_by: charged.by,
    from_country: r.from_country,
    to_country: r.to_country,
    sender: party(r.sender),
    recipient: party(r.recipient),
    parcels: r.parcels.map((p) => ({ ...p })),
    contents: r.contents,
    declared_value_minor: r.declared_value_minor,
    liability_cover: r.liability_cover,
    dangerous_goods_confirmed: charged.dangerousGoodsConfirmed,
    references: {
      external_customer_code: r.external_customer_code,
      external_billing_reference: r.external_billing_reference,
      client_order_reference: r.client_order_reference,
    },
    pricing: frozenPricing(offer, option, o),
    service_terms: serviceTermsOf(offer, option),
    tracking_token: token,
    tracking_token_hash: await hashSecret(token),
  };
}

/** spec: courier 2.3: the frozen pricing snapshot of the option charged. */
function frozenPricing(
  offer: PriceOffer,
  option: OfferOption,
  o: { now: number; settlementMode: CourierClient["settings"]["settlement_mode"] },
): ShipmentBooking["pricing"] {
  return {
    // A quote booked again under a copy (rebook.ts) names the quote the client saved.
    prices_reference: offer.rebooks ?? offer.reference,
    rate_card_id: offer.rate_card.id,
    rate_card_version: offer.rate_card.version,
    service: { code: option.code, name: option.name },
    chargeable_grams: option.chargeable_grams,
    lines: option.lines,
    tax_minor: option.tax_minor,
    total_minor: option.total_minor,
    currency: option.currency,
    payer: "client",
    settlement_mode: o.settlementMode,
    // spec: courier 2.2 rule 3: held prices book the dates they showed; bookOffer checked them
    // against the cut-off, which may pass before the charge commits. A saved quote, held 7
    // days, gets the dates of the day it is charged.
    promise: offer.kind === "prices"
      ? {
        collection_on: option.collection_on,
        earliest_delivery: option.earliest_delivery,
        latest_delivery: option.latest_delivery,
      }
      : promiseAtBooking(serviceTermsOf(offer, option), o.now),
  };
}

function party(p: Readonly<Record<string, string | number | null>>) {
  return {
    name: (p.name as string | null) ?? null,
    address: (p.address as string | null) ?? null,
    phone: (p.phone as string | null) ?? null,
    lat: (p.lat as number | null) ?? null,
    lng: (p.lng as number | null) ?? null,
  };
}
