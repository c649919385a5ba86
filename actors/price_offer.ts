/**
 * A held price offer or a formal quotation (courier 2.2, 4.1): immutable once made; only what it
 * shows can be booked, and only until it expires. It also remembers which waybill booked it, so
 * the same booking request again finds the same shipment (courier 4.1: `already_booked`).
 */
import { accept, type ActorDefinition, reject, unreachable } from "../src/runtime/actor.ts";
import type { PricedOption, PricingInput } from "../src/domain/pricing.ts";
import type { SettlementMode } from "../src/domain/settlement.ts";

export interface OfferOption extends PricedOption {
  readonly collection_on: string;
  readonly earliest_delivery: string;
  readonly latest_delivery: string;
  readonly possible_later_charges: string | null;
  /** The service level as it stood when priced; the shipment freezes it (courier 2.3). */
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
  readonly account: {
    readonly settlement_mode: SettlementMode;
    readonly currency: string;
    readonly available_minor: number | null;
  };
  /** The booking made from this offer, once begun. */
  readonly booking: {
    readonly service_level: string;
    readonly waybill: string;
    readonly status: "booking" | "booked";
  } | null;
}

export type PriceOfferState = PriceOffer | null;

export type PriceOfferCommand =
  | { kind: "make"; offer: Omit<PriceOffer, "booking"> }
  | { kind: "begin_booking"; client_id: string; service_level: string; waybill: string }
  | { kind: "finish_booking"; waybill: string }
  | { kind: "abandon_booking"; waybill: string }
  | { kind: "get" };

export type PriceOfferEvent =
  | { kind: "offer_made"; offer: PriceOffer }
  | { kind: "booking_begun"; service_level: string; waybill: string }
  | { kind: "booking_finished"; waybill: string }
  | { kind: "booking_abandoned"; waybill: string };

/** begin_booking's answer: the option to book, the waybill, and whether it was booked before. */
export interface BookingTicket {
  readonly option: OfferOption;
  readonly waybill: string;
  readonly replay: boolean;
}

export type PriceOfferReply = PriceOffer | BookingTicket | undefined;

function decide(state: PriceOfferState, command: PriceOfferCommand | { kind: "timer" }, ctx: {
  now: number;
}) {
  const whole = (s: PriceOfferState) => s ?? undefined;
  if (command.kind === "make") {
    if (state !== null) return reject("already_exists", `offer exists: ${command.offer.reference}`);
    return accept<PriceOfferState, PriceOfferEvent, PriceOfferReply>(
      [{ kind: "offer_made", offer: { ...command.offer, booking: null } }],
      whole,
    );
  }
  if (state === null) return reject("not_found", "prices_reference not found");
  switch (command.kind) {
    case "get":
    case "timer":
      return accept<PriceOfferState, PriceOfferEvent, PriceOfferReply>([], whole);
    case "begin_booking": {
      // Another client's offer does not exist for this one (courier 4.6).
      if (state.client_id !== command.client_id) {
        return reject("not_found", "prices_reference not found");
      }
      const b = state.booking;
      if (b !== null) {
        if (b.service_level !== command.service_level) {
          return reject(
            "reference_conflict",
            `these prices were already booked with service ${b.service_level}: ${b.waybill}`,
          );
        }
        const option = state.options.find((o) => o.code === b.service_level)!;
        return accept<PriceOfferState, PriceOfferEvent, PriceOfferReply>([], () => ({
          option,
          waybill: b.waybill,
          replay: true,
        }));
      }
      // spec: courier 2.2 rule 2 and 7: expired prices are never booked.
      if (ctx.now > state.valid_until) {
        return reject(
          "prices_expired",
          `prices expired at ${new Date(state.valid_until).toISOString()}; ask for prices again`,
        );
      }
      // spec: courier 2.2 rule 3: only what was shown can be booked.
      const option = state.options.find((o) => o.code === command.service_level);
      if (!option) {
        return reject(
          "validation_failed",
          `service_level not among the offered options: ${command.service_level}`,
          {
            errors: [{
              path: "service_level",
              message: `offered: ${state.options.map((o) => o.code).join(", ")}`,
            }],
          },
        );
      }
      return accept<PriceOfferState, PriceOfferEvent, PriceOfferReply>(
        [{ kind: "booking_begun", service_level: option.code, waybill: command.waybill }],
        () => ({ option, waybill: command.waybill, replay: false }),
      );
    }
    case "finish_booking":
      if (state.booking?.waybill !== command.waybill || state.booking.status === "booked") {
        return accept<PriceOfferState, PriceOfferEvent, PriceOfferReply>([], whole);
      }
      return accept<PriceOfferState, PriceOfferEvent, PriceOfferReply>(
        [{ kind: "booking_finished", waybill: command.waybill }],
        whole,
      );
    case "abandon_booking":
      if (state.booking?.waybill !== command.waybill || state.booking.status === "booked") {
        return accept<PriceOfferState, PriceOfferEvent, PriceOfferReply>([], whole);
      }
      return accept<PriceOfferState, PriceOfferEvent, PriceOfferReply>(
        [{ kind: "booking_abandoned", waybill: command.waybill }],
        whole,
      );
    default:
      return unreachable(command);
  }
}

function evolve(state: PriceOfferState, event: PriceOfferEvent): PriceOfferState {
  if (event.kind === "offer_made") return event.offer;
  if (state === null) throw new Error(`${event.kind} before offer_made`);
  switch (event.kind) {
    case "booking_begun":
      return {
        ...state,
        booking: { service_level: event.service_level, waybill: event.waybill, status: "booking" },
      };
    case "booking_finished":
      return state.booking ? { ...state, booking: { ...state.booking, status: "booked" } } : state;
    case "booking_abandoned":
      return { ...state, booking: null };
    default:
      return unreachable(event);
  }
}

export function asOffer(reply: PriceOfferReply): PriceOffer {
  if (!reply || !("options" in reply)) throw new Error("expected the offer in the reply");
  return reply;
}

export function asTicket(reply: PriceOfferReply): BookingTicket {
  if (!reply || !("waybill" in reply) || !("option" in reply)) {
    throw new Error("expected a booking ticket in the reply");
  }
  return reply;
}

export const priceOfferActor: ActorDefinition<
  PriceOfferState,
  PriceOfferCommand,
  PriceOfferEvent,
  PriceOfferReply
> = {
  type: "price_offer",
  version: 1,
  initial: null,
  decide,
  evolve,
  project: (s) =>
    s === null ? null : {
      reference: s.reference,
      kind: s.kind,
      client_id: s.client_id,
      created_at: s.created_at,
      valid_until: s.valid_until,
      options: s.options.map((o) => ({
        code: o.code,
        total_minor: o.total_minor,
        currency: o.currency,
      })),
      booking: s.booking,
    },
};
