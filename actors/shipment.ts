/**
 * A courier shipment (courier 2.3): identified by its waybill, it keeps a frozen pricing snapshot
 * and the service-level terms of the moment it was booked; nothing later rewrites them. It can
 * stay open 1 to 14 days (courier 1.4); its lifecycle grows from here.
 */
import { accept, type ActorDefinition, reject, unreachable } from "../src/runtime/actor.ts";
import type { PriceLine } from "../src/domain/pricing.ts";
import type { SettlementMode } from "../src/domain/settlement.ts";

/** spec: courier 2.3: rate-card version, inputs, service, every line, tax, currency, payer, promise. */
export interface FrozenPricing {
  readonly prices_reference: string;
  readonly rate_card_id: string;
  readonly rate_card_version: number;
  readonly service: { readonly code: string; readonly name: string };
  readonly chargeable_grams: number;
  readonly lines: readonly PriceLine[];
  readonly tax_minor: number;
  readonly total_minor: number;
  readonly currency: string;
  readonly payer: "client";
  readonly settlement_mode: SettlementMode;
  readonly promise: {
    readonly collection_on: string;
    readonly earliest_delivery: string;
    readonly latest_delivery: string;
  };
}

export interface ShipmentParty {
  readonly name: string | null;
  readonly address: string | null;
  readonly phone: string | null;
  readonly lat: number | null;
  readonly lng: number | null;
}

export interface Shipment {
  readonly waybill: string;
  readonly courier_id: string;
  readonly client_id: string;
  readonly booked_at: number;
  readonly booked_by: string;
  readonly status: "booked";
  readonly from_country: string;
  readonly to_country: string;
  readonly sender: ShipmentParty;
  readonly recipient: ShipmentParty;
  readonly parcels: readonly {
    weight_kg: number;
    length_cm: number;
    width_cm: number;
    height_cm: number;
  }[];
  readonly contents: string | null;
  readonly declared_value_minor: number | null;
  readonly liability_cover: boolean;
  readonly dangerous_goods_confirmed: boolean;
  readonly references: {
    readonly external_customer_code: string | null;
    readonly external_billing_reference: string | null;
    readonly client_order_reference: string | null;
  };
  readonly pricing: FrozenPricing;
  /** spec: courier 2.8: the service level as it stood at booking. */
  readonly service_terms: Readonly<Record<string, unknown>>;
  /**
   * The customer tracking link's token. Kept readable (not only hashed) because every read of the
   * booking shows its tracking_url again (courier 4.1, Business API 2.2); found by its hash.
   */
  readonly tracking_token: string;
  readonly tracking_token_hash: string;
}

export type ShipmentState = Shipment | null;

export type ShipmentCommand =
  | { kind: "book"; shipment: Shipment }
  | { kind: "get" };

export type ShipmentEvent = { kind: "shipment_booked"; shipment: Shipment };

/** `book` answers whether this call made the shipment (false: it existed, a replay). */
export interface Booking {
  readonly shipment: Shipment;
  readonly created: boolean;
}

export type ShipmentReply = Shipment | Booking;

export function asShipment(reply: ShipmentReply): Shipment {
  return "created" in reply ? reply.shipment : reply;
}

export const shipmentActor: ActorDefinition<
  ShipmentState,
  ShipmentCommand,
  ShipmentEvent,
  ShipmentReply
> = {
  type: "shipment",
  version: 1,
  initial: null,
  decide(state, command) {
    switch (command.kind) {
      case "book":
        // A retry of the same booking finds the shipment made: nothing is booked twice.
        if (state !== null) return accept([], () => ({ shipment: state, created: false }));
        return accept(
          [{ kind: "shipment_booked", shipment: command.shipment }],
          () => ({ shipment: command.shipment, created: true }),
        );
      case "get":
        if (state === null) return reject("not_found", "shipment not found");
        return accept([], () => state);
      case "timer":
        return accept([]);
      default:
        return unreachable(command);
    }
  },
  evolve(_state, event) {
    return event.shipment;
  },
  indexes: (s) => s === null ? [] : [{ index: "tracking", key: s.tracking_token_hash }],
  project: (s) => s === null ? null : shipmentSearchView(s),
};

/** What the query side keeps for search and lists: references, parties, money, no token. */
export function shipmentSearchView(s: Shipment) {
  const { tracking_token: _t, tracking_token_hash: _h, ...rest } = s;
  return { ...rest, ...s.references };
}
