/**
 * The handlers of the shopping outboxes, each item added by an actor in the commit of a change:
 * - the shopping event outbox (shopping 2.3, 6; issue 41 items 5 and 7): a store's part ended or
 *   a line awaits a decision, handed to flows/events.ts, which records it on the order and makes
 *   its events through the one delivery engine (src/platform/reactors/deliver.ts);
 * - the basket webhook outbox (Business API 6 `shopping.basket_collected`): a basket collected,
 *   handed to flows/basket_webhook.ts, which makes the business webhook event;
 * - the shop trip outbox (shopping 1.1): a shop-and-deliver trip created, whose order is marked
 *   booked by flows/orders.ts (a crash before the order's flow marked it leaves it to this);
 * - the shop trip ended outbox (business 3.1): a shop-and-deliver trip cancelled, whose order's
 *   unfinished stores end unavailable (flows/trip_ended.ts), so the goods bought are charged.
 * A failure leaves the item in its outbox; the runtime hands it over again and the idempotent
 * steps finish it.
 */
import { OutboxHandling } from "../../runtime/outbox_handling.ts";
import type { Logger } from "../../observe/log.ts";
import { Refused } from "../../runtime/actor.ts";
import type { OutboxItem } from "../../runtime/store.ts";
import { sendBasketWebhook } from "../flows/basket_webhook.ts";
import { type EventDeps, handleShoppingItem } from "../flows/events.ts";
import { orderTripBooked, sweepStalledOrder } from "../flows/orders.ts";
import { endOrderStores } from "../flows/trip_ended.ts";
import {
  SHOP_TRIP_BOOKED_OUTBOX,
  SHOP_TRIP_ENDED_OUTBOX,
  type ShopTripBookedItem,
  type ShopTripEndedItem,
  STALLED_RETRY,
} from "../../business/rules/booking.ts";
import {
  BASKET_WEBHOOK_OUTBOX,
  type BasketWebhookItem,
  ORDER_STALLED_OUTBOX,
  type OrderStalledItem,
  SHOPPING_EVENT_OUTBOX,
  type ShoppingEventItem,
} from "../rules/events.ts";

export class ShoppingEvents {
  readonly #deps: EventDeps & { readonly log: Logger };
  readonly #events: OutboxHandling;
  readonly #baskets: OutboxHandling;
  readonly #trips: OutboxHandling;
  readonly #stalled: OutboxHandling;
  readonly #ended: OutboxHandling;

  constructor(deps: EventDeps & { readonly log: Logger }) {
    this.#deps = deps;
    this.#events = new OutboxHandling(
      deps.runtime,
      SHOPPING_EVENT_OUTBOX,
      (item) => this.#onEvent(item),
    );
    this.#baskets = new OutboxHandling(
      deps.runtime,
      BASKET_WEBHOOK_OUTBOX,
      (item) => this.#onBasket(item),
    );
    this.#trips = new OutboxHandling(
      deps.runtime,
      SHOP_TRIP_BOOKED_OUTBOX,
      (item) => this.#onTrip(item),
    );
    this.#stalled = new OutboxHandling(
      deps.runtime,
      ORDER_STALLED_OUTBOX,
      (item) => this.#onStalled(item),
      STALLED_RETRY,
    );
    this.#ended = new OutboxHandling(
      deps.runtime,
      SHOP_TRIP_ENDED_OUTBOX,
      (item) => this.#onEnded(item),
    );
  }

  /** Stops taking items (they wait in the outboxes) and waits for those being handled. */
  async close(): Promise<void> {
    await Promise.all(
      [this.#events, this.#baskets, this.#trips, this.#stalled, this.#ended].map((h) => h.close()),
    );
  }

  async #onEvent(item: OutboxItem): Promise<void> {
    const event = item.payload as ShoppingEventItem;
    const log = { tenant_id: item.tenant, event_id: event.event_id };
    if (!this.#own(item, event.business_id, "shopping_event_dropped", log)) return;
    await handleShoppingItem(this.#depsOf(item), event);
  }

  async #onTrip(item: OutboxItem): Promise<void> {
    const trip = item.payload as ShopTripBookedItem;
    const log = { tenant_id: item.tenant, order_reference: trip.reference };
    if (!this.#own(item, trip.business_id, "shop_trip_dropped", log)) return;
    await orderTripBooked(this.#depsOf(item), trip);
  }

  async #onStalled(item: OutboxItem): Promise<void> {
    const order = item.payload as OrderStalledItem;
    const log = { tenant_id: item.tenant, order_reference: order.reference };
    if (!this.#own(item, order.business_id, "stalled_order_dropped", log)) return;
    await sweepStalledOrder(this.#deps.runtime, order);
  }

  async #onEnded(item: OutboxItem): Promise<void> {
    const trip = item.payload as ShopTripEndedItem;
    const log = { tenant_id: item.tenant, order_reference: trip.reference };
    if (!this.#own(item, trip.business_id, "shop_trip_ended_dropped", log)) return;
    await endOrderStores(this.#depsOf(item), trip);
  }

  async #onBasket(item: OutboxItem): Promise<void> {
    const basket = item.payload as BasketWebhookItem;
    const log = { tenant_id: item.tenant, order_reference: basket.order_reference };
    if (!this.#own(item, basket.business_id, "basket_webhook_dropped", log)) return;
    try {
      await sendBasketWebhook(this.#depsOf(item), basket);
    } catch (e) {
      if (!(e instanceof Refused)) throw e;
      // Refused for good (emitBusinessWebhook): handed over again it would be refused again.
      this.#deps.log.error(
        { event: "basket_webhook_refused", ...log, code: e.rejection.code },
        "basket webhook refused",
      );
    }
  }

  /** The deps an item's events are made with: its request named by their attempts' log lines. */
  #depsOf(item: OutboxItem): EventDeps {
    return item.requestId === undefined ? this.#deps : { ...this.#deps, requestId: item.requestId };
  }

  /**
   * The tenant whose actor committed the change is the only recipient ever: an item naming
   * another business is a broken actor, dropped (and logged) rather than sent across tenants.
   */
  #own(item: OutboxItem, business: string, event: string, log: object): boolean {
    if (business === item.tenant) return true;
    this.#deps.log.error({ event, ...log }, "shopping outbox item names another business");
    return false;
  }
}
