/**
 * Courier 2.1, 2.2: pricing. Every eligible service of the courier priced for a client on its
 * rate card, with the dates each would keep, held as one offer (held prices, or a saved quote).
 */
import { balancesOf } from "../../../../actors/courier/client_ledger.ts";
import type { CourierClient } from "../../../../actors/courier/courier_client.ts";
import {
  type Calendar,
  calendarById,
  type CourierCatalogue,
  courierCatalogueActor,
} from "../../../../actors/courier/courier_catalogue.ts";
import {
  PLATFORM_SETTINGS_ID,
  PLATFORM_TENANT,
  platformSettingsActor,
} from "../../../../actors/platform/platform_settings.ts";
import {
  asOffer,
  type OfferOption,
  type OfferRequest,
  type PriceOffer,
  priceOfferActor,
} from "../../../../actors/courier/price_offer.ts";
import { asRateCard, type RateCard, rateCardActor } from "../../../../actors/courier/rate_card.ts";
import { deliveryWindow } from "../../../domain/calendar.ts";
import { type ParsedAmount, toMinor } from "../../../domain/money.ts";
import type { Deps } from "../../../environment.ts";
import { orRefuse, refuse } from "../../../runtime/actor.ts";
import {
  possibleLaterCharges,
  type PricedOption,
  priceOption,
  PriceOutOfRange,
} from "../../rules/pricing.ts";
import { type RateCardVersion, versionInForce } from "../../rules/rate_card.ts";
import { available } from "../../rules/settlement.ts";
import { newOfferReference } from "../waybills.ts";
import { heldUntil } from "./promise.ts";
import { type FieldProblem, refuseFields } from "./refusals.ts";

/** spec: courier 8: a formal quotation is held 7 days. */
export const QUOTE_HOLD_MS = 7 * 24 * 60 * 60 * 1000;

/** One parcel of a price request (courier 2.1). */
export interface ParcelInput {
  readonly weight_kg: number;
  readonly length_cm: number;
  readonly width_cm: number;
  readonly height_cm: number;
  /** spec: courier 4.6: what this parcel holds (its packing slip page). */
  readonly contents?: string | undefined;
}

/** spec: courier 2.1: the price request, as its schema reads it. */
export interface PriceInput {
  readonly sender_name?: string | undefined;
  readonly sender_address?: string | undefined;
  readonly sender_lat?: number | undefined;
  readonly sender_lng?: number | undefined;
  readonly recipient_name?: string | undefined;
  readonly recipient_phone?: string | undefined;
  readonly recipient_address?: string | undefined;
  readonly recipient_lat?: number | undefined;
  readonly recipient_lng?: number | undefined;
  readonly parcels: readonly ParcelInput[];
  readonly contents?: string | undefined;
  readonly declared_value?: number | string | undefined;
  readonly liability_cover: boolean;
  readonly from_country: string;
  readonly to_country: string;
  readonly external_customer_code?: string | undefined;
  readonly external_billing_reference?: string | undefined;
  readonly client_order_reference?: string | undefined;
  readonly sort?: "cheapest" | undefined;
}

/** What an offer is: held prices or a saved quote, and a reference given in advance, if any. */
export interface OfferKind {
  readonly kind: "prices" | "quote";
  /** An idempotent request's reference (courier 4.6): it names the waybill in advance. */
  readonly reference?: string;
}

/** Prices every eligible service for a client and holds the offer (courier 2.2). */
export async function makeOffer(
  deps: Pick<Deps, "runtime" | "clock" | "requestId">,
  client: CourierClient,
  body: PriceInput,
  given: OfferKind,
): Promise<PriceOffer> {
  const { runtime } = deps;
  const now = deps.clock.now();
  const courier = client.business_id;
  const { card, version } = await rateCardInForce(deps, client, now);
  const input = pricingInput(body, version.terms.currency);
  const catalogue = orRefuse(
    await runtime.read(courierCatalogueActor, courier, courier, { kind: "get" }),
  );
  if (catalogue.service_levels.length === 0) {
    refuse("no_service_levels", "the courier has no service levels to offer");
  }
  const { options, calendars } = pricedOptions(version.terms, catalogue, input, now);
  if (body.sort === "cheapest") options.sort((a, b) => a.total_minor - b.total_minor);
  const hold = given.kind === "quote" ? QUOTE_HOLD_MS : (await holdMinutes(deps)) * 60_000;
  // A given reference (an idempotent request's, courier 4.6) names the waybill in advance.
  const reference = given.reference ?? await newOfferReference(runtime, given.kind);
  const priced: PriceOffer = {
    reference,
    kind: given.kind,
    courier_id: courier,
    client_id: client.id,
    created_at: now,
    valid_until: now + hold,
    request: offerRequest(body, input),
    rate_card: { id: card.id, version: version.version },
    options,
    calendars,
    account: {
      settlement_mode: client.settings.settlement_mode,
      currency: client.settings.billing_currency,
      available_minor: available(client.settings, balancesOf(client)),
    },
  };
  // spec: courier 2.2 rule 2, 2.8: held no longer than the dates shown stay true.
  const offer = { ...priced, valid_until: heldUntil(priced, now + hold) };
  return asOffer(orRefuse(
    await runtime.ask(priceOfferActor, courier, reference, { kind: "make", offer }, {
      requestId: deps.requestId,
      fresh: true,
    }),
  ));
}

/**
 * The request's own rules beyond its schema's: what would price nothing or misplace a party, and
 * a declared value the card's currency cannot hold. Every problem is named in one refusal (spec:
 * courier 2.1; CONTRACT 422 validation_failed with errors[]).
 */
function requestProblems(body: PriceInput, declared: ParsedAmount | null): FieldProblem[] {
  const problems: FieldProblem[] = [];
  // Cover is a share of the declared value: asked without one, it would silently cover nothing.
  if (body.liability_cover && body.declared_value === undefined) {
    problems.push({
      path: "declared_value",
      message: "required with liability_cover: the cover is priced on the declared value",
    });
  }
  if (declared && !declared.ok) {
    problems.push({ path: "declared_value", message: declared.message });
  }
  // A point is a pair: a latitude alone places the party nowhere, and a map would show it at 0°.
  for (const who of ["sender", "recipient"] as const) {
    const lat = body[`${who}_lat`], lng = body[`${who}_lng`];
    if ((lat === undefined) === (lng === undefined)) continue;
    const missing = lat === undefined ? `${who}_lat` : `${who}_lng`;
    const given = lat === undefined ? `${who}_lng` : `${who}_lat`;
    problems.push({ path: missing, message: `required with ${given}: a point needs both` });
  }
  return problems;
}

/** The client's rate card and its version in force now, or the refusal no_rate_card. */
async function rateCardInForce(
  deps: Pick<Deps, "runtime">,
  client: CourierClient,
  now: number,
): Promise<{ card: RateCard; version: RateCardVersion }> {
  if (!client.settings.rate_card_id) {
    refuse("no_rate_card", `client ${client.code} has no rate card; the courier must assign one`);
  }
  const card = asRateCard(orRefuse(
    await deps.runtime.read(rateCardActor, client.business_id, client.settings.rate_card_id, {
      kind: "get",
    }),
  ));
  const version = versionInForce(card.versions, now);
  if (!version) refuse("no_rate_card", `no version of rate card ${card.id} is in force yet`);
  return { card, version };
}

/**
 * What pricing reads of the request: the parcels, the corridor and the value declared (in the
 * card's currency); the request refused first, naming each field its rules find wrong.
 */
function pricingInput(body: PriceInput, currency: string) {
  const declared = body.declared_value === undefined
    ? null
    : toMinor(body.declared_value, currency);
  const problems = requestProblems(body, declared);
  if (problems.length > 0) refuseFields(problems);
  return {
    parcels: body.parcels,
    from_country: body.from_country,
    to_country: body.to_country,
    declared_value_minor: declared?.ok ? declared.minor : null,
    liability_cover: body.liability_cover,
  };
}

type PricingInput = ReturnType<typeof pricingInput>;
type Terms = RateCardVersion["terms"];

/** Every service level of the catalogue priced, in the catalogue's order, with its dates. */
function pricedOptions(
  terms: Terms,
  catalogue: CourierCatalogue,
  input: PricingInput,
  now: number,
): { options: OfferOption[]; calendars: Record<string, Calendar> } {
  const laterCharges = possibleLaterCharges(terms, input.from_country, input.to_country);
  // Each calendar is held once per offer, however many service levels count on it: copied into
  // every option, a catalogue within its limits made an offer too large to store. The shipment
  // still freezes its service level with the whole calendar (bookOffer, courier 2.3, 2.8).
  const calendars: Record<string, Calendar> = {};
  const options = catalogue.service_levels.map((sl) => {
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
  return { options, calendars };
}

/**
 * One option priced, or the request refused (422) on the field whose size makes its price too
 * large to state exactly: bad input, never a failure (spec: courier 2.2 rule 1, CONTRACT 422).
 */
function priceOrRefuse(...args: Parameters<typeof priceOption>): PricedOption {
  try {
    return priceOption(...args);
  } catch (e) {
    if (e instanceof PriceOutOfRange) refuseFields([{ path: e.field, message: e.message }]);
    throw e;
  }
}

/** spec: CONTRACT "Operator API": the operator's price_hold_minutes. */
async function holdMinutes(deps: Pick<Deps, "runtime">): Promise<number> {
  const s = orRefuse(
    await deps.runtime.read(platformSettingsActor, PLATFORM_TENANT, PLATFORM_SETTINGS_ID, {
      kind: "get",
    }),
  );
  return s.price_hold_minutes;
}

/** The request as the offer keeps it, for the booking to make its shipment from. */
function offerRequest(body: PriceInput, input: PricingInput): OfferRequest {
  return {
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
