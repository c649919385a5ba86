/**
 * The bodies of the shopping events (shopping 2.3, 6; Business API 6), exactly as signed and sent.
 * Names: `shopping.store_collected` (2.3) for every store whose part ended, an unavailable one too
 * (its `store.status` says `unavailable`, as 3 lists both store states: one event per store);
 * `shopping.decision_required` when a line awaits the customer's decision (6 leaves other names
 * open); `shopping.basket_collected` (Business API 6) once every store is finished. Pure.
 */
import { decimal } from "../../domain/money.ts";
import { derivedId } from "../../domain/secrets.ts";
import type { Reconciliation } from "./float.ts";
import type { ExternalId } from "./order.ts";

export const STORE_COLLECTED = "shopping.store_collected";
export const DECISION_REQUIRED = "shopping.decision_required";
export const BASKET_COLLECTED = "shopping.basket_collected";

/** The outbound event id of the fact `eventId` of `business`: the same on every handling. */
export function shoppingEventId(business: string, eventId: string): string {
  return derivedId("evt", `shopping_webhook\n${business}\n${eventId}`, 26);
}

export interface EventOrder {
  readonly external_order_id: ExternalId;
  readonly reference: string;
  readonly currency: string;
}

export interface EventLine {
  readonly external_item_id: ExternalId;
  readonly name: string;
  readonly qty: number;
  readonly outcome: string;
  readonly qty_found: number | null;
  readonly unit_price_paid_minor: number | null;
  readonly substitute: {
    readonly name: string;
    readonly barcode: string | null;
    readonly unit_price_minor: number | null;
  } | null;
  readonly decided_by: string | null;
}

export interface EventStore {
  readonly external_fulfilment_id: ExternalId;
  readonly external_store_id: ExternalId;
  readonly status: string;
  readonly estimated_amount_minor: number;
  readonly collected_amount_minor: number | null;
  readonly lines: readonly EventLine[];
}

/** An event as sent: its id, name and the exact body signed. */
export interface ShoppingEvent {
  readonly id: string;
  readonly event: string;
  readonly raw_body: string;
}

function money(minor: number | null, currency: string): number | null {
  return minor === null ? null : decimal(minor, currency);
}

/** spec: shopping 2.3: `items[]` of a store, with the optional substitute. */
function itemOf(l: EventLine, currency: string) {
  return {
    external_item_id: l.external_item_id,
    outcome: l.outcome,
    qty_requested: l.qty,
    qty_found: l.qty_found,
    unit_price_paid: money(l.unit_price_paid_minor, currency),
    ...(l.substitute
      ? {
        substitute: {
          name: l.substitute.name,
          barcode: l.substitute.barcode,
          unit_price: money(l.substitute.unit_price_minor, currency),
        },
      }
      : {}),
    decided_by: l.decided_by,
  };
}

function made(id: string, event: string, body: Record<string, unknown>): ShoppingEvent {
  return { id, event, raw_body: JSON.stringify({ event, event_id: id, ...body }) };
}

/** spec: shopping 2.3: every field, per store; `receipt_photo_url` null when none was taken. */
export function storeCollectedEvent(o: {
  readonly id: string;
  readonly order: EventOrder;
  readonly store: EventStore;
  readonly receipt_photo_url: string | null;
  readonly at: number;
}): ShoppingEvent {
  const { order, store } = o;
  const c = order.currency;
  return made(o.id, STORE_COLLECTED, {
    external_order_id: order.external_order_id,
    trip_reference: order.reference,
    store: {
      external_fulfilment_id: store.external_fulfilment_id,
      external_store_id: store.external_store_id,
      status: store.status,
      estimated_amount: decimal(store.estimated_amount_minor, c),
      collected_amount: money(store.collected_amount_minor, c),
      currency: c,
      receipt_photo_url: o.receipt_photo_url,
    },
    items: store.lines.map((l) => itemOf(l, c)),
    at: new Date(o.at).toISOString(),
  });
}

/** A line under preference `ask` awaits the customer until `decide_by`. */
export function decisionRequiredEvent(o: {
  readonly id: string;
  readonly order: EventOrder;
  readonly store: Pick<EventStore, "external_fulfilment_id" | "external_store_id">;
  readonly line: EventLine;
  readonly decide_by: number;
  readonly at: number;
}): ShoppingEvent {
  const c = o.order.currency;
  return made(o.id, DECISION_REQUIRED, {
    external_order_id: o.order.external_order_id,
    trip_reference: o.order.reference,
    store: {
      external_fulfilment_id: o.store.external_fulfilment_id,
      external_store_id: o.store.external_store_id,
    },
    item: { ...itemOf(o.line, c), name: o.line.name },
    decide_by: new Date(o.decide_by).toISOString(),
    at: new Date(o.at).toISOString(),
  });
}

/** What `shopping.basket_collected` reports, on the shopping stream and the business webhook. */
export interface BasketFacts {
  readonly order: EventOrder & { readonly external_reference: string };
  readonly stores: readonly { readonly external_fulfilment_id: ExternalId; status: string }[];
  readonly reconciliation: Reconciliation;
  readonly packing_slip_url: string;
  readonly at: number;
}

/**
 * Business API 6: the basket collected, its float reconciled, with a signed packing slip link;
 * the business's external_reference as every event carries it (Business API 2.7).
 */
export function basketCollectedFields(o: BasketFacts): Record<string, unknown> {
  const c = o.order.currency;
  const r = o.reconciliation;
  return {
    external_order_id: o.order.external_order_id,
    external_reference: o.order.external_reference,
    trip_reference: o.order.reference,
    stores: o.stores.map((s) => ({
      external_fulfilment_id: s.external_fulfilment_id,
      status: s.status,
    })),
    float: {
      currency: c,
      purchase_amount: decimal(r.purchase_minor, c),
      estimated_amount: decimal(r.estimated_minor, c),
      spent_amount: decimal(r.spent_minor, c),
      difference: decimal(r.difference_minor, c),
      float_returned: decimal(r.float_returned_minor, c),
      refund_amount: decimal(r.refund_minor, c),
      charged_amount: decimal(r.charge_minor, c),
    },
    packing_slip_url: o.packing_slip_url,
    at: new Date(o.at).toISOString(),
  };
}

/** The basket's event on the shopping stream. */
export function basketCollectedEvent(o: BasketFacts & { readonly id: string }): ShoppingEvent {
  return made(o.id, BASKET_COLLECTED, basketCollectedFields(o));
}
