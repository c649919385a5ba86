/**
 * Courier 4.1: pricing and booking, as chains of commands to single actors (ARCHITECTURE 5).
 * Booking = offer (begin) -> reference claim -> client account (charge) -> shipment (book) ->
 * offer (finish). Every step is idempotent on the waybill the offer hands out, so a retry after a
 * crash anywhere completes the same booking and charges once.
 */
import type { Context } from "hono";
import { sql } from "kysely";
import {
  asClient,
  type BookingChargeReply,
  type CourierClient,
  courierClientActor,
  isWithdrawn,
} from "../../../actors/courier/courier_client.ts";
import { balancesOf } from "../../../actors/courier/client_ledger.ts";
import {
  type Calendar,
  calendarById,
  courierCatalogueActor,
} from "../../../actors/courier/courier_catalogue.ts";
import {
  PLATFORM_SETTINGS_ID,
  PLATFORM_TENANT,
  platformSettingsActor,
} from "../../../actors/platform/platform_settings.ts";
import {
  asOffer,
  OFFER_NOT_FOUND,
  type OfferOption,
  type OfferRequest,
  type PriceOffer,
  priceOfferActor,
  serviceTermsOf,
} from "../../../actors/courier/price_offer.ts";
import { asRateCard, rateCardActor } from "../../../actors/courier/rate_card.ts";
import { claimId, referenceClaimActor } from "../../../actors/courier/reference_claim.ts";
import {
  asShipment,
  type Shipment,
  shipmentActor,
  type ShipmentBooking,
} from "../../../actors/courier/shipment.ts";
import {
  type DeliveryWindow,
  deliveryWindow,
  type WorkingCalendar,
} from "../../domain/calendar.ts";
import { decimal, toMinor } from "../../domain/money.ts";
import {
  possibleLaterCharges,
  PRICE_LINE_CODES,
  type PricedOption,
  priceOption,
  PriceOutOfRange,
} from "../rules/pricing.ts";
import { versionInForce } from "../rules/rate_card.ts";
import { hashSecret, newSecret, sha256 } from "../../domain/secrets.ts";
import { available } from "../rules/settlement.ts";
import { type AppEnv, publicBaseUrl } from "../../http/context.ts";
import { ApiError, fromRejection, validationFailed } from "../../http/errors.ts";
import { z } from "../../http/route.ts";
import { CalendarDay, Country, Currency, Money, UtcInstant } from "../../http/schemas.ts";
import { Settlement } from "../../../routes/courier/answers/schemas.ts";
import { HEADLINES } from "../rules/lifecycle.ts";
import { openBookingCrossing } from "./customs.ts";
import { newOfferReference } from "./waybills.ts";
import { sequencedWaybill } from "../rules/waybill.ts";
import { bookedBefore } from "../queries/shipments.ts";
import type { Deps } from "../../environment.ts";
import {
  STALLED_BOOKING_LOOKBACK_MS,
  STALLED_BOOKING_MS,
  STALLED_BOOKINGS_PER_SWEEP,
  SWEEP_DEEP_EVERY_MS,
} from "../../limits.ts";
import { SweepRounds, sweepRows } from "../../db/sweep_rounds.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";
import { ask, read } from "../../http/ask.ts";

/**
 * How long after its prices expired a booking that holds a claim or a request's identity without
 * having been charged is still given to reach its charge: one that checked its prices a moment
 * before they expired is on its way, not stopped, and must not be overtaken.
 */
export const STOPPED_AFTER_EXPIRY_MS = 30_000;

/**
 * How long after it claimed an external reference a booking that has not charged is still given
 * to reach its charge, its very next step (milliseconds later even under load). Past it, the
 * claim may be taken over while the prices still hold: a saved quote's booking that stopped after
 * its claim would otherwise keep the reference from every other booking for up to 7 days.
 */
export const STOPPED_AFTER_CLAIM_MS = 2 * 60_000;

/** What pricing can refuse (makeOffer), besides the request's own fields. */
export const OFFER_REFUSALS = {
  validation_failed: "liability_cover without declared_value; a latitude or longitude without " +
    "the other; a size or value that makes a price too large to state exactly",
  no_rate_card: "the client has no rate card, or no version of it is in force yet",
  no_service_levels: "the courier has no service levels to offer",
} as const;

/** What booking an option of an offer can refuse (bookOffer), courier 4.1 and 7. */
export const BOOKING_REFUSALS = {
  prices_expired: "the held prices expired (their hold passed, or the cut-off moved collection " +
    "past the day shown); ask for prices again",
  validation_failed: "service_level is not among the options offered",
  duplicate_order: "unique_external_reference is set and the external reference is repeated",
  insufficient_balance: "prepaid balance or credit limit exceeded; nothing is booked or charged",
  currency_mismatch: "the client's billing currency changed since the prices were given",
  reference_conflict: "these prices were already booked with another service_level or " +
    "dangerous_goods_confirmed",
} as const;

/** spec: courier 8: a formal quotation is held 7 days. */
export const QUOTE_HOLD_MS = 7 * 24 * 60 * 60 * 1000;
const PARCELS_MAX = 50;

const Decimal = z.union([z.number().nonnegative(), z.string().regex(/^\d+(\.\d+)?$/)]);
const Text = (max: number) => z.string().trim().min(1).max(max);

/** spec: courier 2.1: the price request. */
export const PriceRequest = z.object({
  sender_name: Text(200).optional(),
  sender_address: Text(500).optional(),
  sender_lat: z.number().min(-90).max(90).optional(),
  sender_lng: z.number().min(-180).max(180).optional(),
  recipient_name: Text(200).optional(),
  recipient_phone: z.string().regex(/^\+[1-9]\d{6,14}$/, "international format, e.g. +26771234567")
    .optional(),
  recipient_address: Text(500).optional(),
  recipient_lat: z.number().min(-90).max(90).optional(),
  recipient_lng: z.number().min(-180).max(180).optional(),
  parcels: z.array(z.object({
    weight_kg: z.number().positive().max(100_000),
    length_cm: z.number().positive().max(10_000),
    width_cm: z.number().positive().max(10_000),
    height_cm: z.number().positive().max(10_000),
    // spec: courier 4.6: the packing slip has one page per piece, from the parcels' contents.
    contents: Text(500).optional().openapi({
      description: "What this parcel holds (its packing slip page); else the shipment's contents",
    }),
  })).min(1).max(PARCELS_MAX),
  contents: Text(500).optional(),
  declared_value: Decimal.optional(),
  liability_cover: z.boolean().default(false),
  from_country: Country,
  to_country: Country,
  external_customer_code: Text(120).optional(),
  external_billing_reference: Text(120).optional(),
  client_order_reference: Text(120).optional(),
  sort: z.enum(["cheapest"]).optional().openapi({
    description: "`cheapest`: options by total, lowest first; options of equal total keep the " +
      "catalogue's order (service levels in their creation order), the order without sort",
  }),
}).openapi("PriceRequest");

export type PriceRequestBody = z.infer<typeof PriceRequest>;

/** Prices every eligible service for a client and holds the offer (courier 2.2). */
export async function makeOffer(
  c: Context<AppEnv>,
  client: CourierClient,
  body: PriceRequestBody,
  kind: "prices" | "quote",
  given: { reference?: string } = {},
): Promise<PriceOffer> {
  const env = c.get("env");
  const now = env.clock.now();
  const courier = client.business_id;
  // Cover is a share of the declared value: asked without one, it would silently cover nothing.
  if (body.liability_cover && body.declared_value === undefined) {
    throw validationFailed([{
      path: "declared_value",
      message: "required with liability_cover: the cover is priced on the declared value",
    }]);
  }
  // A point is a pair: a latitude alone places the party nowhere, and a map would show it at 0°.
  const unpaired = (["sender", "recipient"] as const).flatMap((who) => {
    const lat = body[`${who}_lat`], lng = body[`${who}_lng`];
    if ((lat === undefined) === (lng === undefined)) return [];
    const missing = lat === undefined ? `${who}_lat` : `${who}_lng`;
    const given = lat === undefined ? `${who}_lng` : `${who}_lat`;
    return [{ path: missing, message: `required with ${given}: a point needs both` }];
  });
  if (unpaired.length > 0) throw validationFailed(unpaired);
  if (!client.settings.rate_card_id) {
    throw new ApiError(
      "no_rate_card",
      `client ${client.code} has no rate card; the courier must assign one`,
    );
  }
  const card = asRateCard(
    await read(c, rateCardActor, courier, client.settings.rate_card_id, { kind: "get" }),
  );
  const version = versionInForce(card.versions, now);
  if (!version) {
    throw new ApiError("no_rate_card", `no version of rate card ${card.id} is in force yet`);
  }
  const catalogue = await read(c, courierCatalogueActor, courier, courier, { kind: "get" });
  if (catalogue.service_levels.length === 0) {
    throw new ApiError("no_service_levels", "the courier has no service levels to offer");
  }
  const terms = version.terms;
  const declared = body.declared_value === undefined
    ? null
    : toMinor(body.declared_value, terms.currency);
  if (declared && !declared.ok) {
    throw validationFailed([{ path: "declared_value", message: declared.message }]);
  }
  const input = {
    parcels: body.parcels,
    from_country: body.from_country,
    to_country: body.to_country,
    declared_value_minor: declared?.ok ? declared.minor : null,
    liability_cover: body.liability_cover,
  };
  const laterCharges = possibleLaterCharges(terms, body.from_country, body.to_country);
  // Each calendar is held once per offer, however many service levels count on it: copied into
  // every option, a catalogue within its limits made an offer too large to store. The shipment
  // still freezes its service level with the whole calendar (bookOffer, courier 2.3, 2.8).
  const calendars: Record<string, Calendar> = {};
  let options: OfferOption[] = catalogue.service_levels.map((sl) => {
    const calendar = calendarById(catalogue, sl.calendar_id);
    if (!calendar) throw new Error(`service level ${sl.code} names a missing calendar`);
    calendars[calendar.id] = calendar;
    const priced = priceOrRefuse(terms, {
      code: sl.code,
      name: sl.name,
      adjustment_bp: sl.price_adjustment_bp,
    }, input);
    return {
      ...priced,
      ...deliveryWindow(calendar, now, sl.cut_off, sl.transit_days),
      possible_later_charges: laterCharges,
      service_terms: { ...sl },
    };
  });
  if (body.sort === "cheapest") {
    options = [...options].sort((a, b) => a.total_minor - b.total_minor);
  }
  const hold = kind === "quote" ? QUOTE_HOLD_MS : (await holdMinutes(c)) * 60_000;
  const request: OfferRequest = {
    ...input,
    sender: party(
      body.sender_name,
      body.sender_address,
      undefined,
      body.sender_lat,
      body.sender_lng,
    ),
    recipient: party(
      body.recipient_name,
      body.recipient_address,
      body.recipient_phone,
      body.recipient_lat,
      body.recipient_lng,
    ),
    contents: body.contents ?? null,
    external_customer_code: body.external_customer_code ?? null,
    external_billing_reference: body.external_billing_reference ?? null,
    client_order_reference: body.client_order_reference ?? null,
  };
  // A given reference (an idempotent request's, courier 4.6) names the waybill in advance.
  const reference = given.reference ?? await newOfferReference(c.get("env").runtime, kind);
  return asOffer(
    await ask(c, priceOfferActor, courier, reference, {
      kind: "make",
      offer: {
        reference,
        kind,
        courier_id: courier,
        client_id: client.id,
        created_at: now,
        valid_until: now + hold,
        request,
        rate_card: { id: card.id, version: version.version },
        options,
        calendars,
        account: {
          settlement_mode: client.settings.settlement_mode,
          currency: client.settings.billing_currency,
          available_minor: available(client.settings, balancesOf(client)),
        },
      },
    }, { fresh: true }),
  );
}

/**
 * One option priced, or the request refused (422) on the field whose size makes its price too
 * large to state exactly: bad input, never a failure (spec: courier 2.2 rule 1, CONTRACT 422).
 */
function priceOrRefuse(...args: Parameters<typeof priceOption>): PricedOption {
  try {
    return priceOption(...args);
  } catch (e) {
    if (e instanceof PriceOutOfRange) {
      throw validationFailed([{ path: e.field, message: e.message }]);
    }
    throw e;
  }
}

async function holdMinutes(c: Context<AppEnv>): Promise<number> {
  const s = await read(c, platformSettingsActor, PLATFORM_TENANT, PLATFORM_SETTINGS_ID, {
    kind: "get",
  });
  return s.price_hold_minutes;
}

function party(
  name: string | undefined,
  address: string | undefined,
  phone: string | undefined,
  lat: number | undefined,
  lng: number | undefined,
) {
  return {
    name: name ?? null,
    address: address ?? null,
    phone: phone ?? null,
    lat: lat ?? null,
    lng: lng ?? null,
  };
}

export interface Booked {
  readonly shipment: Shipment;
  readonly already_booked: boolean;
}

/**
 * Books one option of an offer for its client. `by` names who booked it (audit). The waybill is
 * derived from the offer, so two commits (account charge, shipment) carry the whole booking and
 * a retry after a crash between them completes it with one charge. Throws the API error of the
 * first refusal; a refused booking charges nothing and leaves the reference free.
 */
export async function bookOffer(
  c: Context<AppEnv>,
  options: BookOfferOptions,
): Promise<Booked> {
  const booked = await bookOfferOnce(c, options);
  // CONTRACT: a cross-border shipment gets one crossing at booking, open before the answer; should
  // a crash come between the two, the shipment's own booking event opens it (BookingCrossings),
  // and so does a retry of the booking (already booked).
  await openBookingCrossing(c.get("env").runtime, booked.shipment, options.by);
  return booked;
}

interface BookOfferOptions {
  readonly courierId: string;
  readonly clientId: string;
  readonly reference: string;
  readonly serviceLevel: string;
  readonly dangerousGoodsConfirmed: boolean;
  readonly by: string;
  /** Set when the path names a saved quote: a reference of held prices is not one. */
  readonly quoteOnly?: boolean;
}

async function bookOfferOnce(c: Context<AppEnv>, options: BookOfferOptions): Promise<Booked> {
  const { courierId, clientId, reference, serviceLevel } = options;
  const env = c.get("env");
  const runtime = env.runtime;
  const offer = asOffer(await read(c, priceOfferActor, courierId, reference, { kind: "get" }));
  // Another client's offer does not exist for this one (courier 4.6): answered word for word as
  // one that does not exist at all, so the answer tells nothing of other clients' references.
  if (offer.client_id !== clientId) throw new ApiError("not_found", OFFER_NOT_FOUND);
  // spec: courier 4.1: POST /client/quotes/{reference}/book books a saved quote only.
  if (options.quoteOnly && offer.kind !== "quote") {
    throw new ApiError("not_found", `quote not found: ${reference}`);
  }
  const waybill = waybillOf(courierId, reference);
  const chargeKey = chargeKeyOf(waybill);
  /** This offer's shipment answered as already booked, if a booking made it (a retry). */
  const madeBefore = async (): Promise<Booked | null> => {
    const made = await runtime.read(shipmentActor, courierId, waybill, { kind: "get" });
    return made.ok ? replayed(asShipment(made.reply), options) : null;
  };
  // spec: courier 2.2 rule 2, 7: expired prices are never booked. A booking made in time is
  // still answered as already booked, and one charged in time but stopped before its shipment
  // (a crash between the two commits) is completed: the charge stands for a booking.
  if (env.clock.now() > offer.valid_until) {
    const made = await madeBefore();
    if (made) return made;
    if (await keptCharge(runtime, clientId, waybill) !== "charged") {
      throw new ApiError(
        "prices_expired",
        `prices expired at ${new Date(offer.valid_until).toISOString()}; ask for prices again`,
      );
    }
  }
  // spec: courier 2.2 rule 3: only what was shown can be booked.
  const option = offer.options.find((o) => o.code === serviceLevel);
  if (!option) {
    throw validationFailed([{
      path: "service_level",
      message: `not among the offered options (${
        offer.options.map((o) => o.code).join(", ")
      }): ${serviceLevel}`,
    }]);
  }
  // spec: courier 2.2 rule 3: only what was shown can be booked, and held prices showed their
  // dates: once the cut-off has moved collection past the day shown, they have expired (a saved
  // quote, held 7 days, gets the dates of the day it is booked).
  const movedTo = collectionMovedTo(offer, option, env.clock.now());
  if (movedTo !== null) {
    const made = await madeBefore();
    if (made) return made;
    if (await keptCharge(runtime, clientId, waybill) !== "charged") {
      throw new ApiError(
        "prices_expired",
        `prices expired at the cut-off: collection is no longer on ${option.collection_on} ` +
          `but on ${movedTo}; ask for prices again`,
      );
    }
  }
  const client = asClient(await read(c, courierClientActor, courierId, clientId, { kind: "get" }));
  // spec: courier 4.2: with unique_external_reference a repeated reference is a duplicate order.
  const uniqueRef = offer.request.client_order_reference ??
    offer.request.external_billing_reference;
  const claim = client.settings.unique_external_reference && uniqueRef
    ? claimId(clientId, uniqueRef)
    : null;
  if (claim) {
    // A booking made before the flag was set holds no claim: found in Postgres, it takes the
    // claim now, and this booking is the second one (spec: courier 4.2).
    const earlier = await bookedBefore(env.db, courierId, clientId, uniqueRef!, waybill);
    const claimFor = () =>
      runtime.ask(referenceClaimActor, courierId, claim, {
        kind: "claim",
        waybill: earlier ?? waybill,
        ...(earlier === null ? { reference } : {}),
      });
    let claimed = await claimFor();
    // Nothing is ever lost: a booking that claimed the reference and stopped before its charge
    // (a crash between the two commits) holds it until its prices expire, or for
    // STOPPED_AFTER_CLAIM_MS, and no longer: its charge is then withdrawn, so it can never be
    // charged, however late it wakes, and this booking takes the claim over, or the reference
    // would be a duplicate of a shipment that does not exist (spec: courier 4.2).
    if (!claimed.ok && earlier === null && await claimHolderWithdrawn(c, courierId, claimed)) {
      await runtime.ask(referenceClaimActor, courierId, claim, {
        kind: "release",
        waybill: claimed.details!.waybill as string,
      });
      claimed = await claimFor();
    }
    if (!claimed.ok || earlier !== null) {
      // spec: courier 4.1, 7: a booking made before the flag, sent again, is already booked,
      // not a duplicate of the earlier booking that now holds the reference.
      const made = await madeBefore();
      if (made) return made;
    }
    if (!claimed.ok) {
      // The holder's offer reference and time are the claim's bookkeeping, not the answer's.
      const { reference: _held, claimed_at: _at, ...details } = claimed.details ?? {};
      throw fromRejection({ ...claimed, details });
    }
    if (earlier !== null) {
      throw new ApiError("duplicate_order", `external reference already booked: ${earlier}`, {
        waybill: earlier,
      });
    }
  }
  // spec: courier 4.1: the balance or credit check runs inside the client account actor.
  const charged = await runtime.ask(courierClientActor, courierId, clientId, {
    kind: "charge_booking",
    waybill,
    amount_minor: option.total_minor,
    currency: option.currency,
    service_level: option.code,
    references: {
      external_customer_code: offer.request.external_customer_code,
      external_billing_reference: offer.request.external_billing_reference,
      client_order_reference: offer.request.client_order_reference,
    },
    booking: {
      prices_reference: reference,
      dangerous_goods_confirmed: options.dangerousGoodsConfirmed,
      by: options.by,
    },
    by: options.by,
  }, { idempotencyKey: chargeKey, permanent: true });
  // A booking whose charge was withdrawn first (withdrawStopped: another booking took over what
  // it held) is answered the withdrawal: refused, it charges nothing and makes no shipment.
  if (!charged.ok || isWithdrawn(charged.reply)) {
    if (claim) {
      await runtime.ask(referenceClaimActor, courierId, claim, { kind: "release", waybill });
    }
    if (!charged.ok) throw fromRejection(charged);
    throw new ApiError(
      "prices_expired",
      `these prices can no longer be booked: their booking stopped before its charge and ` +
        `another booking took its place; ask for prices again`,
    );
  }
  // A retry of a booking charged before a crash: only the option that was charged is booked.
  const chargedFor = (charged.reply as BookingChargeReply).service_level;
  if (chargedFor !== undefined && chargedFor !== option.code) {
    throw reBooked(chargedFor, waybill);
  }
  const booked = await makeShipment(
    runtime,
    offer,
    option,
    client,
    charged.reply as BookingChargeReply,
    waybill,
    options,
  );
  return booked.created
    ? { shipment: booked.shipment, already_booked: false }
    : replayed(booked.shipment, options);
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
  offer: PriceOffer,
  option: OfferOption,
  client: CourierClient,
  charge: BookingChargeReply | undefined,
  waybill: string,
  o: { dangerousGoodsConfirmed: boolean; by: string },
): Promise<{ shipment: Shipment; created: boolean }> {
  // The waybill is new unless this is a retry: `fresh` skips the read, and a shipment that
  // exists after all fails the commit's check, is read, and answers as already booked.
  const booked = await runtime.ask(shipmentActor, offer.courier_id, waybill, {
    kind: "book",
    shipment: await newShipment(offer, option, waybill, {
      ...o,
      now: charge?.entry?.created_at ?? runtime.clock.now(),
      settlementMode: charge?.balances?.settlement_mode ?? client.settings.settlement_mode,
    }),
  }, { fresh: true });
  if (!booked.ok) throw fromRejection(booked);
  if (!("created" in booked.reply)) throw new Error("book answers a booking");
  return booked.reply;
}

/** Each environment's rounds of the stalled booking sweep: charges by time, after the waybill. */
const stalledSweeps = new WeakMap<ActorRuntime, SweepRounds<string>>();

/**
 * Bookings charged at least STALLED_BOOKING_MS ago whose shipment was never made (the process
 * stopped between the two commits) and whose client never sent the request again: each is
 * completed from the request its charge kept, as the retry would have done, so that no client
 * pays for a booking that does not exist (nothing is ever lost: the charge is the booking's
 * commit point). Answers how many it completed; run periodically beside the billing sweep.
 *
 * In rounds (src/db/sweep_rounds.ts): the first after a start, and one an hour, looks a month
 * back (a crash may have stopped bookings before any downtime); each other round only at what
 * became stalled since the last, so a sweep reads minutes of charges, not a month of them. Within
 * a round each sweep goes on after the last charge the previous one looked at: a charge it cannot
 * complete (kept before its request was) never keeps the charges after it waiting behind it,
 * and one that failed is looked at again by the next round.
 */
export function completeStalledBookings(
  env: Pick<Deps, "runtime" | "db">,
  now: number,
): Promise<number> {
  const runtime = env.runtime;
  let rounds = stalledSweeps.get(runtime);
  if (!rounds) {
    stalledSweeps.set(
      runtime,
      rounds = new SweepRounds({
        lookbackMs: STALLED_BOOKING_LOOKBACK_MS,
        settleMs: STALLED_BOOKING_MS,
        deepEveryMs: SWEEP_DEEP_EVERY_MS,
        pageSize: STALLED_BOOKINGS_PER_SWEEP,
        pagesPerPass: 1,
      }),
    );
  }
  return rounds.pass(now, async (w) => {
    let q = env.db.selectFrom("ledger_entries as le")
      .select(["le.tenant", "le.client_id", "le.shipment", "le.created_at"])
      .where("le.kind", "=", "shipment")
      .where("le.shipment", "is not", null)
      .where("le.created_at", "<", new Date(w.until))
      // The bound on created_at alone keeps the scan on the partial index (migration 0008).
      .where("le.created_at", ">=", new Date(w.after?.at ?? w.from));
    if (w.after) {
      q = q.where(
        sql<boolean>`(le.created_at, le.shipment) > (${new Date(w.after.at)}, ${w.after.key})`,
      );
    }
    const rows = await q
      .where(({ not, exists, selectFrom }) =>
        not(exists(
          selectFrom("snapshots as s")
            .select(sql`1`.as("one"))
            .where("s.type", "=", shipmentActor.type)
            .whereRef("s.id", "=", "le.shipment"),
        ))
      )
      .orderBy("le.created_at")
      .orderBy("le.shipment")
      .limit(STALLED_BOOKINGS_PER_SWEEP)
      .execute();
    return await sweepRows(
      rows,
      (row) => ({ at: row.created_at.getTime(), key: row.shipment! }),
      (row) => completeStalledBooking(runtime, row.tenant, row.client_id, row.shipment!),
      (e, row) => console.error(`completing the stalled booking ${row.shipment}:`, e),
    );
  });
}

/** One stalled booking: false when there is nothing to complete (made meanwhile, or unknown). */
async function completeStalledBooking(
  runtime: ActorRuntime,
  courierId: string,
  clientId: string,
  waybill: string,
): Promise<boolean> {
  // The query side may lag behind: the shipment actor is the truth.
  if ((await runtime.read(shipmentActor, courierId, waybill, { kind: "get" })).ok) return false;
  const kept = await runtime.replyUnder(courierClientActor, clientId, chargeKeyOf(waybill));
  // A withdrawn charge took nothing: there is no booking to complete (withdrawStopped).
  if (isWithdrawn(kept?.reply)) return false;
  const charged = kept?.reply as BookingChargeReply | undefined;
  const origin = charged?.booking;
  const serviceLevel = charged?.service_level;
  // A charge kept before its request was recorded is completed by the client's retry only.
  if (!origin || serviceLevel === undefined) return false;
  const offer = await runtime.read(priceOfferActor, courierId, origin.prices_reference, {
    kind: "get",
  });
  const client = await runtime.read(courierClientActor, courierId, clientId, { kind: "get" });
  if (!offer.ok || !client.ok) return false;
  const held = asOffer(offer.reply);
  const option = held.options.find((o) => o.code === serviceLevel);
  if (!option || waybillOf(courierId, held.reference) !== waybill) return false;
  const booked = await makeShipment(
    runtime,
    held,
    option,
    asClient(client.reply),
    charged,
    waybill,
    { dangerousGoodsConfirmed: origin.dangerous_goods_confirmed, by: origin.by },
  );
  // CONTRACT: a cross-border shipment gets one crossing at booking.
  await openBookingCrossing(runtime, booked.shipment, origin.by);
  return booked.created;
}

/**
 * Whether the booking of offer `reference` looks stopped for good before its charge: its charge
 * already withdrawn (then it is, at any time), or no shipment, no charge, and prices expired
 * STOPPED_AFTER_EXPIRY_MS ago (their hold passed, or the cut-off moved every option's collection
 * past the day shown), so that a retry of it would be refused now. The latter is a guess about
 * time, not a fence (an attempt past its checks may stall for longer):
 * it says when withdrawStopped is worth trying, which alone makes a takeover safe. `claimedAt`:
 * when the booking claimed what another now asks for, if known; one that claimed it
 * STOPPED_AFTER_CLAIM_MS ago without charging looks stopped too. Answers the offer when it
 * looks stopped, else null.
 */
async function stoppedBeforeCharge(
  c: Context<AppEnv>,
  courierId: string,
  reference: string,
  claimedAt?: number,
): Promise<PriceOffer | null> {
  const env = c.get("env");
  const runtime = env.runtime;
  const got = await runtime.read(priceOfferActor, courierId, reference, { kind: "get" });
  if (!got.ok || !got.reply) return null;
  const offer = asOffer(got.reply);
  const waybill = waybillOf(courierId, reference);
  // The charge is looked for where it would be: under the client the offer priced for (an
  // office's key may have been bound to another client's booking than the caller's).
  const kept = await keptCharge(runtime, offer.client_id, waybill);
  if (kept === "charged") return null;
  // A charge key that already holds a withdrawal is stopped for good, whatever the clock says:
  // the account answers every charge under it the withdrawal (permanent), so no attempt can ever
  // charge these prices nor make their shipment. Waiting for them to expire would only keep a
  // request at request_in_progress, and a reference or an identity from a booking that can be
  // made, for up to their whole hold (spec: courier 4.1, 4.2, 4.6).
  if (kept === "withdrawn") return offer;
  const now = env.clock.now();
  const stalled = claimedAt !== undefined && now - claimedAt > STOPPED_AFTER_CLAIM_MS;
  if (!stalled && !expiredAt(offer, now - STOPPED_AFTER_EXPIRY_MS)) return null;
  if ((await runtime.read(shipmentActor, courierId, waybill, { kind: "get" })).ok) return null;
  return offer;
}

/** What withdrawStopped did to a booking that holds what another booking needs. */
export type Withdrawal =
  /** Its charge is fenced off for good: what it holds may be given to another booking. */
  | "withdrawn"
  /** It charged after all, just before the withdrawal: it stands, and is completed. */
  | "charged"
  /** It may still be on its way (stoppedBeforeCharge): nothing was done. */
  | "on_its_way";

/**
 * Takes the booking of offer `reference` out of the way when it seems to have stopped for good
 * before its charge (stoppedBeforeCharge, a rule of time: when trying is worth it). Safety does
 * not rest on that rule, since an attempt may stall for any time between its checks and its
 * charge: the charge is fenced off in the client account, with a withdrawal sent under the
 * booking's own charge key, kept for good. The account decides one command at a time and keeps
 * one reply per key (runtime: a command under a key already kept is answered that reply, and
 * decides nothing), so of the charge and the withdrawal the first to commit answers both: a
 * withdrawal after the charge is answered the charge ("charged"), and a charge after the
 * withdrawal is answered the withdrawal, which bookOfferOnce refuses. spec: courier 4.1, 4.2.
 */
export async function withdrawStopped(
  c: Context<AppEnv>,
  courierId: string,
  reference: string,
  claimedAt?: number,
): Promise<Withdrawal> {
  const offer = await stoppedBeforeCharge(c, courierId, reference, claimedAt);
  if (offer === null) return "on_its_way";
  return await withdraw(c, courierId, offer);
}

/**
 * Fences off the charge of offer `reference` now, whoever may still be on its way to it: for a
 * booking that itself found the prices expired, and priced again at once, while another attempt
 * of its request (which resumed the same prices) may have checked them in time and be charging
 * (shipment_requests.ts bookRequest). "charged": that attempt charged first, its booking stands.
 */
export async function withdrawBooking(
  c: Context<AppEnv>,
  courierId: string,
  reference: string,
): Promise<"withdrawn" | "charged"> {
  const got = await c.get("env").runtime.read(priceOfferActor, courierId, reference, {
    kind: "get",
  });
  // No offer (voided, or never made) can be charged.
  if (!got.ok || !got.reply) return "withdrawn";
  return await withdraw(c, courierId, asOffer(got.reply));
}

/** The withdrawal itself (withdrawStopped): the first of it and the charge answers both. */
async function withdraw(
  c: Context<AppEnv>,
  courierId: string,
  offer: PriceOffer,
): Promise<"withdrawn" | "charged"> {
  const runtime = c.get("env").runtime;
  // Sent where the charge goes: the client the offer priced for.
  const waybill = waybillOf(courierId, offer.reference);
  const fenced = await runtime.ask(courierClientActor, courierId, offer.client_id, {
    kind: "withdraw_booking",
    waybill,
  }, { idempotencyKey: chargeKeyOf(waybill), permanent: true });
  if (!fenced.ok) throw fromRejection(fenced);
  return isWithdrawn(fenced.reply) ? "withdrawn" : "charged";
}

/**
 * The idempotency key of the booking of `waybill` on its client's account: its charge, and the
 * withdrawal that fences the charge off (withdrawStopped), are kept under it, first come first.
 */
function chargeKeyOf(waybill: string): string {
  return `charge:${waybill}`;
}

/**
 * What the client's account keeps under the booking's charge key: its charge ("charged"), the
 * withdrawal that fenced it off for good ("withdrawn"), or nothing yet (null).
 */
async function keptCharge(
  runtime: ActorRuntime,
  clientId: string,
  waybill: string,
): Promise<"charged" | "withdrawn" | null> {
  const kept = await runtime.replyUnder(courierClientActor, clientId, chargeKeyOf(waybill));
  if (kept === null) return null;
  return isWithdrawn(kept.reply) ? "withdrawn" : "charged";
}

/**
 * Whether no booking of the offer could pass bookOfferOnce's checks at `at`: past its hold, or,
 * for held prices, with every option's collection moved past the day shown by its cut-off
 * (spec: courier 2.2 rule 2, 3).
 */
function expiredAt(offer: PriceOffer, at: number): boolean {
  if (at > offer.valid_until) return true;
  return offer.kind === "prices" &&
    offer.options.every((o) => collectionMovedTo(offer, o, at) !== null);
}

/**
 * spec: courier 2.2 rule 3: held prices showed their dates: the collection day booking `option`
 * at `at` gets once the cut-off has moved it past the day shown (the prices have expired), else
 * null. A saved quote, held 7 days, gets the dates of the day it is booked: never moved.
 */
function collectionMovedTo(offer: PriceOffer, option: OfferOption, at: number): string | null {
  if (offer.kind !== "prices") return null;
  const day = promiseAtBooking(serviceTermsOf(offer, option), at).collection_on;
  return day === option.collection_on ? null : day;
}

/**
 * Whether the claim's holder (refused: its waybill and offer reference) stopped before its
 * charge and had its charge withdrawn (withdrawStopped): it can never be charged now.
 */
async function claimHolderWithdrawn(
  c: Context<AppEnv>,
  courierId: string,
  refused: { readonly code: string; readonly details?: Readonly<Record<string, unknown>> },
): Promise<boolean> {
  const held = refused.details?.waybill, heldReference = refused.details?.reference;
  if (refused.code !== "duplicate_order") return false;
  if (typeof held !== "string" || typeof heldReference !== "string") return false;
  if (waybillOf(courierId, heldReference) !== held) return false;
  const at = refused.details?.claimed_at;
  const claimedAt = typeof at === "number" ? at : undefined;
  return await withdrawStopped(c, courierId, heldReference, claimedAt) === "withdrawn";
}

/**
 * The same booking again: the shipment it made, unless the request differs from the one booked
 * (another option of the offer, or another dangerous goods answer): answered as already booked,
 * it would show the caller a booking that was not made.
 */
function replayed(
  shipment: Shipment,
  request: Pick<BookOfferOptions, "serviceLevel" | "dangerousGoodsConfirmed">,
): Booked {
  if (shipment.pricing.service.code !== request.serviceLevel) {
    throw reBooked(shipment.pricing.service.code, shipment.waybill);
  }
  if (shipment.dangerous_goods_confirmed !== request.dangerousGoodsConfirmed) {
    throw new ApiError(
      "reference_conflict",
      `these prices were already booked with dangerous_goods_confirmed ` +
        `${shipment.dangerous_goods_confirmed}: ${shipment.waybill}`,
    );
  }
  return { shipment, already_booked: true };
}

function reBooked(serviceLevel: string, waybill: string): ApiError {
  return new ApiError(
    "reference_conflict",
    `these prices were already booked with service ${serviceLevel}: ${waybill}`,
  );
}

async function newShipment(
  offer: PriceOffer,
  option: OfferOption,
  waybill: string,
  o: {
    dangerousGoodsConfirmed: boolean;
    by: string;
    now: number;
    settlementMode: CourierClient["settings"]["settlement_mode"];
  },
): Promise<ShipmentBooking> {
  const token = newSecret("");
  const r = offer.request;
  const terms = serviceTermsOf(offer, option);
  const party = (p: Readonly<Record<string, string | number | null>>) => ({
    name: (p.name as string | null) ?? null,
    address: (p.address as string | null) ?? null,
    phone: (p.phone as string | null) ?? null,
    lat: (p.lat as number | null) ?? null,
    lng: (p.lng as number | null) ?? null,
  });
  return {
    waybill,
    courier_id: offer.courier_id,
    client_id: offer.client_id,
    booked_at: o.now,
    booked_by: o.by,
    from_country: r.from_country,
    to_country: r.to_country,
    sender: party(r.sender),
    recipient: party(r.recipient),
    parcels: r.parcels.map((p) => ({ ...p })),
    contents: r.contents,
    declared_value_minor: r.declared_value_minor,
    liability_cover: r.liability_cover,
    dangerous_goods_confirmed: o.dangerousGoodsConfirmed,
    references: {
      external_customer_code: r.external_customer_code,
      external_billing_reference: r.external_billing_reference,
      client_order_reference: r.client_order_reference,
    },
    pricing: {
      prices_reference: offer.reference,
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
      // spec: courier 2.2 rule 3: held prices book the dates they showed; bookOfferOnce checked
      // them against the cut-off, which may pass before the charge commits. A saved quote,
      // held 7 days, gets the dates of the day it is charged.
      promise: offer.kind === "prices"
        ? {
          collection_on: option.collection_on,
          earliest_delivery: option.earliest_delivery,
          latest_delivery: option.latest_delivery,
        }
        : promiseAtBooking(terms, o.now),
    },
    service_terms: terms,
    tracking_token: token,
    tracking_token_hash: await hashSecret(token),
  };
}

/**
 * spec: courier 2.8: collection follows the booking's time against the cut-off. The dates shown
 * were worked out when the prices were given, on the same frozen terms: booked the same day
 * before the cut-off they are these dates; a quote booked days later cannot be collected then and
 * gets the later ones (held prices past the cut-off have expired: bookOfferOnce, and book the
 * dates they showed: newShipment).
 */
function promiseAtBooking(
  terms: Readonly<Record<string, unknown>>,
  bookedAt: number,
): DeliveryWindow {
  const { calendar, cut_off, transit_days } = terms as {
    calendar: WorkingCalendar;
    cut_off: string;
    transit_days: number;
  };
  return deliveryWindow(calendar, bookedAt, cut_off, transit_days);
}

const WAYBILL_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";

/**
 * The waybill of an offer's booking, from its reference alone, so every retry of the booking names
 * the same shipment: the number a sequenced reference carries (src/courier/waybills.ts), else, for
 * references made before the sequence and those derived from a request's identity, `WB` and 12
 * characters of SHA-256 over the courier and the reference (60 bits).
 */
export function waybillOf(courierId: string, reference: string): string {
  const sequenced = sequencedWaybill(reference);
  if (sequenced !== null) return sequenced;
  const digest = sha256(`${courierId}:${reference}`);
  let out = "WB";
  for (let i = 0; i < 12; i++) out += WAYBILL_ALPHABET[digest[i]! % 32];
  return out;
}

/** spec: courier 2.2: one price line (optionView, pricingView). */
export const PriceLineAnswer = z.object({
  code: z.enum(PRICE_LINE_CODES).openapi({
    description: "`transport` first and `tax` last; the others only when not 0",
  }),
  label: z.string(),
  amount: Money.openapi({
    description: "What the line adds to the total (a discount is negative; inclusive tax 0)",
  }),
  included: z.boolean().optional().openapi({
    description: "Tax line only: true when the tax is already within the price",
  }),
  tax: Money.optional().openapi({ description: "Tax line only: the tax" }),
}).openapi("PriceLine");

/** What one option of held prices or a quotation shows (optionView). */
export const PriceOptionAnswer = z.object({
  code: z.string().openapi({ description: "The service level: book it as `service_level`" }),
  name: z.string(),
  chargeable_kg: z.number().openapi({
    description: "Each parcel's larger of actual and volumetric weight, added up, in kg",
  }),
  lines: z.array(PriceLineAnswer).openapi({ description: "They add up to `total`" }),
  tax: Money,
  total: Money,
  currency: Currency,
  collection_on: CalendarDay,
  earliest_delivery: CalendarDay,
  latest_delivery: CalendarDay,
  possible_later_charges: z.string().optional().openapi({
    description: "Cross-border only: what may be billed later, each as its own charge",
  }),
}).openapi("PriceOption");

const OfferAccountAnswer = z.object({
  settlement_mode: Settlement,
  currency: Currency,
  available: Money.nullable().openapi({
    description: "What the account could cover when priced; null for external settlement",
  }),
}).openapi("OfferAccount");

/** POST /client/prices (and its aliases): held prices (offerView of kind `prices`). */
export const PricesAnswer = z.object({
  prices_reference: z.string().openapi({ description: "Book an option with POST /client/book" }),
  valid_until: UtcInstant.openapi({
    description: "Bookable up to and including this instant, unless the cut-off moves " +
      "collection past the day shown first (then 422 prices_expired)",
  }),
  options: z.array(PriceOptionAnswer),
  account: OfferAccountAnswer,
}).openapi("Prices");

/** POST /client/quotes: a saved quotation (offerView of kind `quote`). */
export const QuoteAnswer = z.object({
  quote_reference: z.string().openapi({
    description: "Book an option with POST /client/quotes/{reference}/book",
  }),
  prices_reference: z.string().openapi({ description: "The same reference as quote_reference" }),
  valid_until: UtcInstant.openapi({ description: "Held 7 days, until then inclusive" }),
  options: z.array(PriceOptionAnswer).openapi({
    description: "Dates as of today: booked later, the dates are those of the day of booking",
  }),
  account: OfferAccountAnswer,
}).openapi("Quote");

/** A booking's answer, new (201) or the same request again (200 `already_booked`). */
export const BookingAnswer = z.object({
  waybill: z.string(),
  tracking_url: z.url().openapi({ description: "The public tracking page" }),
  status: z.enum(HEADLINES),
  service_level: z.string(),
  total: Money.openapi({ description: "What was charged (the frozen price)" }),
  currency: Currency,
  prices_reference: z.string().openapi({
    description: "The held prices or quotation the booking was made from",
  }),
  collection_on: CalendarDay.openapi({
    description: "The dates the booking froze: a quotation booked days after it was saved gets " +
      "those of the day it is booked",
  }),
  earliest_delivery: CalendarDay,
  latest_delivery: CalendarDay,
  already_booked: z.boolean().openapi({
    description: "true: the same request again, answered with the booking it made (200)",
  }),
}).openapi("Booking");

export function optionView(o: OfferOption) {
  return {
    code: o.code,
    name: o.name,
    chargeable_kg: o.chargeable_grams / 1000,
    lines: o.lines.map((l) => ({
      code: l.code,
      label: l.label,
      amount: decimal(l.amount_minor, o.currency),
      ...(l.included === undefined ? {} : { included: l.included }),
      ...(l.tax_minor === undefined ? {} : { tax: decimal(l.tax_minor, o.currency) }),
    })),
    tax: decimal(o.tax_minor, o.currency),
    total: decimal(o.total_minor, o.currency),
    currency: o.currency,
    collection_on: o.collection_on,
    earliest_delivery: o.earliest_delivery,
    latest_delivery: o.latest_delivery,
    ...(o.possible_later_charges ? { possible_later_charges: o.possible_later_charges } : {}),
  };
}

export function offerView(o: PriceOffer) {
  const key = o.kind === "quote" ? "quote_reference" : "prices_reference";
  return {
    [key]: o.reference,
    prices_reference: o.reference,
    valid_until: new Date(o.valid_until).toISOString(),
    options: o.options.map(optionView),
    account: {
      settlement_mode: o.account.settlement_mode,
      currency: o.account.currency,
      available: o.account.available_minor === null
        ? null
        : decimal(o.account.available_minor, o.account.currency),
    },
  };
}

/**
 * A row's `service_level` that is none of the courier's service levels, as its refusal; null when
 * it is one (or absent, which the row's schema reports). Bulk and CSV rows check it with their
 * other fields, so one answer names every problem of a row (pricing, which needs a valid row,
 * later refuses a known level the route does not offer).
 */
export function unknownServiceLevel(value: unknown, known: readonly string[]): string | null {
  if (typeof value !== "string" || value === "" || known.includes(value)) return null;
  return `no such service level (the courier's: ${known.join(", ")}): ${value}`;
}

/** The public tracking view's address (CONTRACT: `GET /api/s/{token}`). */
export function trackingUrl(c: Context<AppEnv>, token: string): string {
  return `${publicBaseUrl(c)}/api/s/${token}`;
}

export function bookingView(c: Context<AppEnv>, b: Booked) {
  const s = b.shipment;
  return {
    waybill: s.waybill,
    tracking_url: trackingUrl(c, s.tracking_token),
    status: s.status,
    service_level: s.pricing.service.code,
    total: decimal(s.pricing.total_minor, s.pricing.currency),
    currency: s.pricing.currency,
    prices_reference: s.pricing.prices_reference,
    // The promise the booking froze (courier 2.3): the dates the prices showed (held prices past
    // the cut-off have expired), or, for a quote booked days later, that day's dates.
    ...s.pricing.promise,
    already_booked: b.already_booked,
  };
}
