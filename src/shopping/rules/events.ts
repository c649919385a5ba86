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
  };

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
