/**
 * The seam between the shopper's work and what the merchant hears of it (shopping 2.3, 3, 6): the
 * store actor adds these items to one outbox in the commit of the change; the outbound engine's
 * handler turns each into a signed event, once per `event_id`.
 */

/** The outbox the store actor fills in the commit of a change the merchant hears of. */
export const SHOPPING_EVENT_OUTBOX = "shopping_events";

export type ShoppingEventItem =
  // a store's part ended: collected (with its till amount and receipt) or unavailable
  | {
    kind: "store_finished";
    business_id: string;
    order_reference: string;
    store_id: string;
    event_id: string;
  }
  // a line under preference `ask` now awaits the customer's decision until decide_by (ms)
  | {
    kind: "decision_needed";
    business_id: string;
    order_reference: string;
    store_id: string;
    external_item_id: string | number;
    event_id: string;
    decide_by: number;
    /**
     * What the shopper found, as the line began to await the customer, and when (absent on items
     * added before: the line as read then): the event states it, however late it is made.
     */
    line?: AwaitedLine;
    at?: number;
  };

/** A line awaiting the customer's decision: the substitute found (shopping 2.3 items[]). */
export interface AwaitedLine {
  readonly qty_found: number;
  readonly unit_price_paid_minor: number | null;
  readonly substitute: {
    readonly name: string;
    readonly barcode: string | null;
    readonly unit_price_minor: number | null;
  };
}

/**
 * The outbox the order actor fills in the commit that collects the basket: its handler sends
 * `shopping.basket_collected` to the business webhook (Business API 6), once per basket. The
 * event's packing slip link is signed by the handler (the link key is sealed, its life a setting),
 * so the order's commit hands over only which basket.
 */
export const BASKET_WEBHOOK_OUTBOX = "shopping_basket_webhook";

/** The basket of the order `order_reference` of `business_id` was collected. */
export interface BasketWebhookItem {
  readonly business_id: string;
  readonly order_reference: string;
}

/**
 * The outbox the order actor fills when its booking still holds the order id past the bound (a
 * crash between two steps): its handler completes the order from its trip or releases the claim.
 */
export const ORDER_STALLED_OUTBOX = "shopping_order_stalled";
/** The timer that hands a booking of the order stopped between its steps to that sweep. */
export const ORDER_STALL_TIMER = "order_booking_stalled";
/**
 * How long a booking may hold the order id before the sweep looks at it, and again after each
 * look while its trip is being made: past the trip's own stall (30 s), so a claimed trip is
 * completed by its sweep first and the order's sweep only finds the outcome.
 */
export const ORDER_BOOKING_STALL_MS = 2 * 60_000;

/** A stalled booking of the order `reference` of `business_id`. */
export interface OrderStalledItem {
  readonly business_id: string;
  readonly reference: string;
}
