/**
 * A held price offer or a formal quotation (courier 2.2, 4.1): its prices are immutable once made
 * (rule 3); only what it shows can be booked, and only until it expires. The waybill of its
 * booking is derived from its reference, so the same booking request again finds the same
 * shipment. A quote whose booking was withdrawn (another booking took its place) is booked again
 * under a copy of it (`rebooked_as`, src/courier/flows/booking/rebook.ts), since the withdrawn
 * waybill can never be charged.
 */
import { accept, type ActorDefinition, reject, unreachable } from "../../src/runtime/actor.ts";
import type { PricedOption, PricingInput } from "../../src/courier/rules/pricing.ts";
import type { SettlementMode } from "../../src/courier/rules/settlement.ts";
import type { Calendar } from "./courier_catalogue.ts";

/**
 * The largest offer record: the catalogue it was priced from (its calendars and service levels
 * once each, at most the catalogue's own ~56 KB) and 50 options of lines, dates and later
 * charges (up to some 2 KB each with 200-character names). Past one store value the runtime
 * splits the record; most offers fit one.
 */
const OFFER_BYTES_MAX = 250_000;

/** What a missing offer answers, and another client's (src/courier/flows/booking/book.ts). */
export const OFFER_NOT_FOUND = "prices_reference not found";
export interface OfferOption extends PricedOption {
  readonly collection_on: string;
  readonly earliest_delivery: string;
  readonly latest_delivery: string;
  readonly possible_later_charges: string | null;
  /**
   * The service level as it stood when priced, naming its calendar by `calendar_id` (held once
   * in the offer's `calendars`); the shipment freezes both (courier 2.3), see serviceTermsOf.
   */
  readonly service_terms: Readonly<Record<string, unknown>>;
}

/** What the price request said, beyond the pricing input (names, addresses, references). */
export interface OfferRequest extends PricingInput {
  readonly sender: Readonly<Record<string, string | number | null>>;
  readonly recipient: Readonly<Record<string, string | number | null>>;
  readonly contents: string | null;
  readonly external_customer_code: string | null;
  readonly external_billing_reference: string | null;
  readonly client_order_reference: string | null;
}

export interface PriceOffer {
  readonly reference: string;
  readonly kind: "prices" | "quote";
  readonly courier_id: string;
  readonly client_id: string;
  readonly created_at: number;
  readonly valid_until: number;
  readonly request: OfferRequest;
  readonly rate_card: { readonly id: string; readonly version: number };
  readonly options: readonly OfferOption[];
  /** The calendars of the options' service levels as they stood when priced, by id. */
  readonly calendars: Readonly<Record<string, Calendar>>;
  readonly account: {
    readonly settlement_mode: SettlementMode;
    readonly currency: string;
    readonly available_minor: number | null;
  };
  /** On a quote: the copy its booking goes under now, its own booking having been withdrawn. */
  readonly rebooked_as?: string;
  /** On such a copy: the quote it books (it is not listed as a quote of its own). */
  readonly rebooks?: string;
}

/**
 * A reference withdrawn before any offer was made under it: a booking request that stopped
 * before pricing gave its identity to another request, and a late attempt of it must neither
 * make nor book an offer there (src/courier/flows/booking/request_identity.ts).
 */
export interface VoidedOffer {
  readonly voided_at: number;
}

export type PriceOfferState = PriceOffer | VoidedOffer | null;

export type PriceOfferCommand =
  | { kind: "make"; offer: PriceOffer }
  | { kind: "void" }
  /** The quote's booking under `withdrawn` was withdrawn: book it under `reference` from now. */
  | { kind: "rebook"; withdrawn: string; reference: string }
  | { kind: "get" };

export type PriceOfferEvent =
  | { kind: "offer_made"; offer: PriceOffer }
  | { kind: "offer_voided"; at: number }
  | { kind: "offer_rebooked"; reference: string };

export type PriceOfferReply = PriceOffer | undefined;

function decide(
  state: PriceOfferState,
  command: PriceOfferCommand | { kind: "timer" },
  ctx: { readonly now: number },
) {
  const whole = (s: PriceOfferState) => s === null || isVoided(s) ? undefined : s;
  switch (command.kind) {
    case "make":
      // A voided reference takes no offer either: the same answer as a made one.
      if (state !== null) {
        return reject("already_exists", `offer exists: ${command.offer.reference}`);
      }
      return accept<PriceOfferState, PriceOfferEvent, PriceOfferReply>(
        [{ kind: "offer_made", offer: command.offer }],
        whole,
      );
    case "void":
      if (state !== null && !isVoided(state)) {
        return reject("already_exists", `offer exists: ${state.reference}`);
      }
      return accept<PriceOfferState, PriceOfferEvent, PriceOfferReply>(
        state === null ? [{ kind: "offer_voided", at: ctx.now }] : [],
      );
    case "rebook":
      return rebook(state, command);
    case "get":
      if (state === null || isVoided(state)) return reject("not_found", OFFER_NOT_FOUND);
      return accept<PriceOfferState, PriceOfferEvent, PriceOfferReply>([], whole);
    case "timer":
      return accept<PriceOfferState, PriceOfferEvent, PriceOfferReply>([]);
    default:
      return unreachable(command);
  }
}

/**
 * Moves a quote's booking off a withdrawn waybill once: the first of two bookings that found it
 * withdrawn names the copy, the other is answered the quote as moved and books that copy.
 */
function rebook(state: PriceOfferState, c: Extract<PriceOfferCommand, { kind: "rebook" }>) {
  if (state === null || isVoided(state)) return reject("not_found", OFFER_NOT_FOUND);
  if (state.kind !== "quote" || state.rebooks !== undefined) {
    return reject("not_a_quote", `only a saved quote is booked again: ${state.reference}`);
  }
  const events: PriceOfferEvent[] = (state.rebooked_as ?? state.reference) === c.withdrawn
    ? [{ kind: "offer_rebooked", reference: c.reference }]
    : [];
  return accept<PriceOfferState, PriceOfferEvent, PriceOfferReply>(
    events,
    (s) => s === null || isVoided(s) ? undefined : s,
  );
}

function evolve(state: PriceOfferState, event: PriceOfferEvent): PriceOfferState {
  switch (event.kind) {
    case "offer_made":
      return event.offer;
    case "offer_voided":
      return { voided_at: event.at };
    case "offer_rebooked":
      return state === null || isVoided(state) ? state : { ...state, rebooked_as: event.reference };
    default:
      return unreachable(event);
  }
}

function isVoided(state: PriceOffer | VoidedOffer): state is VoidedOffer {
  return "voided_at" in state;
}

/**
 * The service level an option was priced on, with its calendar, as the shipment freezes it
 * (spec: courier 2.3, 2.8: a later change to the service level or calendar never moves it).
 */
export function serviceTermsOf(
  offer: PriceOffer,
  option: OfferOption,
): Readonly<Record<string, unknown>> {
  const id = option.service_terms.calendar_id;
  const calendar = typeof id === "string" ? offer.calendars[id] : undefined;
  if (!calendar) {
    throw new Error(`offer ${offer.reference} holds no calendar for service ${option.code}`);
  }
  return { ...option.service_terms, calendar };
}

/**
 * Version 1 copied each service level's calendar into every option (`service_terms.calendar`),
 * which a large catalogue made too big to store; such an offer, still held, is read as version
 * 2: each calendar once in `calendars`, the options naming theirs by `calendar_id`.
 */
function load(stored: unknown, version: number): PriceOfferState {
  if (stored === null) return null;
  if (typeof stored === "object" && "voided_at" in stored) return stored as VoidedOffer;
  if (typeof stored !== "object" || !("options" in stored) || !("reference" in stored)) {
    throw new TypeError("stored price offer is not an offer");
  }
  const offer = stored as PriceOffer;
  if (version >= 2 && offer.calendars !== undefined) return offer;
  const calendars: Record<string, Calendar> = { ...offer.calendars };
  const options = offer.options.map((o) => {
    const { calendar, ...terms } = o.service_terms as { calendar?: Calendar };
    if (calendar === undefined) return o;
    calendars[calendar.id] = calendar;
    return { ...o, service_terms: { ...terms, calendar_id: calendar.id } };
  });
  return { ...offer, options, calendars };
}

export function asOffer(reply: PriceOfferReply): PriceOffer {
  if (!reply) throw new Error("expected the offer in the reply");
  return reply;
}

export const priceOfferActor: ActorDefinition<
  PriceOfferState,
  PriceOfferCommand,
  PriceOfferEvent,
  PriceOfferReply
> = {
  type: "price_offer",
  noun: "prices reference",
  version: 2,
  initial: null,
  decide,
  evolve,
  load,
  stateBytesMax: OFFER_BYTES_MAX,
  // Held prices are read from the actor; only quotations are listed from the query side.
  publishEvents: false,
  logEvents: false,
  project: (s) =>
    s === null || isVoided(s) || s.kind !== "quote" || s.rebooks !== undefined ? undefined : {
      reference: s.reference,
      ...(s.rebooked_as === undefined ? {} : { rebooked_as: s.rebooked_as }),
      kind: s.kind,
      client_id: s.client_id,
      created_at: s.created_at,
      valid_until: s.valid_until,
      options: s.options.map((o) => ({
        code: o.code,
        total_minor: o.total_minor,
        currency: o.currency,
      })),
    },
};
